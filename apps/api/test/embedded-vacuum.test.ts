/**
 * The embedded database has no autovacuum: rows updated again and again (a lease by each heartbeat) leave their old
 * versions behind, and the files grow for good. The maintenance round (jobs/embedded-vacuum.ts) keeps them flat.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type DatabaseHandle, openDatabase } from "../src/db/client";
import { startEmbeddedVacuum } from "../src/jobs/embedded-vacuum";

let dir: string;
let database: DatabaseHandle;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "flotilla-vacuum-"));
  database = await openDatabase({ kind: "pglite", dataDir: dir });
  await database.db.execute(sql`create table churn (id int primary key, beat timestamptz not null default now())`);
  await database.db.execute(sql`create index churn_beat_idx on churn (beat)`);
  await database.db.execute(sql`insert into churn (id) select generate_series(1, 200)`);
});
afterAll(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every row updated `rounds` times, as heartbeats do (an indexed column changes: no in-page shortcut). */
async function beat(rounds: number) {
  for (let round = 0; round < rounds; round += 1) {
    await database.db.execute(sql`update churn set beat = clock_timestamp()`);
  }
}

async function bytes(): Promise<number> {
  const result = (await database.db.execute(
    sql`select pg_relation_size('churn') + pg_indexes_size('churn') as bytes`,
  )) as unknown as { rows: Array<{ bytes: string | number }> };
  return Number(result.rows[0]!.bytes);
}

const silent = { debug: () => undefined, warn: () => undefined };

describe("the embedded database's vacuum", () => {
  it("without it the table grows with every update; with it the size stays flat", async () => {
    const start = await bytes();
    await beat(20);
    const grown = await bytes();
    expect(grown).toBeGreaterThan(start * 3);

    const vacuum = startEmbeddedVacuum(database, silent, { timer: false });
    await vacuum.run();
    await beat(20);
    const afterOne = await bytes();
    await vacuum.run();
    await beat(20);
    await vacuum.run();
    await beat(20);
    // The space the old versions took is reused: sixty more rounds of updates add less than a tenth of what they
    // added without it (three times the growth of the first twenty).
    expect((await bytes()) - afterOne).toBeLessThan(((grown - start) * 3) / 10);
    await vacuum.stop();
  });

  it("ANALYZEs on its first round and every sixth; does nothing on PostgreSQL", async () => {
    const calls: boolean[] = [];
    const fake = { kind: "pglite" as const, vacuum: vi.fn(async ({ analyze }) => void calls.push(analyze)) };
    const vacuum = startEmbeddedVacuum(fake, silent, { timer: false });
    for (let round = 0; round < 7; round += 1) await vacuum.run();
    expect(calls).toEqual([true, false, false, false, false, false, true]);

    const postgres = { kind: "postgres" as const, vacuum: vi.fn(async () => undefined) };
    await startEmbeddedVacuum(postgres, silent).run();
    expect(postgres.vacuum).not.toHaveBeenCalled();
  });
});
