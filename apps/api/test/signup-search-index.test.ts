/**
 * Migration 0007: the admin's signup search ("contains", ILIKE '%…%' on email, name and company) can use trigram
 * indexes, on PGlite as on PostgreSQL. bench/admin-pagination.mjs has the figures that asked for them.
 */
import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/db/client";
import { createTestDatabase } from "./helpers/test-app";

const database = await createTestDatabase();
const handle = await openDatabase(database.options);
afterAll(async () => {
  await handle.close();
  await database.drop();
});

describe("signup search indexes", () => {
  it("exist, and a rare 'contains' search is answered from them instead of reading every row", async () => {
    const { rows } = (await handle.db.execute(
      sql`select indexname from pg_indexes where tablename = 'signups' and indexname like '%trgm%' order by 1`,
    )) as unknown as { rows: { indexname: string }[] };
    expect(rows.map((row) => row.indexname)).toEqual([
      "signups_company_trgm_idx",
      "signups_email_trgm_idx",
      "signups_name_trgm_idx",
    ]);
    // A tiny test table is cheapest to read whole, so the planner is told not to; what matters is that it can.
    const plan = await handle.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      const result = (await tx.execute(
        sql`explain select id from signups where email ilike '%bench-987654@%' or name ilike '%bench-987654@%' or company ilike '%bench-987654@%'`,
      )) as unknown as { rows: Record<string, string>[] };
      return result.rows.map((row) => Object.values(row)[0]).join("\n");
    });
    expect(plan).toMatch(/Bitmap Index Scan on signups_email_trgm_idx/);
    expect(plan).toMatch(/Bitmap Index Scan on signups_company_trgm_idx/);
  });
});
