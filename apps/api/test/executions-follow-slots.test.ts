/**
 * Launch review 3, item 1: an execution lease never outlives its machine's slot, and a lower limit brings running
 * executions down to it (decision 0048, the seats module of decision 0051). The review's own scripts, as tests:
 *   - the app deactivates its machine and binds it again: its old lease must not count (or be kept alive) again;
 *   - the owner removes a machine and allows it back: the same;
 *   - a tier change from Plus to Free with three running: two stop, the oldest runs on;
 *   - revocation and culling free the slot and stop the executions in the same transaction.
 * A stopped lease still holds its execution slot until its app has stopped (it ends it) or its heartbeat window has
 * passed (issue 32, item 2): "nothing runs" must be true in time, not only in rows.
 */
import { EXECUTION_CODES, executionExpiresAfterSeconds } from "@flotilla/contracts/executions";
import { SEAT_RULES } from "@flotilla/contracts/seats";
import { TIERS } from "@flotilla/contracts/tiers";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cullingJob } from "../src/jobs/culling";
import { devSignIn } from "./helpers/dev-sign-in";
import { ageLease } from "./helpers/lease-time";
import { bearer, licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

const ADMIN = "slots.admin@example.com";
let app: FastifyInstance;
let close: () => Promise<void>;
let admin: string;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false, adminEmails: [ADMIN] }));
  admin = (await devSignIn(app, { email: ADMIN, name: "Slots Admin" })).token;
});
afterAll(() => close());

const post = (url: string, payload: Record<string, unknown>, token?: string) =>
  app.inject({ method: "POST", url, payload, ...(token ? { headers: bearer(token) } : {}) });

async function bind(key: string, machine: string) {
  const answer = await post("/api/license/validate", { license_key: key, machine_id: machine });
  expect(answer.json().data.code, `${machine} binds`).toBe("VALID");
}
const start = (key: string, machine: string) =>
  post("/api/license/executions", { license_key: key, machine_id: machine });
const heartbeat = (key: string, machine: string, id: string) =>
  post(`/api/license/executions/${id}/heartbeat`, { license_key: key, machine_id: machine });
const end = (key: string, machine: string, id: string) =>
  post(`/api/license/executions/${id}/end`, { license_key: key, machine_id: machine });

async function started(key: string, machine: string): Promise<string> {
  const answer = await start(key, machine);
  expect(answer.statusCode, `${machine} starts: ${answer.body}`).toBe(200);
  return answer.json().data.execution.id as string;
}

/** Leases the server counts as running (not stopping, not ended, not expired), as its own rule reads them. */
async function runningNow(key: string): Promise<number> {
  const result = (await app.database.db.execute(sql`
    select count(*)::int as n from execution_leases e join licenses l on l.id = e.license_id
    join machines m on m.license_id = e.license_id and m.machine_id = e.machine_id and m.status = 'active'
    where l.license_key = ${key} and e.ended_at is null and e.stop_requested_at is null
      and e.expires_at > clock_timestamp()`)) as unknown as { rows: { n: number }[] };
  return result.rows[0]!.n;
}

/** What every machine could observe: a heartbeat of each lease, answered 200 (it runs) or not. */
async function heartbeatsAnsweredRunning(key: string, leases: [machine: string, id: string][]): Promise<number> {
  let running = 0;
  for (const [machine, id] of leases) if ((await heartbeat(key, machine, id)).statusCode === 200) running += 1;
  return running;
}

