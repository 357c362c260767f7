-- Execution leases (decision 0048): a running execution holds a lease that its heartbeats keep alive. A license's
-- running leases (not ended, not expired, on a machine that holds a slot) are capped by its tier's
-- max_concurrent_executions, decided under the license lock every slot change takes. An ended lease counts once as
-- an execution in the usage figures: it is added to usage_rollups when it ends.
CREATE TABLE "execution_leases" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "license_id" uuid NOT NULL REFERENCES "licenses"("id") ON DELETE CASCADE,
  "machine_id" text NOT NULL,
  "feature" text DEFAULT '' NOT NULL,
  "started_at" timestamp with time zone NOT NULL,
  "last_heartbeat_at" timestamp with time zone NOT NULL,
  "expires_at" timestamp with time zone NOT NULL,
  "ended_at" timestamp with time zone,
  "end_reason" text
);
--> statement-breakpoint
CREATE INDEX "execution_leases_open_idx" ON "execution_leases" ("license_id", "expires_at") WHERE "ended_at" IS NULL;
--> statement-breakpoint
CREATE INDEX "execution_leases_open_expiry_idx" ON "execution_leases" ("expires_at") WHERE "ended_at" IS NULL;
--> statement-breakpoint
CREATE INDEX "execution_leases_license_started_idx" ON "execution_leases" ("license_id", "started_at");
