/** A database as a deployment before migration `idx` has it, to prove what that migration does to existing rows. */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import type { sql } from "drizzle-orm";
import { drizzle as drizzleNodePg } from "drizzle-orm/node-postgres";
import { migrate as migrateNodePg } from "drizzle-orm/node-postgres/migrator";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { createTestDatabase } from "./test-app";

export const MIGRATIONS = fileURLToPath(new URL("../../src/db/migrations/", import.meta.url));

/** A copy of the migrations folder that stops before `idx` (what a database deployed before it has run). */
export function migrationsBefore(idx: number): string {
  const dir = mkdtempSync(join(tmpdir(), "flotilla-migrations-"));
  cpSync(MIGRATIONS, dir, { recursive: true });
  const journalPath = join(dir, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { idx: number }[] };
  journal.entries = journal.entries.filter((entry) => entry.idx < idx);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

export type Run = (statement: ReturnType<typeof sql>) => Promise<Record<string, unknown>[]>;

/**
 * Runs `test` on a fresh database (PGlite, or PostgreSQL in the api-postgres project) migrated up to, not including,
 * migration `idx`; `migrateAll` then runs the rest, as a deployment's next start would.
 */
export async function withDatabaseBefore(
  idx: number,
  test: (run: Run, migrateAll: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const before = migrationsBefore(idx);
  const database = await createTestDatabase();
  try {
    if (database.options.kind === "pglite") {
      const client = new PGlite({ extensions: { pg_trgm } });
      const db = drizzlePglite(client);
      await migratePglite(db, { migrationsFolder: before });
      const run: Run = async (statement) => ((await db.execute(statement)) as { rows: Record<string, unknown>[] }).rows;
      try {
        await test(run, () => migratePglite(db, { migrationsFolder: MIGRATIONS }));
      } finally {
        await client.close();
      }
    } else {
      const client = new pg.Client({ connectionString: database.options.url });
      await client.connect();
      const db = drizzleNodePg(client);
      await migrateNodePg(db, { migrationsFolder: before });
      const run: Run = async (statement) => (await db.execute(statement)).rows as Record<string, unknown>[];
      try {
        await test(run, () => migrateNodePg(db, { migrationsFolder: MIGRATIONS }));
      } finally {
        await client.end();
      }
    }
  } finally {
    rmSync(before, { recursive: true, force: true });
    await database.drop();
  }
}