describe("a lease never outlives its machine's slot", () => {
  it("the app deactivates its machine and binds it again: the old lease is over, and never counts again", async () => {
    const { key } = await licensedCustomer(app, "slots-deactivate");
    await bind(key, "dv-a");
    await bind(key, "dv-b");
    const first = await started(key, "dv-a");

    const deactivated = await post("/api/license/deactivate", { license_key: key, machine_id: "dv-a" });
    expect(deactivated.statusCode).toBe(200);
    expect(await runningNow(key)).toBe(0);
    // The lease was stopped with the slot; it holds the execution slot until its app has stopped.
    expect((await start(key, "dv-b")).json().code).toBe(EXECUTION_CODES.limit);
    // Bound again: the old lease does not come back, a heartbeat does not revive it.
    await bind(key, "dv-a");
    const back = await heartbeat(key, "dv-a", first);
    expect(back.statusCode).toBe(410);
    expect(back.json().code).toBe(EXECUTION_CODES.ended);
    // The app stops it (its SDK ends the lease): the slot is free, and exactly one runs after that.
    expect((await end(key, "dv-a", first)).statusCode).toBe(200);
    const second = await started(key, "dv-b");
    expect((await start(key, "dv-a")).statusCode).toBe(409);
    expect(
      await heartbeatsAnsweredRunning(key, [
        ["dv-a", first],
        ["dv-b", second],
      ]),
    ).toBe(1);
    expect(await runningNow(key)).toBe(1);
  });

  it("the owner removes a machine and allows it back: its lease stays over", async () => {
    const { token, key } = await licensedCustomer(app, "slots-remove");
    await bind(key, "rm-a");
    await bind(key, "rm-b");
    const first = await started(key, "rm-a");
    const removed = await app.inject({
      method: "DELETE",
      url: `/api/license/machines/${key}/rm-a`,
      headers: bearer(token),
    });
    expect(removed.statusCode).toBe(200);
    const restored = await post(`/api/license/machines/${key}/rm-a/restore`, {}, token);
    expect(restored.statusCode).toBe(200);
    await bind(key, "rm-a");
    expect((await heartbeat(key, "rm-a", first)).statusCode).toBe(410);
    expect(await runningNow(key)).toBe(0);
    // Its heartbeat window passes without the app acknowledging: the slot frees itself then.
    await age(first, executionExpiresAfterSeconds() + 1);
    const second = await started(key, "rm-b");
    expect(
      await heartbeatsAnsweredRunning(key, [
        ["rm-a", first],
        ["rm-b", second],
      ]),
    ).toBe(1);
  });

  it("a revocation and culling stop the machine's executions in the same transaction", async () => {
    const { token, key } = await licensedCustomer(app, "slots-revoke");
    await bind(key, "rv-a");
    await bind(key, "rv-b");
    const first = await started(key, "rv-a");
    const revoked = await post(`/api/license/machines/${key}/rv-a/revoke`, {}, token);
    expect(revoked.statusCode).toBe(200);
    expect(await runningNow(key)).toBe(0);
    expect((await heartbeat(key, "rv-a", first)).statusCode).not.toBe(200);

    const other = await licensedCustomer(app, "slots-cull");
    await bind(other.key, "cl-a");
    const lease = await started(other.key, "cl-a");
    // The machine fell silent past its window while its lease was somehow still fresh (a clock, a missed flush).
    await app.database.db.execute(sql`
      update machines set last_seen = last_seen - make_interval(secs => ${
        TIERS.free.heartbeatIntervalSeconds + SEAT_RULES.driftAllowanceSeconds + 60
      }), bound_at = bound_at - interval '1 day' where machine_id = 'cl-a'`);
    const job = cullingJob(app.licensing.seats);
    expect((await app.jobs.runNow(job))?.ran).toBe(true);
    expect(await runningNow(other.key)).toBe(0);
    await bind(other.key, "cl-a");
    expect((await heartbeat(other.key, "cl-a", lease)).statusCode).toBe(410);
  });
});

describe("a lower limit brings running executions down to it", () => {
  it("Plus to Free with three running: the two newest stop and are told; the oldest runs on", async () => {
    const { key } = await licensedCustomer(app, "slots-tier");
    const change = (tier: string) =>
      post(`/api/admin/licenses/${key}/actions`, { action: "change", tier, reason: "review 3" }, admin);
    expect((await change("plus")).statusCode).toBe(200);
    const leases: [string, string][] = [];
    for (const machine of ["tr-a", "tr-b", "tr-c"]) {
      await bind(key, machine);
      leases.push([machine, await started(key, machine)]);
    }
    expect(await runningNow(key)).toBe(3);

    expect((await change("free")).statusCode).toBe(200);
    expect(await runningNow(key)).toBe(TIERS.free.features.maxConcurrentExecutions);
    const [oldest, ...newer] = leases;
    expect((await heartbeat(key, oldest![0], oldest![1])).statusCode).toBe(200);
    for (const [machine, id] of newer) {
      const told = await heartbeat(key, machine, id);
      expect(told.statusCode).toBe(410);
    }
    // The stopped ones hold their slots until they have stopped: nothing new starts meanwhile.
    expect((await start(key, "tr-b")).statusCode).toBe(409);
    // The console's change says which executions it stopped.
    const result = (await app.database.db.execute(sql`
      select a.after from audit_events a join licenses l on l.id = a.license_id
      where l.license_key = ${key} and a.type = 'license.updated' order by a.seq desc limit 1`)) as unknown as {
      rows: { after: { stopped_executions?: string[] } }[];
    };
    expect(new Set(result.rows[0]!.after.stopped_executions)).toEqual(new Set(newer.map(([, id]) => id)));
  });
});

describe("one limit, and an unknown tier is refused", () => {
  it("a license cannot hold a tier the tier table does not know", async () => {
    const { key } = await licensedCustomer(app, "slots-unknown");
    await expect(
      app.database.db.execute(sql`update licenses set tier = 'gold' where license_key = ${key}`),
    ).rejects.toThrow();
  });
});

const age = (id: string, seconds: number) => ageLease(app, id, seconds);
