/**
 * The licensing API from the attacker's side: replaying an old answer after a suspension, a removed device
 * coming back by itself, random keys growing the database, names that disguise themselves, tier names that
 * are not tiers — and from the operator's side: retention that keeps every table bounded, on one runner.
 */
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { retentionJob } from "../src/jobs/retention";
import { advisoryLockId, runExclusively } from "../src/jobs/scheduler";
import { AttemptRecorder, REFUSED_MACHINES_NAMED_PER_DAY } from "../src/modules/licenses/attempt-recorder";
import { changeLicenseTerms } from "../src/modules/licenses/seats/machine-slots";
import { devSignIn } from "./helpers/dev-sign-in";
import { setStatus } from "./helpers/license-status";
import { bearer, licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp, onPostgres } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false }));
});
afterAll(() => close());

const licensed = () => licensedCustomer(app, "attack");
let people = 0;
const validate = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  app.inject({ method: "POST", url: "/api/license/validate", payload: body, headers });
async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await app.database.db.execute(query)) as unknown as { rows: T[] }).rows;
}
async function count(table: string): Promise<number> {
  return (await rows<{ n: number }>(sql`select count(*)::int as n from ${sql.identifier(table)}`))[0]!.n;
}

describe("no stale VALID, whatever the client replays", () => {
  it("a token made in the same second as a change of the license carries the change (the token memo follows the row)", async () => {
    const { key } = await licensed();
    const body = { license_key: key, machine_id: "desktop-same-second" };
    const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString());
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.UTC(2026, 10, 29, 12, 0, 0, 100));
      const first = (await validate(body)).json().data.token as string;
      // Again within the second: the same token, byte for byte (what a fresh signature would be).
      vi.setSystemTime(Date.UTC(2026, 10, 29, 12, 0, 0, 400));
      expect((await validate(body)).json().data.token).toBe(first);
      expect(claimsOf(first)).toMatchObject({ tier: "free", max_machines: 3 });
      await app.licensing.seats.changeByKey(key, (locked) =>
        changeLicenseTerms(locked, { tier: "pro", maxMachines: 7 }),
      );
      vi.setSystemTime(Date.UTC(2026, 10, 29, 12, 0, 0, 700));
      const after = (await validate(body)).json().data.token as string;
      expect(claimsOf(after)).toMatchObject({ tier: "pro", max_machines: 7, iat: claimsOf(first).iat });
    } finally {
      vi.useRealTimers();
    }
  });

  it("an Idempotency-Key repeated after a suspension answers SUSPENDED, with no token", async () => {
    const { key } = await licensed();
    const body = { license_key: key, machine_id: "desktop-replay" };
    const headers = { "idempotency-key": "replay-0001-replay" };
    expect((await validate(body, headers)).json().data).toMatchObject({ valid: true, code: "VALID" });
    await setStatus(app, key, "suspended");
    app.licensing.cache.invalidate(key);
    const replay = (await validate(body, headers)).json().data;
    expect(replay).toMatchObject({ valid: false, code: "SUSPENDED", token: null });
  });

  it("an Idempotency-Key repeated after the device was removed answers MACHINE_REMOVED, with no token", async () => {
    const { token, key } = await licensed();
    const headers = { "idempotency-key": "replay-0002-replay" };
    await validate({ license_key: key, machine_id: "desktop-keep" });
    const body = { license_key: key, machine_id: "desktop-gone" };
    expect((await validate(body, headers)).json().data.code).toBe("VALID");
    const removed = await app.inject({
      method: "DELETE",
      url: `/api/license/machines/${key}/desktop-gone`,
      headers: bearer(token),
    });
    expect(removed.statusCode).toBe(200);
    expect((await validate(body, headers)).json().data).toMatchObject({
      valid: false,
      code: "MACHINE_REMOVED",
      token: null,
    });
  });

  it("usage keeps exactly-once replay for 24 hours, then the key is free again", async () => {
    const { key } = await licensed();
    await validate({ license_key: key, machine_id: "desktop-usage" });
    const report = () =>
      app.inject({
        method: "POST",
        url: "/api/license/usage",
        headers: { "idempotency-key": "usage-day-0001" },
        payload: { license_key: key, machine_id: "desktop-usage", executions: 5 },
      });
    expect((await report()).json().data).toEqual({ recorded: 5, current_month_executions: 5 });
    expect((await report()).json().data).toEqual({ recorded: 5, current_month_executions: 5 });
    await app.database.db.execute(sql`update idempotency_keys set created_at = now() - interval '25 hours'`);
    expect((await report()).json().data).toEqual({ recorded: 5, current_month_executions: 10 });
  });
});

