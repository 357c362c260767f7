-- Issue 36, decision 0062: admitting early-access signups as beta testers, in waves.
--
-- A wave is a name and a date. An invitation is one address's, for ever: the unique index on the normalised address
-- is what makes admitting idempotent (the same signup admitted twice, in one wave or two, or by two operators at
-- once, holds one invitation and was mailed once). Signing in with exactly that address (compared normalised, never
-- searched for inside other text) sets accepted_at. The funnel after that (license, activation, execution) is read
-- from the licensing tables, not copied here.
CREATE TABLE "beta_waves" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "name" text NOT NULL,
  "starts_on" date NOT NULL,
  "created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "beta_waves_name_key" ON "beta_waves" (lower("name"));
--> statement-breakpoint
CREATE TABLE "beta_invitations" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "wave_id" uuid NOT NULL REFERENCES "beta_waves"("id") ON DELETE RESTRICT,
  "signup_id" uuid REFERENCES "signups"("id") ON DELETE SET NULL,
  "email" text NOT NULL,
  "email_normalized" text NOT NULL,
  "invited_at" timestamp with time zone DEFAULT now() NOT NULL,
  "last_sent_at" timestamp with time zone DEFAULT now() NOT NULL,
  "sends" integer DEFAULT 1 NOT NULL,
  "accepted_at" timestamp with time zone,
  "customer_id" uuid REFERENCES "customers"("id") ON DELETE SET NULL,
  "withdrawn_at" timestamp with time zone
);
--> statement-breakpoint
CREATE UNIQUE INDEX "beta_invitations_email_normalized_key" ON "beta_invitations" ("email_normalized");
--> statement-breakpoint
CREATE INDEX "beta_invitations_wave_idx" ON "beta_invitations" ("wave_id", "invited_at");
