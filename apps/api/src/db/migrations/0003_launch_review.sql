CREATE TABLE "machine_removals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"license_id" uuid NOT NULL,
	"machine_id" text NOT NULL,
	"display_id" text NOT NULL,
	"machine_name" text,
	"removed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "login_transactions" ADD COLUMN "browser_hash" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "absolute_expires_at" timestamp with time zone;--> statement-breakpoint
-- Existing sessions get the default absolute lifetime (90 days from sign-in).
UPDATE "sessions" SET "absolute_expires_at" = "created_at" + interval '90 days';--> statement-breakpoint
ALTER TABLE "sessions" ALTER COLUMN "absolute_expires_at" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "browser_hash" text;--> statement-breakpoint
ALTER TABLE "machine_removals" ADD CONSTRAINT "machine_removals_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "public"."licenses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "machine_removals_license_machine_key" ON "machine_removals" USING btree ("license_id","machine_id");--> statement-breakpoint
-- Validations no longer replay stored answers (they carried signed tokens): forget them.
DELETE FROM "idempotency_keys" WHERE "scope" LIKE 'validate:%';--> statement-breakpoint
-- Unknown keys are counted in one row per day and code: fold what random keys left behind.
INSERT INTO "validation_rollups" ("day", "license_key", "machine_id", "code", "attempts")
SELECT "day", '', '', "code", sum("attempts")::int FROM "validation_rollups" v
WHERE NOT EXISTS (SELECT 1 FROM "licenses" l WHERE l."license_key" = v."license_key")
GROUP BY "day", "code"
ON CONFLICT ("license_key", "day", "machine_id", "code") DO UPDATE SET "attempts" = "validation_rollups"."attempts" + excluded."attempts";--> statement-breakpoint
DELETE FROM "validation_rollups" v WHERE v."license_key" <> '' AND NOT EXISTS (SELECT 1 FROM "licenses" l WHERE l."license_key" = v."license_key");
