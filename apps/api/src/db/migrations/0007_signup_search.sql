-- Issue 16, measured (bench/admin-pagination.mjs, 1,000,000 signups on PostgreSQL): keyset pages and equality
-- filters answer in single-digit milliseconds from signups_created_at_idx, but a "contains" search that matches
-- few rows read the whole table (ILIKE '%…%' on email, name and company): ≈1.5 s. Trigram indexes answer it.
-- pg_trgm is a trusted extension (PostgreSQL 13+): the database owner may create it; PGlite loads it (db/client.ts).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "signups_email_trgm_idx" ON "signups" USING gin ("email" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "signups_name_trgm_idx" ON "signups" USING gin ("name" gin_trgm_ops);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "signups_company_trgm_idx" ON "signups" USING gin ("company" gin_trgm_ops);
