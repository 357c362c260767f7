/**
 * Execution leases (issue 26, decision 0048): a free license runs one execution at a time across all of its machines;
 * a refusal names who holds it; a silent lease frees itself; an ended one counts once in the usage figures.
 */
import { EXECUTION_CODES, EXECUTION_RULES, executionExpiresAfterSeconds } from "@flotilla/contracts/executions";
import { SIGNATURE_HEADER } from "@flotilla/contracts/seats";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cullingJob } from "../src/jobs/culling";
import { ageLease } from "./helpers/lease-time";
import { bearer, licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false }));
});
afterAll(() => close());

const post = (url: string, payload: Record<string, unknown>) => app.inject({ method: "POST", url, payload });

async function bind(key: string, machine: string, name = machine) {
  const answer = await post("/api/license/validate", { license_key: key, machine_id: machine, machine_name: name });
  expect(answer.json().data.code).toBe("VALID");
}

const start = (key: string, machine: string, feature?: string) =>
  post("/api/license/executions", { license_key: key, machine_id: machine, ...(feature ? { feature } : {}) });
const heartbeat = (key: string, machine: string, id: string) =>
  post(`/api/license/executions/${id}/heartbeat`, { license_key: key, machine_id: machine });
const end = (key: string, machine: string, id: string) =>
  post(`/api/license/executions/${id}/end`, { license_key: key, machine_id: machine });

async function dashboard(token: string) {
  const answer = await app.inject({ method: "GET", url: "/api/customer/dashboard", headers: bearer(token) });
  return answer.json().data;
}

const age = (id: string, seconds: number) => ageLease(app, id, seconds);

async function auditTypes(licenseKey: string): Promise<string[]> {
  const result = (await app.database.db.execute(sql`
    select a.type from audit_events a join licenses l on l.id = a.license_id
    where l.license_key = ${licenseKey} order by a.occurred_at`)) as unknown as { rows: { type: string }[] };
  return result.rows.map((row) => row.type);
}