describe("a removed device stays removed until its owner lets it back", () => {
  it("its next validation learns it was removed; it does not re-bind, report usage or take the slot back", async () => {
    const { token, key } = await licensed();
    for (const machine of ["desktop-a", "desktop-b"]) await validate({ license_key: key, machine_id: machine });
    await app.inject({ method: "DELETE", url: `/api/license/machines/${key}/desktop-b`, headers: bearer(token) });
    for (let i = 0; i < 3; i++) {
      const answer = (await validate({ license_key: key, machine_id: "desktop-b" })).json().data;
      expect(answer).toMatchObject({ valid: false, code: "MACHINE_REMOVED", token: null, machine: null });
    }
    const usage = await app.inject({
      method: "POST",
      url: "/api/license/usage",
      payload: { license_key: key, machine_id: "desktop-b", executions: 1 },
    });
    expect(usage.statusCode).toBe(403);
    expect(usage.json().code).toBe("MACHINE_REMOVED");
    const list = (await app.inject({ url: `/api/license/machines/${key}`, headers: bearer(token) })).json().data;
    expect(list.current_count).toBe(1);
    expect(list.removed_machines).toEqual([
      expect.objectContaining({ machine_id: "desktop-b", display_id: "desktop-b", removed_at: expect.any(String) }),
    ]);
  });

  it("the owner allows it again: its next validation binds it while a slot is free", async () => {
    const { token, key } = await licensed();
    for (const machine of ["desktop-a", "desktop-b"]) await validate({ license_key: key, machine_id: machine });
    await app.inject({ method: "DELETE", url: `/api/license/machines/${key}/desktop-b`, headers: bearer(token) });
    const restored = await app.inject({
      method: "POST",
      url: `/api/license/machines/${key}/desktop-b/restore`,
      headers: bearer(token),
    });
    expect(restored.statusCode).toBe(200);
    expect((await validate({ license_key: key, machine_id: "desktop-b" })).json().data.code).toBe("VALID");
    const again = await app.inject({
      method: "POST",
      url: `/api/license/machines/${key}/desktop-b/restore`,
      headers: bearer(token),
    });
    expect(again.statusCode).toBe(404);
  });

  it("a removal racing 20 re-validations of the same device: once it commits, the device never comes back", async () => {
    const { token, key } = await licensed();
    for (const machine of ["desktop-a", "desktop-race"]) await validate({ license_key: key, machine_id: machine });
    const racing = Array.from({ length: 20 }, () => validate({ license_key: key, machine_id: "desktop-race" }));
    const removal = app.inject({
      method: "DELETE",
      url: `/api/license/machines/${key}/desktop-race`,
      headers: bearer(token),
    });
    await Promise.all([...racing, removal]);
    for (let i = 0; i < 3; i++) {
      expect((await validate({ license_key: key, machine_id: "desktop-race" })).json().data.code).toBe(
        "MACHINE_REMOVED",
      );
    }
    const bound = await rows<{ machine_id: string }>(
      sql`select m.machine_id from machines m join licenses l on l.id = m.license_id where l.license_key = ${key}`,
    );
    expect(bound.map((row) => row.machine_id)).toEqual(["desktop-a"]);
  });
});

describe("anonymous traffic does not grow the database", () => {
  it("500 validations with 500 random keys add at most one counter row", async () => {
    await app.licensing.recorder.flush();
    const before = await count("validation_rollups");
    for (let i = 0; i < 500; i++) {
      const key = `FLOT-${Math.random().toString(36).slice(2, 7).toUpperCase().padEnd(5, "0")}-00000-00000-00000-${String(i).padStart(5, "0")}`;
      expect((await validate({ license_key: key, machine_id: `random-${i}` })).json().data.code).toBe("NOT_FOUND");
    }
    await app.licensing.recorder.flush();
    expect((await count("validation_rollups")) - before).toBeLessThanOrEqual(1);
    const [unknown] = await rows<{ attempts: number }>(
      sql`select sum(attempts)::int as attempts from validation_rollups where license_id is null`,
    );
    expect(unknown!.attempts).toBeGreaterThanOrEqual(500);
  });
});

