-- Issue 35, "flat with data" (decision 0058). Measured with `npm run bench:scale` (bench/scale.mjs): on the large seed
-- these reads and jobs were full scans, their cost growing with the data. Each index here serves one of them.
--
-- The console's customer list: the first page walks (created_at, id) backwards; a "contains" search on email or name
-- answers from trigram indexes (pg_trgm, migration 0007; PGlite loads it, db/client.ts) when the match is rare.
CREATE INDEX IF NOT EXISTS "customers_created_at_idx" ON "customers" USING btree ("created_at", "id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "customers_email_trgm_idx" ON "customers" USING gin ("email" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "customers_name_trgm_idx" ON "customers" USING gin ("name" gin_trgm_ops);
--> statement-breakpoint
-- The console's audit search by actor (a type, an id, or the accounts an address names, decision 0053): each is one
-- indexed branch read newest first, merged (modules/admin/newest-first.ts), instead of an OR that read the log.
CREATE INDEX IF NOT EXISTS "audit_events_actor_id_idx" ON "audit_events" USING btree ("actor_id", "seq");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "audit_events_actor_type_idx" ON "audit_events" USING btree ("actor_type", "seq");
--> statement-breakpoint
-- The culling job finds what is due from the machines, not by walking every license: active machines silent past
-- the shortest window (machines_status_last_seen_idx, and bound_at for a machine never seen), inactive ones past the
-- revival window (this index). Nothing due is an empty range.
CREATE INDEX IF NOT EXISTS "machines_inactive_since_idx" ON "machines" USING btree ("inactive_since")
  WHERE "status" = 'inactive';
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "machines_never_seen_idx" ON "machines" USING btree ("bound_at")
  WHERE "status" = 'active' AND "last_seen" IS NULL;
--> statement-breakpoint
-- Retention deletes by age: each batch reads the oldest rows from an index instead of scanning the table for them.
CREATE INDEX IF NOT EXISTS "machine_events_at_idx" ON "machine_events" USING btree ("at");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "usage_reports_created_at_idx" ON "usage_reports" USING btree ("created_at");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "validation_rollups_day_idx" ON "validation_rollups" USING btree ("day");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "usage_rollups_daily_idx" ON "usage_rollups" USING btree ("day") WHERE "machine_id" <> '';
