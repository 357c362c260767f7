/**
 * Follow-through: the owner's 30-day analytics are the license's, whatever key it has now. A key rotation used to
 * wipe them (the counters were keyed by the key text); refused devices used to appear nowhere.
 */
import { SEAT_RULES } from "@flotilla/contracts/seats";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, licensedCustomer } from "./helpers/licensed-customer";
import { withDatabaseBefore } from "./helpers/migrations";
import { createTestApp } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false }));
});
afterAll(() => close());

const validate = (key: string, machine: string) =>
  app.inject({ method: "POST", url: "/api/license/validate", payload: { license_key: key, machine_id: machine } });
const analyticsOf = (token: string, key: string) =>
  app.inject({ url: `/api/license/machines/${key}/analytics?days=30`, headers: bearer(token) });

async function rotate(token: string, key: string): Promise<string> {
  const answer = await app.inject({
    method: "POST",
    url: `/api/customer/licenses/${key}/rotate`,
    headers: bearer(token),
  });
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json().data.license.license_key;
}

describe("rotating the key keeps the license's analytics", () => {
  it("10 validations on 3 devices before a rotation are still there under the new key", async () => {
    const { token, key } = await licensedCustomer(app, "history-rotate");
    for (const [machine, times] of [
      ["desk-a", 5],
      ["laptop-b", 3],
      ["server-c", 2],
    ] as const) {
      for (let i = 0; i < times; i++) expect((await validate(key, machine)).json().data.code).toBe("VALID");
    }
    const before = (await analyticsOf(token, key)).json().data;
    expect(before.summary).toEqual({ total_attempts: 10, successful_attempts: 10, unique_machines_active: 3 });

    const fresh = await rotate(token, key);
    const after = await analyticsOf(token, fresh);
    expect(after.statusCode).toBe(200);
    expect(after.json().data.summary).toEqual(before.summary);
    expect(after.json().data.machine_stats).toEqual(before.machine_stats);

    // A running machine still on the old key (its grace) and one on the new key count to the same license.
    expect((await validate(key, "desk-a")).json().data.code).toBe("VALID");
    expect((await validate(fresh, "laptop-b")).json().data.code).toBe("VALID");
    const later = (await analyticsOf(token, fresh)).json().data;
    expect(later.summary).toEqual({ total_attempts: 12, successful_attempts: 12, unique_machines_active: 3 });
    const stat = (id: string) => later.machine_stats.find((row: { machine_id: string }) => row.machine_id === id);
    expect(stat("desk-a")).toMatchObject({ total_attempts: 6, successful_attempts: 6, failed_attempts: 0 });
    expect(stat("laptop-b")).toMatchObject({ total_attempts: 4, successful_attempts: 4, failed_attempts: 0 });

    // Within its grace the old key still names the license for its owner's reads (a page that asked by it a moment
    // before the rotation's answer is answered), and for nobody else.
    expect((await analyticsOf(token, key)).json().data.summary).toEqual(later.summary);
    const stranger = await licensedCustomer(app, "history-stranger");
    expect((await analyticsOf(stranger.token, key)).statusCode).toBe(404);
  });

  it("the counters no longer hold key text: unknown keys count under no license", async () => {
    const { key } = await licensedCustomer(app, "history-columns");
    await validate(key, "desk-a");
    await validate("FLOT-00000-00000-00000-00000-00000", "someone");
    await app.licensing.recorder.flush();
    const columns = await app.database.db.execute(sql`
      select column_name from information_schema.columns where table_name = 'validation_rollups' order by column_name`);
    const names = (columns as unknown as { rows: { column_name: string }[] }).rows.map((row) => row.column_name);
    expect(names).toContain("license_id");
    expect(names).not.toContain("license_key");
    const unknown = await app.database.db.execute(
      sql`select sum(attempts)::int as attempts from validation_rollups where license_id is null and machine_id = ''`,
    );
    expect((unknown as unknown as { rows: { attempts: number }[] }).rows[0]!.attempts).toBeGreaterThanOrEqual(1);
  });
});