describe("a known key cannot grow the database or the owner's analytics either", () => {
  it("100 validations with fresh machine ids add a bounded number of counter rows; analytics names the first refused", async () => {
    const { token, key } = await licensed();
    await app.licensing.recorder.flush();
    const codes = new Map<string, number>();
    for (let i = 0; i < 100; i++) {
      const code = (await validate({ license_key: key, machine_id: `crowd-${i}` })).json().data.code as string;
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }
    expect(Object.fromEntries(codes)).toEqual({ VALID: 3, TOO_MANY_MACHINES: 97 });
    await app.licensing.recorder.flush();
    const rowsOfKey = await rows<{ machine_id: string; code: string; attempts: number }>(
      sql`select machine_id, code, attempts from validation_rollups where license_id = (select id from licenses where license_key = ${key}) order by machine_id`,
    );
    // 3 bound, the first REFUSED_MACHINES_NAMED_PER_DAY refused by id, the other refused ones in one row.
    const named = REFUSED_MACHINES_NAMED_PER_DAY;
    expect(rowsOfKey).toHaveLength(3 + named + 1);
    expect(rowsOfKey[0]).toEqual({ machine_id: "", code: "TOO_MANY_MACHINES", attempts: 97 - named });
    const analytics = (
      await app.inject({ url: `/api/license/machines/${key}/analytics?days=30`, headers: bearer(token) })
    ).json().data;
    expect(analytics.summary).toEqual({ total_attempts: 100, successful_attempts: 3, unique_machines_active: 3 });
    const listed = (bound: boolean) =>
      analytics.machine_stats
        .filter((row: { bound: boolean }) => row.bound === bound)
        .map((row: { machine_id: string }) => row.machine_id)
        .sort();
    expect(listed(true)).toEqual(["crowd-0", "crowd-1", "crowd-2"]);
    expect(listed(false)).toEqual(Array.from({ length: named }, (_, i) => `crowd-${i + 3}`).sort());
  });

  it("the counter buffer writes 20,000 distinct counters in chunks, and folds past its cap instead of growing", async () => {
    const errors: unknown[] = [];
    const recorder = new AttemptRecorder(app.database.db, (error) => errors.push(error), 60_000, 20_000);
    const now = new Date();
    const { key } = await licensed();
    const [{ id } = { id: "" }] = await rows<{ id: string }>(sql`select id from licenses where license_key = ${key}`);
    for (let i = 0; i < 20_500; i++) recorder.record(id, `machine-${i}`, "VALID", now);
    expect(recorder.pending).toBe(20_001); // 20,000 distinct, then one folded counter
    await recorder.flush();
    expect(errors).toEqual([]);
    expect(recorder.pending).toBe(0);
    const [written] = await rows<{ n: number; attempts: number }>(
      sql`select count(*)::int as n, sum(attempts)::int as attempts from validation_rollups where license_id = ${id}`,
    );
    expect(written).toEqual({ n: 20_001, attempts: 20_500 });
  }, 60_000);
});

describe("retention: every growing table is pruned by the service, on one runner at a time", () => {
  it("deletes what is past its retention, keeps what is not, and keeps usage totals exact", async () => {
    const { token, key } = await licensed();
    await validate({ license_key: key, machine_id: "desktop-old" });
    await app.inject({
      method: "POST",
      url: "/api/license/usage",
      headers: { "idempotency-key": "retention-usage-01" },
      payload: { license_key: key, machine_id: "desktop-old", executions: 40, feature: "task-execution" },
    });
    await app.licensing.recorder.flush();
    const totalBefore = (await app.inject({ url: "/api/customer/dashboard", headers: bearer(token) })).json().data
      .usage_analytics;
    const stale = await devSignIn(app, { email: "stale-session@example.com", name: "Stale" });
    const live = await devSignIn(app, { email: "live-session@example.com", name: "Live" });
    // Age everything of this license, and some sign-in artefacts, past their retention.
    const [{ id } = { id: "" }] = await rows<{ id: string }>(sql`select id from licenses where license_key = ${key}`);
    await app.database.db.execute(sql`update usage_rollups set day = current_date - 200 where license_id = ${id}`);
    await app.database.db.execute(
      sql`update usage_reports set created_at = now() - interval '200 days' where license_id = ${id}`,
    );
    await app.database.db.execute(sql`update validation_rollups set day = current_date - 200 where license_id = ${id}`);
    await app.database.db.execute(sql`update idempotency_keys set created_at = now() - interval '2 days'`);
    await app.database.db.execute(sql`update login_transactions set expires_at = now() - interval '2 hours'`);
    await app.database.db.execute(sql`
      update sessions set revoked_at = now() - interval '31 days'
      where customer_id = (select id from customers where email = 'stale-session@example.com')`);

    const outcome = await app.jobs.runNow(retentionJob);
    expect(outcome).toMatchObject({ ran: true });
    expect(await count("idempotency_keys")).toBe(0);
    expect(await count("login_transactions")).toBe(0);
    expect(await rows(sql`select 1 from validation_rollups where license_id = ${id}`)).toEqual([]);
    expect(await rows(sql`select 1 from usage_reports where license_id = ${id}`)).toEqual([]);
    expect((await app.inject({ url: "/api/auth/validate", headers: bearer(stale.token) })).statusCode).toBe(401);
    expect((await app.inject({ url: "/api/auth/validate", headers: bearer(live.token) })).statusCode).toBe(200);
    // Old daily usage is folded into one monthly row; the totals and most used features do not change.
    const folded = await rows<{ machine_id: string; executions: number }>(
      sql`select machine_id, executions::int from usage_rollups where license_id = ${id}`,
    );
    expect(folded).toEqual([{ machine_id: "", executions: 40 }]);
    const totalAfter = (await app.inject({ url: "/api/customer/dashboard", headers: bearer(token) })).json().data
      .usage_analytics;
    expect(totalAfter.total_executions).toBe(totalBefore.total_executions);
    expect(totalAfter.most_used_features).toEqual(totalBefore.most_used_features);
    // A second run finds nothing more to do.
    expect((await app.jobs.runNow(retentionJob))?.ran).toBe(true);
    expect(folded).toEqual(
      await rows<{ machine_id: string; executions: number }>(
        sql`select machine_id, executions::int from usage_rollups where license_id = ${id}`,
      ),
    );
  });

  it("while another runner holds the job's lock, this one skips the round", async () => {
    if (!onPostgres) {
      // PGlite is one process with one connection: there is no second runner to exclude. The id is what every
      // instance agrees on; the exclusion itself runs in the PostgreSQL project (and the cluster suite).
      expect(advisoryLockId("retention")).toBe(advisoryLockId("retention"));
      expect(advisoryLockId("retention")).not.toBe(advisoryLockId("culling"));
      return;
    }
    const url = new URL(process.env.TEST_DATABASE_URL!);
    const database = (app.database.db as unknown as { $client: { options: { connectionString: string } } }).$client
      .options.connectionString;
    const holder = new pg.Client({ connectionString: database ?? url.toString() });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("select pg_advisory_xact_lock($1::bigint)", [advisoryLockId("retention").toString()]);
      expect(await runExclusively(app.database.db, retentionJob)).toEqual({ ran: false });
      await holder.query("commit");
      expect((await runExclusively(app.database.db, retentionJob)).ran).toBe(true);
    } finally {
      await holder.end();
    }
  });
});

