-- Launch review 2 (decision 0036): a leaked key must not lock its owner out of their own seats for 90 days.
-- License files need the owner's consent, per license, off by default. Licenses whose machines hold a license file
-- that still works keep files on: turning them off under a running fleet would break a promise already made.
ALTER TABLE "licenses" ADD COLUMN "offline_files_allowed" boolean DEFAULT false NOT NULL;
--> statement-breakpoint
UPDATE "licenses" SET "offline_files_allowed" = true
  WHERE "id" IN (SELECT "license_id" FROM "machines" WHERE "lease_until" > now());
--> statement-breakpoint
-- A machine revoked while its license file still worked: its slot was freed and its id barred, but the file may run
-- offline until valid_until. The owner may hold at most max_machines of these at a time (SEAT_RULES); the dashboard
-- shows each one.
CREATE TABLE "revoked_license_files" (
  "id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
  "license_id" uuid NOT NULL REFERENCES "licenses"("id") ON DELETE CASCADE,
  "machine_id" text NOT NULL,
  "display_id" text NOT NULL,
  "revoked_at" timestamp with time zone DEFAULT now() NOT NULL,
  "valid_until" timestamp with time zone NOT NULL,
  "revoked_by" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "revoked_license_files_license_valid_idx" ON "revoked_license_files" ("license_id", "valid_until");
