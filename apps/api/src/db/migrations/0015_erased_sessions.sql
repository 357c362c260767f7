-- Decision 0056: the sessions an erasure ended, so that a browser still holding one of their tokens is told
-- `account_erased` (a 401's reason) instead of nothing. Only the token's SHA-256 and when the session would have ended
-- at the latest: no customer, no address. The erasure writes the rows in its transaction, before the customer's
-- sessions cascade away; the retention job deletes each once `ends_at` has passed.
CREATE TABLE "erased_sessions" (
  "token_hash" text PRIMARY KEY NOT NULL,
  "ends_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "erased_sessions_ends_at_idx" ON "erased_sessions" USING btree ("ends_at");