describe("execution leases on a free license (one concurrent execution)", () => {
  it("runs one execution across machines, refuses the second with who holds it, and frees it on end", async () => {
    const { token, key } = await licensedCustomer(app, "exec-limit");
    await bind(key, "exec-machine-a", "Studio Mac");
    await bind(key, "exec-machine-b", "Laptop");

    const first = await start(key, "exec-machine-a", "code-review");
    expect(first.statusCode).toBe(200);
    expect(first.headers[SIGNATURE_HEADER]).toMatch(/signature="/);
    const lease = first.json().data;
    expect(lease).toMatchObject({ running: 1, limit: 1, revived: false });
    expect(lease.execution.heartbeat_interval_seconds).toBe(EXECUTION_RULES.heartbeatIntervalSeconds);
    const expiresIn = (Date.parse(lease.execution.expires_at) - Date.parse(lease.execution.started_at)) / 1000;
    expect(expiresIn).toBe(executionExpiresAfterSeconds());

    const second = await start(key, "exec-machine-b");
    expect(second.statusCode).toBe(409);
    expect(second.headers[SIGNATURE_HEADER]).toMatch(/signature="/);
    const refusal = second.json();
    expect(refusal).toMatchObject({ success: false, code: EXECUTION_CODES.limit, limit: 1 });
    expect(refusal.error).toContain("1 concurrent execution at once");
    expect(refusal.running).toEqual([
      expect.objectContaining({ machine_name: "Studio Mac", started_at: lease.execution.started_at }),
    ]);
    expect(refusal.oldest_expires_at).toBe(lease.execution.expires_at);
    // The same machine cannot run a second one either.
    expect((await start(key, "exec-machine-a")).statusCode).toBe(409);
    expect(await auditTypes(key)).toContain("execution.refused");

    const running = (await dashboard(token)).licenses[0].executions;
    expect(running.limit).toBe(1);
    expect(running.running).toEqual([
      expect.objectContaining({ id: lease.execution.id, machine_name: "Studio Mac", feature: "code-review" }),
    ]);

    const before = (await dashboard(token)).usage_analytics.total_executions;
    const ended = await end(key, "exec-machine-a", lease.execution.id);
    expect(ended.statusCode).toBe(200);
    expect(ended.json().data).toMatchObject({ ended: true, end_reason: "completed" });
    // Idempotent, and counted once.
    expect((await end(key, "exec-machine-a", lease.execution.id)).json().data.end_reason).toBe("completed");
    const after = await dashboard(token);
    expect(after.usage_analytics.total_executions).toBe(before + 1);
    expect(after.usage_analytics.most_used_features).toContain("code-review");
    expect(after.licenses[0].executions.running).toEqual([]);

    expect((await start(key, "exec-machine-b")).statusCode).toBe(200);
  });

  it("keeps a lease alive with heartbeats; a silent one frees its slot and is revived only while one is free", async () => {
    const { key } = await licensedCustomer(app, "exec-silent");
    await bind(key, "silent-a");
    await bind(key, "silent-b");
    const a = (await start(key, "silent-a")).json().data.execution;

    await age(a.id, 20);
    const kept = await heartbeat(key, "silent-a", a.id);
    expect(kept.statusCode).toBe(200);
    expect(kept.json().data.revived).toBe(false);
    expect(Date.parse(kept.json().data.execution.expires_at)).toBeGreaterThan(Date.parse(a.expires_at) - 20_000);

    // Silent past its interval plus the drift allowance: it no longer counts, and another machine may run.
    await age(a.id, executionExpiresAfterSeconds() + 1);
    const b = await start(key, "silent-b");
    expect(b.statusCode).toBe(200);
    // A comes back within the revival window while B runs: refused, naming B.
    const back = await heartbeat(key, "silent-a", a.id);
    expect(back.statusCode).toBe(409);
    expect(back.json().code).toBe(EXECUTION_CODES.limit);
    // B finishes: A is revived.
    await end(key, "silent-b", b.json().data.execution.id);
    const revived = await heartbeat(key, "silent-a", a.id);
    expect(revived.statusCode).toBe(200);
    expect(revived.json().data.revived).toBe(true);

    // Silent past the revival window too: it has ended for good.
    await age(a.id, executionExpiresAfterSeconds() + EXECUTION_RULES.revivalWindowSeconds + 1);
    const gone = await heartbeat(key, "silent-a", a.id);
    expect(gone.statusCode).toBe(410);
    expect(gone.json().code).toBe(EXECUTION_CODES.ended);
  });

  it("the sweep ends leases silent past their revival window and counts each once", async () => {
    const { token, key } = await licensedCustomer(app, "exec-sweep");
    await bind(key, "sweep-a");
    const a = (await start(key, "sweep-a", "batch-run")).json().data.execution;
    await age(a.id, executionExpiresAfterSeconds() + EXECUTION_RULES.revivalWindowSeconds + 5);
    const before = (await dashboard(token)).usage_analytics.total_executions;
    const job = cullingJob(app.licensing.seats);
    const outcome = await app.jobs.runNow(job);
    expect(outcome?.ran).toBe(true);
    expect((await dashboard(token)).usage_analytics.total_executions).toBe(before + 1);
    await app.jobs.runNow(job);
    expect((await dashboard(token)).usage_analytics.total_executions).toBe(before + 1);
    expect((await heartbeat(key, "sweep-a", a.id)).statusCode).toBe(410);
  });

  it("a removed machine's executions stop with its slot, and hold the execution slot until its app has stopped", async () => {
    const { token, key } = await licensedCustomer(app, "exec-removed");
    await bind(key, "removed-a");
    await bind(key, "removed-b");
    const a = (await start(key, "removed-a")).json().data.execution;
    expect((await start(key, "removed-b")).statusCode).toBe(409);
    const removed = await app.inject({
      method: "DELETE",
      url: `/api/license/machines/${key}/removed-a`,
      headers: bearer(token),
    });
    expect(removed.statusCode).toBe(200);
    // Its app is told at its next heartbeat (and at once through its watch); until it has stopped, nothing new runs.
    const told = await heartbeat(key, "removed-a", a.id);
    expect(told.statusCode).toBe(410);
    expect(told.json()).toMatchObject({ code: EXECUTION_CODES.ended, end_reason: "machine_released" });
    const refused = await start(key, "removed-b");
    expect(refused.statusCode).toBe(409);
    expect(refused.json().running).toEqual([expect.objectContaining({ stopping: true })]);
    // The app has stopped: it ends the lease (its machine no longer holds a slot, the lease is still its own).
    const ended = await end(key, "removed-a", a.id);
    expect(ended.json().data).toMatchObject({ ended: true, end_reason: "machine_released" });
    expect((await start(key, "removed-b")).statusCode).toBe(200);
  });

  it("the owner ends a running execution; its app hears it at its next heartbeat; nobody else can", async () => {
    const owner = await licensedCustomer(app, "exec-owner");
    const stranger = await licensedCustomer(app, "exec-stranger");
    await bind(owner.key, "owner-a");
    const a = (await start(owner.key, "owner-a")).json().data.execution;

    const theirs = await app.inject({
      method: "DELETE",
      url: `/api/customer/licenses/${owner.key}/executions/${a.id}`,
      headers: bearer(stranger.token),
    });
    expect(theirs.statusCode).toBe(404);
    const wrongLicense = await app.inject({
      method: "DELETE",
      url: `/api/customer/licenses/${stranger.key}/executions/${a.id}`,
      headers: bearer(stranger.token),
    });
    expect(wrongLicense.statusCode).toBe(404);

    const ended = await app.inject({
      method: "DELETE",
      url: `/api/customer/licenses/${owner.key}/executions/${a.id}`,
      headers: bearer(owner.token),
    });
    expect(ended.statusCode).toBe(200);
    expect(ended.json().data).toMatchObject({ status: "stopping", end_reason: "ended_by_owner", ended_at: null });
    expect(ended.json().data.holds_slot_until).toBe(a.expires_at);
    // The dashboard tells the truth: stopping, still holding its slot, until the app has stopped.
    const shown = (await dashboard(owner.token)).licenses[0].executions.running;
    expect(shown).toEqual([expect.objectContaining({ id: a.id, status: "stopping", stop_reason: "ended_by_owner" })]);
    expect((await heartbeat(owner.key, "owner-a", a.id)).json().code).toBe(EXECUTION_CODES.ended);
    expect(await auditTypes(owner.key)).toContain("execution.ended");
    // Asked again: still stopping, nothing new recorded.
    const again = await app.inject({
      method: "DELETE",
      url: `/api/customer/licenses/${owner.key}/executions/${a.id}`,
      headers: bearer(owner.token),
    });
    expect(again.json().data.status).toBe("stopping");
    expect((await auditTypes(owner.key)).filter((type) => type === "execution.ended")).toHaveLength(1);
    // The app has stopped and says so: the slot is free and nothing is shown running.
    expect((await end(owner.key, "owner-a", a.id)).json().data.end_reason).toBe("ended_by_owner");
    expect((await dashboard(owner.token)).licenses[0].executions.running).toEqual([]);
  });

  it("a lease belongs to its license and machine: another key or machine cannot touch it", async () => {
    const one = await licensedCustomer(app, "exec-scope-1");
    const two = await licensedCustomer(app, "exec-scope-2");
    await bind(one.key, "scope-a");
    await bind(one.key, "scope-b");
    await bind(two.key, "scope-c");
    const a = (await start(one.key, "scope-a")).json().data.execution;
    for (const [key, machine] of [
      [two.key, "scope-c"],
      [one.key, "scope-b"],
    ] as const) {
      expect((await heartbeat(key, machine, a.id)).json().code).toBe(EXECUTION_CODES.notFound);
      expect((await end(key, machine, a.id)).json().code).toBe(EXECUTION_CODES.notFound);
    }
    expect((await heartbeat(one.key, "scope-a", a.id)).statusCode).toBe(200);
  });

  it("refuses unknown keys, machines that hold no slot, suspended licenses and malformed ids", async () => {
    const { key } = await licensedCustomer(app, "exec-refuse");
    await bind(key, "refuse-a");
    expect((await start("FLOT-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA", "refuse-a")).json().code).toBe("NOT_FOUND");
    expect((await start(key, "never-bound")).json().code).toBe("NOT_ACTIVATED");
    expect((await heartbeat(key, "refuse-a", "not-a-uuid")).statusCode).toBe(400);
    expect((await start(key, "refuse-a", "Not A Feature!")).statusCode).toBe(400);
    await app.database.db.execute(sql`update licenses set status = 'suspended' where license_key = ${key}`);
    await app.licensing.changed(key);
    expect((await start(key, "refuse-a")).json().code).toBe("SUSPENDED");
  });

  it("a start retried with its Idempotency-Key answers the same execution, even when the retries race", async () => {
    const { key } = await licensedCustomer(app, "exec-idem");
    await bind(key, "idem-a");
    const startWith = (idempotencyKey: string, feature?: string) =>
      app.inject({
        method: "POST",
        url: "/api/license/executions",
        headers: { "idempotency-key": idempotencyKey },
        payload: { license_key: key, machine_id: "idem-a", ...(feature ? { feature } : {}) },
      });
    const answers = await Promise.all([
      startWith("start-key-0001"),
      startWith("start-key-0001"),
      startWith("start-key-0001"),
    ]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
    const ids = new Set(answers.map((answer) => answer.json().data.execution.id));
    expect(ids.size).toBe(1);
    // The same key for another request is refused; a new key is a new start (refused: the one runs).
    expect((await startWith("start-key-0001", "other-work")).statusCode).toBe(422);
    const second = await startWith("start-key-0002");
    expect(second.statusCode).toBe(409);
    // A refused start keeps no key: once the slot is free, the same key may start.
    await end(key, "idem-a", [...ids][0]!);
    const retried = await startWith("start-key-0002");
    expect(retried.statusCode).toBe(200);
    expect(retried.json().data.execution.id).not.toBe([...ids][0]);
    // A key older than its 24 hours names nothing any more: with the slot free, it starts a new execution.
    await end(key, "idem-a", retried.json().data.execution.id);
    await app.database.db.execute(
      sql`update idempotency_keys set created_at = now() - interval '25 hours' where key = 'start-key-0001'`,
    );
    const reused = await startWith("start-key-0001", "other-work");
    expect(reused.statusCode).toBe(200);
    expect(ids.has(reused.json().data.execution.id)).toBe(false);
    expect((await startWith("start-key-0001", "other-work")).json().data.execution.id).toBe(
      reused.json().data.execution.id,
    );
  });

  // PostgreSQL's clock has microseconds, a decision's clock under the lock only milliseconds (a JavaScript Date): an end
  // stamped with microseconds was followed by a start recorded up to 1 ms before it (found by racing them).
  it("an end is stamped to the millisecond, as a start is: the next start never begins before it ended", async () => {
    const { key } = await licensedCustomer(app, "exec-stamp");
    await bind(key, "stamp-a");
    for (let round = 0; round < 5; round += 1) {
      const { id } = (await start(key, "stamp-a")).json().data.execution;
      expect((await end(key, "stamp-a", id)).statusCode).toBe(200);
    }
    const result = (await app.database.db.execute(sql`
      select e.ended_at = date_trunc('milliseconds', e.ended_at) as whole_ms,
        next.started_at >= e.ended_at as after_it
      from execution_leases e join licenses l on l.id = e.license_id
      left join lateral (
        select started_at from execution_leases n where n.license_id = e.license_id and n.started_at > e.started_at
        order by n.started_at limit 1
      ) next on true
      where l.license_key = ${key}`)) as unknown as { rows: { whole_ms: boolean; after_it: boolean | null }[] };
    expect(result.rows).toHaveLength(5);
    expect(result.rows.every((row) => row.whole_ms && row.after_it !== false)).toBe(true);
  });

  it("unlimited tiers record leases too, up to a per-machine bound", async () => {
    const { token, key } = await licensedCustomer(app, "exec-plus");
    await app.database.db.execute(sql`update licenses set tier = 'plus' where license_key = ${key}`);
    await app.licensing.changed(key);
    await bind(key, "plus-a");
    for (let i = 0; i < 3; i += 1) expect((await start(key, "plus-a")).statusCode).toBe(200);
    const shown = (await dashboard(token)).licenses[0].executions;
    expect(shown.limit).toBeNull();
    expect(shown.running).toHaveLength(3);
    const listed = await post("/api/license/executions/running", { license_key: key, machine_id: "plus-a" });
    expect(listed.json().data.running).toHaveLength(3);
    expect(listed.json().data.running.every((row: { this_machine: boolean }) => row.this_machine)).toBe(true);
    // The bound is per machine: at it, this machine is refused and another still starts.
    for (let i = 3; i < EXECUTION_RULES.maxPerMachineUnlimited; i += 1) {
      expect((await start(key, "plus-a")).statusCode).toBe(200);
    }
    const beyond = await start(key, "plus-a");
    expect(beyond.statusCode).toBe(409);
    expect(beyond.json()).toMatchObject({ code: EXECUTION_CODES.limit, limit: EXECUTION_RULES.maxPerMachineUnlimited });
    await bind(key, "plus-b");
    expect((await start(key, "plus-b")).statusCode).toBe(200);
  });
});