describe("refused devices appear in the license's analytics", () => {
  const remove = (token: string, key: string, machine: string) =>
    app.inject({ method: "DELETE", url: `/api/license/machines/${key}/${machine}`, headers: bearer(token) });

  it("a device refused because the license was full is listed with its failed attempts, and stays after a removal", async () => {
    const { token, key } = await licensedCustomer(app, "history-refused");
    for (const machine of ["desk-a", "laptop-b", "server-c"]) {
      for (let i = 0; i < 3; i++) expect((await validate(key, machine)).json().data.code).toBe("VALID");
    }
    const refused = await app.inject({
      method: "POST",
      url: "/api/license/validate",
      payload: { license_key: key, machine_id: "bobs-new-pc", machine_name: "Bob's new PC", platform: "linux" },
    });
    expect(refused.json().data.code).toBe("TOO_MANY_MACHINES");

    const data = (await analyticsOf(token, key)).json().data;
    expect(data.summary).toEqual({ total_attempts: 10, successful_attempts: 9, unique_machines_active: 3 });
    const stat = (id: string) => data.machine_stats.find((row: { machine_id: string }) => row.machine_id === id);
    expect(stat("bobs-new-pc")).toEqual({
      machine_id: "bobs-new-pc",
      machine_name: "Bob's new PC",
      bound: false,
      total_attempts: 1,
      successful_attempts: 0,
      failed_attempts: 1,
      executions: 0,
    });
    expect(stat("desk-a")).toMatchObject({ bound: true, total_attempts: 3, failed_attempts: 0 });

    // The owner removes a device: it is no longer bound, its history stays, and its refused attempts are listed too.
    expect((await remove(token, key, "server-c")).statusCode).toBe(200);
    expect((await validate(key, "server-c")).json().data.code).toBe("MACHINE_REMOVED");
    const after = (await analyticsOf(token, key)).json().data;
    const removed = after.machine_stats.find((row: { machine_id: string }) => row.machine_id === "server-c");
    expect(removed).toMatchObject({ bound: false, total_attempts: 4, successful_attempts: 3, failed_attempts: 1 });
  });

  it("a crowd of refused machine ids names only the first few per day; the rest are counted together", async () => {
    const { token, key } = await licensedCustomer(app, "history-crowd");
    for (let i = 0; i < 3; i++) await validate(key, `seat-${i}`);
    for (let i = 0; i < 40; i++) expect((await validate(key, `crowd-${i}`)).json().data.code).toBe("TOO_MANY_MACHINES");
    const data = (await analyticsOf(token, key)).json().data;
    expect(data.summary.total_attempts).toBe(43);
    const refused = data.machine_stats.filter((row: { bound: boolean }) => !row.bound);
    expect(refused).toHaveLength(SEAT_RULES.refusalsKept);
    expect(refused.every((row: { failed_attempts: number }) => row.failed_attempts === 1)).toBe(true);
  });
});

// ── Migration 0010: existing counters move from key text to the license ─────────────────────────────────────────

describe("migration 0010 keys the counters by license", () => {
  it("backfills from the current key and rotated keys, merges them, keeps unknown keys' counters, drops orphans", async () => {
    await withDatabaseBefore(10, async (run, migrateAll) => {
      const [customer] = await run(
        sql`insert into customers (issuer, subject, email, name) values ('test', 'migrate', 'migrate@example.com', 'Migrate') returning id`,
      );
      const [license] = await run(sql`
        insert into licenses (customer_id, license_key, tier, max_machines, features)
        values (${customer!.id}::uuid, 'FLOT-NEWKY-00000-00000-00000-00000', 'free', 3, '{}'::jsonb) returning id`);
      await run(sql`
        insert into license_key_aliases (license_key, license_id, valid_until)
        values ('FLOT-OLDKY-00000-00000-00000-00000', ${license!.id}::uuid, now() - interval '1 day')`);
      await run(sql`
        insert into validation_rollups (day, license_key, machine_id, code, attempts) values
          (current_date, 'FLOT-OLDKY-00000-00000-00000-00000', 'desk-a', 'VALID', 5),
          (current_date, 'FLOT-OLDKY-00000-00000-00000-00000', 'laptop-b', 'VALID', 3),
          (current_date, 'FLOT-NEWKY-00000-00000-00000-00000', 'desk-a', 'VALID', 2),
          (current_date, 'FLOT-NEWKY-00000-00000-00000-00000', '', 'TOO_MANY_MACHINES', 1),
          (current_date, '', '', 'NOT_FOUND', 7),
          (current_date, 'FLOT-GONE0-00000-00000-00000-00000', 'old', 'VALID', 4)`);

      await migrateAll();

      const rows = await run(sql`
        select license_id::text as license_id, machine_id, code, attempts from validation_rollups
        order by license_id nulls first, machine_id, code`);
      expect(rows).toEqual([
        { license_id: null, machine_id: "", code: "NOT_FOUND", attempts: 7 },
        { license_id: license!.id, machine_id: "", code: "TOO_MANY_MACHINES", attempts: 1 },
        { license_id: license!.id, machine_id: "desk-a", code: "VALID", attempts: 7 },
        { license_id: license!.id, machine_id: "laptop-b", code: "VALID", attempts: 3 },
      ]);
    });
  });
});