describe("input that disguises itself, or is not what it claims", () => {
  it("tier names from the object prototype are unknown tiers (400), not 'coming soon' or a crash", async () => {
    people += 1;
    const { token } = await devSignIn(app, { email: `proto${people}@example.com`, name: "Proto" });
    for (const tier of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"]) {
      const response = await app.inject({
        method: "POST",
        url: "/api/customer/licenses",
        headers: bearer(token),
        payload: { tier },
      });
      expect(response.statusCode, tier).toBe(400);
      expect(response.json(), tier).toMatchObject({ success: false, code: "UNKNOWN_TIER" });
    }
  });

  it("machine names with bidi overrides, invisible characters or lone surrogates are refused", async () => {
    const { key } = await licensed();
    for (const machine_name of [
      "Ada\u202eexe.gpj",
      "Ada\u2066Laptop\u2069",
      "Ada\u200bLaptop",
      "Ada\ud800",
      "Ada\u0007",
    ]) {
      const response = await validate({ license_key: key, machine_id: "desktop-spoof", machine_name });
      expect(response.statusCode, JSON.stringify(machine_name)).toBe(400);
    }
    // Real names in any script, emoji with joiners, are fine.
    for (const machine_name of ["Ada’s MacBook Pro", "مرحبا-laptop", "🧑‍💻 dev box"]) {
      expect((await validate({ license_key: key, machine_id: "desktop-real", machine_name })).statusCode).toBe(200);
    }
  });

  it("a token never outlives its license: a license ending in an hour gets an hour offline, and says so, signed", async () => {
    const { key } = await licensed();
    const end = new Date(Date.now() + 60 * 60 * 1000);
    await app.database.db.execute(
      sql`update licenses set expires_at = ${end.toISOString()} where license_key = ${key}`,
    );
    app.licensing.cache.invalidate(key);
    const { token } = (await validate({ license_key: key, machine_id: "desktop-ending" })).json().data;
    const claims = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString("utf8"));
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(60 * 60);
    expect(claims.exp - claims.iat).toBeGreaterThan(60 * 60 - 60);
    expect(claims.license_expires_at).toBe(end.toISOString());
  });

  it("reactivating a suspended license keeps the end date it was sold with", async () => {
    const { key } = await licensed();
    const end = new Date(Date.now() + 30 * 24 * 60 * 60 * 1000);
    await app.database.db.execute(
      sql`update licenses set expires_at = ${end.toISOString()} where license_key = ${key}`,
    );
    await setStatus(app, key, "suspended");
    const reactivated = await setStatus(app, key, "active");
    expect(reactivated!.expiresAt?.toISOString()).toBe(end.toISOString());
  });
});
