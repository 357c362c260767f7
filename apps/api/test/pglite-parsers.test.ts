/**
 * The embedded database's queries carry no parsers of their own (db/pglite-parsers.ts): PGlite copied its table of 318
 * parsers to merge the ones drizzle sends with every query, half of a statement's cost. What drizzle reads is unchanged:
 * date, time and interval types (and their arrays) as PostgreSQL's text, which drizzle maps itself.
 */
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../src/db/client";
import { licenses } from "../src/db/schema";

const sent: Array<{ text: string; parsers: boolean; inTransaction: boolean }> = [];
const { query, transaction } = PGlite.prototype;
let database: DatabaseHandle;

type Query = (text: string, params?: unknown[], options?: { parsers?: object }) => Promise<unknown>;
/** Writes down every query a client is sent, and whether it came with parsers to merge. */
function recording(send: Query, inTransaction: boolean): Query {
  return (text, params, options) => {
    sent.push({ text, parsers: Boolean(options?.parsers), inTransaction });
    return send(text, params, options);
  };
}

beforeAll(async () => {
  PGlite.prototype.query = function (this: PGlite, ...args: Parameters<Query>) {
    return recording(query.bind(this) as Query, false)(...args);
  } as typeof query;
  PGlite.prototype.transaction = function (this: PGlite, callback: Parameters<typeof transaction>[0]) {
    return transaction.call(this, (tx) => {
      const send = tx.query.bind(tx) as Query;
      Object.defineProperty(tx, "query", { value: recording(send, true) });
      return callback(tx);
    });
  } as typeof transaction;
  database = await openDatabase({ kind: "pglite", dataDir: null });
});
afterAll(async () => {
  Object.assign(PGlite.prototype, { query, transaction });
  await database.close();
});

const TEXT_TYPES = sql`select '2026-11-29 08:00:00+00'::timestamptz as at, '2026-11-29 08:00:00'::timestamp as local,
  '2026-11-29'::date as day, interval '90 seconds' as span, array['2026-11-29 08:00:00+00'::timestamptz] as ats,
  array[1.5]::numeric[] as amounts, 7 as n`;

describe("the embedded database's queries", () => {
  it("carry no parsers, in a transaction or not, and read what drizzle asked for", async () => {
    sent.length = 0;
    const { rows } = (await database.db.execute(TEXT_TYPES)) as unknown as { rows: Array<Record<string, unknown>> };
    expect(rows[0]).toEqual({
      at: "2026-11-29 08:00:00+00",
      local: "2026-11-29 08:00:00",
      day: "2026-11-29",
      span: "00:01:30",
      ats: '{"2026-11-29 08:00:00+00"}',
      amounts: "{1.5}",
      n: 7,
    });
    await database.db.transaction(async (tx) => {
      const inside = (await tx.execute(TEXT_TYPES)) as unknown as { rows: Array<Record<string, unknown>> };
      expect(inside.rows[0]!.ats).toBe('{"2026-11-29 08:00:00+00"}');
      expect(await tx.select({ id: licenses.id, createdAt: licenses.createdAt }).from(licenses).limit(1)).toEqual([]);
    });
    expect(sent.filter((query) => !query.inTransaction).length).toBeGreaterThanOrEqual(1);
    expect(sent.filter((query) => query.inTransaction).length).toBeGreaterThanOrEqual(2);
    expect(sent.filter((query) => query.parsers)).toEqual([]);
  });

  it("read arrays of timestamps as text even after PGlite sets its array parsers again", async () => {
    const pglite = (database.db as unknown as { $client: PGlite }).$client;
    await pglite.refreshArrayTypes();
    const { rows } = (await database.db.execute(TEXT_TYPES)) as unknown as { rows: Array<Record<string, unknown>> };
    expect(rows[0]!.ats).toBe('{"2026-11-29 08:00:00+00"}');
  });

  it("map timestamp columns to dates through the schema, as before", async () => {
    const { rows } = (await database.db.execute(sql`select now() as at`)) as unknown as {
      rows: Array<{ at: string }>;
    };
    const at = licenses.createdAt.mapFromDriverValue(rows[0]!.at) as Date;
    expect(at).toBeInstanceOf(Date);
    expect(Math.abs(at.getTime() - Date.now())).toBeLessThan(60_000);
  });
});
