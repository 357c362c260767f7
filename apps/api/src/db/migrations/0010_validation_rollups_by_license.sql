-- Follow-through: a license's validation counters belong to the license, not to the text of its key. Keyed by the key,
-- a rotation wiped the owner's 30-day analytics (the new key had none) and left the old key's rows to no one. Now the
-- counters name the license by id; attempts with a key that names no license keep one row per day and code with a
-- NULL license id (the unique constraint treats NULLs as equal, so they still fold into one row). Key text leaves the
-- table: a secret is no longer copied into every counter.
--
-- Existing rows are moved over: a key names its license by the current key or a rotated one still in
-- license_key_aliases; rows of the same license under several keys are summed. Rows whose key names no license any
-- more (its license is gone, or it was rotated and its alias pruned) were already shown to no one: they are dropped.
CREATE TABLE "validation_rollups_by_license" (
  "day" date NOT NULL,
  "license_id" uuid,
  "machine_id" text NOT NULL,
  "code" text NOT NULL,
  "attempts" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO "validation_rollups_by_license" ("day", "license_id", "machine_id", "code", "attempts")
SELECT v."day", k."license_id", v."machine_id", v."code", sum(v."attempts")::int
FROM "validation_rollups" v
LEFT JOIN (
  SELECT "license_key", "id" AS "license_id" FROM "licenses"
  UNION ALL
  SELECT "license_key", "license_id" FROM "license_key_aliases"
) k ON v."license_key" <> '' AND k."license_key" = v."license_key"
WHERE v."license_key" = '' OR k."license_id" IS NOT NULL
GROUP BY v."day", k."license_id", v."machine_id", v."code";
--> statement-breakpoint
DROP TABLE "validation_rollups";
--> statement-breakpoint
ALTER TABLE "validation_rollups_by_license" RENAME TO "validation_rollups";
--> statement-breakpoint
ALTER TABLE "validation_rollups" ADD CONSTRAINT "validation_rollups_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "public"."licenses"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "validation_rollups" ADD CONSTRAINT "validation_rollups_license_day_machine_code_key" UNIQUE NULLS NOT DISTINCT ("license_id", "day", "machine_id", "code");
