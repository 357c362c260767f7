-- Seats and executions in one home (decisions 0051, 0052).
--
-- A lease records the binding it runs on (machine_ref: the machines row it started on): a machine that loses its slot
-- and binds again is a new row, so an old lease can never count again through it. Leases stopped by someone else (the
-- owner, an admin, a slot freed, a lower limit) are `stopping` until their app has stopped (it ends them) or their
-- heartbeat window passes; end_reason says why from the moment of the stop.
ALTER TABLE "execution_leases" ADD COLUMN "machine_ref" uuid REFERENCES "machines"("id") ON DELETE SET NULL;
--> statement-breakpoint
ALTER TABLE "execution_leases" ADD COLUMN "stop_requested_at" timestamp with time zone;
--> statement-breakpoint
UPDATE "execution_leases" e SET "machine_ref" = m."id"
  FROM "machines" m
  WHERE m."license_id" = e."license_id" AND m."machine_id" = e."machine_id" AND e."ended_at" IS NULL;
--> statement-breakpoint
-- Open leases of machines that hold no slot today were not counted before; they stop now, as every path that frees a
-- slot stops them from here on.
UPDATE "execution_leases" e SET "stop_requested_at" = now(), "end_reason" = 'machine_released'
  WHERE e."ended_at" IS NULL AND NOT EXISTS (
    SELECT 1 FROM "machines" m WHERE m."id" = e."machine_ref" AND m."status" = 'active');
--> statement-breakpoint
CREATE INDEX "execution_leases_machine_ref_idx" ON "execution_leases" ("machine_ref") WHERE "ended_at" IS NULL;
--> statement-breakpoint
-- One source for what a license may do: the tier table in packages/contracts/src/tiers.ts. The features column was a
-- copy of it, read in some places while the limit was read from the table in others; a tier the table does not know
-- was treated as unlimited. A license now holds a known tier, or nothing (test/license-terms.test.ts keeps this list
-- equal to the table's).
ALTER TABLE "licenses" DROP COLUMN "features";
--> statement-breakpoint
ALTER TABLE "licenses" ADD CONSTRAINT "licenses_tier_known" CHECK ("tier" IN ('free', 'plus', 'pro', 'pro+', 'ultra'));
