/**
 * The counter flush is background work: it writes in small statements and gives the event loop a turn between them,
 * so a request's statement never waits behind the whole flush (issue 35). On the embedded database a statement runs
 * on the process's only thread: one 200-row last-seen write took 11–15 ms there, every second, and every request that
 * arrived meanwhile waited for all of it.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../src/db/client";
import { AttemptRecorder } from "../src/modules/licenses/attempt-recorder";
import { addValidationAttempts, touchLastSeen, WRITE_CHUNK_ROWS } from "../src/modules/licenses/queries";
import { licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false }));
});
afterAll(() => close());

type Query = Parameters<Database["execute"]>[0];

/** The database, with `execute` (every statement the flush sends) going through `send` first. */
function intercepted(
  db: Database,
  send: (query: Query, execute: (query: Query) => Promise<unknown>) => Promise<unknown>,
) {
  return new Proxy(db, {
    get(target, name, receiver) {
      if (name !== "execute") return Reflect.get(target, name, receiver);
      return (query: Query) => send(query, (sent) => target.execute(sent));
    },
  });
}

/** The database, with every statement it is sent written down in order. */
const watched = (db: Database, log: string[]) =>
  intercepted(db, (query, execute) => {
    log.push("flush statement");
    return execute(query);
  });

/** A license bound to `machine` by a validation; its id. */
async function boundLicense(prefix: string, machine: string): Promise<string> {
  const { key } = await licensedCustomer(app, prefix);
  const validated = await app.inject({
    method: "POST",
    url: "/api/license/validate",
    payload: { license_key: key, machine_id: machine },
  });
  expect(validated.statusCode).toBe(200);
  const { rows } = (await app.database.db.execute(
    sql`select license_id from machines where machine_id = ${machine}`,
  )) as unknown as { rows: Array<{ license_id: string }> };
  return rows[0]!.license_id;
}

/** Runs a flush with a request arriving while it runs; every statement the flush sent, and when each ended. */
async function flushBesideARequest(flush: (db: Database) => Promise<void>): Promise<string[]> {
  const log: string[] = [];
  const flushed = flush(watched(app.database.db, log)).then(() => log.push("flush done"));
  // A request read while the flush runs: its statement is sent on the next turn of the event loop.
  const request = new Promise<void>((resolve) =>
    setImmediate(() => {
      void app.database.db.execute(sql`select 1`).then(() => {
        log.push("request's statement answered");
        resolve();
      });
    }),
  );
  await Promise.all([flushed, request]);
  return log;
}

describe("the counter flush takes turns with requests", () => {
  const ROWS = 200;

  it("writes last-seen times in statements of a few rows, with a request's statement let in between", async () => {
    const machine = "flush-turns-machine";
    const licenseId = await boundLicense("flush-turns", machine);
    const at = new Date(Date.now() + 60_000);
    // One real machine among many the flush names (a busy instance's second of heartbeats).
    const seen = [
      { licenseId, machineId: machine, at },
      ...Array.from({ length: ROWS - 1 }, (_, i) => ({ licenseId, machineId: `absent-${i}`, at })),
    ];

    const log = await flushBesideARequest((db) => touchLastSeen(db, seen));

    const statements = log.filter((entry) => entry === "flush statement").length;
    expect(statements).toBe(2 * Math.ceil(ROWS / WRITE_CHUNK_ROWS));
    expect(WRITE_CHUNK_ROWS).toBeLessThanOrEqual(50);
    expect(log.indexOf("request's statement answered")).toBeLessThan(log.indexOf("flush done"));
    // Still written: the machine's and the license's last-seen times moved to the flush's time.
    const after = (await app.database.db.execute(
      sql`select m.last_seen as machine, l.last_seen as license from machines m join licenses l on l.id = m.license_id
          where m.machine_id = ${machine}`,
    )) as unknown as { rows: Array<{ machine: Date | string; license: Date | string }> };
    expect(new Date(after.rows[0]!.machine).getTime()).toBe(at.getTime());
    expect(new Date(after.rows[0]!.license).getTime()).toBe(at.getTime());
  });

  it("writes validation counters the same way", async () => {
    const licenseId = await boundLicense("flush-turns-counters", "counters-machine");
    const day = new Date().toISOString().slice(0, 10);
    const code = `TURNS_${randomUUID().slice(0, 8)}`;
    const increments = Array.from({ length: ROWS }, (_, i) => ({
      day,
      licenseId,
      machineId: `counted-${i}`,
      code,
      attempts: 1,
    }));

    const log = await flushBesideARequest((db) => addValidationAttempts(db, increments));

    expect(log.filter((entry) => entry === "flush statement").length).toBe(Math.ceil(ROWS / WRITE_CHUNK_ROWS));
    expect(log.indexOf("request's statement answered")).toBeLessThan(log.indexOf("flush done"));
    const counted = (await app.database.db.execute(
      sql`select coalesce(sum(attempts), 0)::int as n from validation_rollups where code = ${code}`,
    )) as unknown as { rows: Array<{ n: number }> };
    expect(counted.rows[0]!.n).toBe(ROWS);
  });
});

describe("a flush that fails part-way", () => {
  it("retries only the counters it did not write: none lost, none counted twice", async () => {
    const licenseId = await boundLicense("flush-part-way", "part-way-machine");
    const code = `PART_${randomUUID().slice(0, 8)}`;
    const COUNTERS = 3 * WRITE_CHUNK_ROWS;

    // The second statement fails once (a dropped connection, a statement timeout), the others go through.
    let statements = 0;
    const flaky = intercepted(app.database.db, (query, execute) => {
      statements += 1;
      return statements === 2 ? Promise.reject(new Error("connection lost")) : execute(query);
    });
    const errors: unknown[] = [];
    const recorder = new AttemptRecorder(flaky, (error) => errors.push(error));
    const now = new Date();
    for (let i = 0; i < COUNTERS; i++) recorder.record(licenseId, `part-way-${i}`, code, now);
    await recorder.flush();
    expect(errors).toHaveLength(1);
    expect(recorder.pending).toBe(2 * WRITE_CHUNK_ROWS);
    await recorder.flush();
    expect(recorder.pending).toBe(0);

    const counted = (await app.database.db.execute(
      sql`select coalesce(sum(attempts), 0)::int as n, count(*)::int as counters from validation_rollups
          where code = ${code}`,
    )) as unknown as { rows: Array<{ n: number; counters: number }> };
    expect(counted.rows[0]).toEqual({ n: COUNTERS, counters: COUNTERS });
  });
});
