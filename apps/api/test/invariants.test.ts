/**
 * Concurrency invariants of the licensing service, over a real listening socket (50 parallel clients
 * with fetch). On PostgreSQL (the api-postgres project) the same file runs against a real server with a
 * connection pool, where the races are real.
 *
 * (c) "50 concurrent license creates for one customer give one license" is proven in licensing.test.ts
 * ("50 concurrent creates give exactly one license and 49 clear errors") and not repeated here.
 */
import { randomInt } from "node:crypto";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSignIn } from "./helpers/dev-sign-in";
import { prng } from "./helpers/prng";
import { createTestApp } from "./helpers/test-app";

const SEED = process.env.FLOTILLA_FUZZ_SEED ? Number(process.env.FLOTILLA_FUZZ_SEED) : randomInt(2 ** 31);
const WORKERS = 50;
/** FLOTILLA_STRESS=1: ten times the traffic. */
const SCALE = process.env.FLOTILLA_STRESS === "1" ? 10 : 1;
const VALIDATIONS = 1_000 * SCALE;
const MACHINE_IDS = 200 * SCALE;

let app: FastifyInstance;
let close: () => Promise<void>;
let base: string;
let owner: { token: string };
let licenseKey: string;
let licenseId: string;

beforeAll(async () => {
  ({ app, close } = await createTestApp());
  await app.listen({ port: 0, host: "127.0.0.1" });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  owner = await devSignIn(app, { email: "invariants@example.com", name: "Invariant Owner" });
  const created = await app.inject({
    method: "POST",
    url: "/api/customer/licenses",
    headers: { authorization: `Bearer ${owner.token}` },
    payload: { tier: "free" },
  });
  ({ license_key: licenseKey, id: licenseId } = created.json().data.license);
  console.info(`invariants seed ${SEED} (FLOTILLA_FUZZ_SEED=${SEED} to replay)`);
});
afterAll(async () => close());

/** Runs every job with `WORKERS` clients in parallel, each over its own requests. */
async function inParallel<T, R>(jobs: T[], work: (job: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (next < jobs.length) {
        const index = next++;
        results[index] = await work(jobs[index]!);
      }
    }),
  );
  return results;
}

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: answers of two endpoints, read field by field.
  return { status: response.status, json: (await response.json()) as Record<string, any> };
}

async function boundInDatabase(): Promise<{ machine_id: string; is_primary: boolean }[]> {
  const result = (await app.database.db.execute(
    sql`select machine_id, is_primary from machines where license_id = ${licenseId} order by machine_id`,
  )) as unknown as { rows: { machine_id: string; is_primary: boolean }[] };
  return result.rows;
}

async function machinesViaApi() {
  const response = await fetch(`${base}/api/license/machines/${licenseKey}`, {
    headers: { authorization: `Bearer ${owner.token}` },
  });
  expect(response.status).toBe(200);
  return (
    (await response.json()) as {
      data: { current_count: number; machines: { machine_id: string; is_primary: boolean }[] };
    }
  ).data;
}

async function dashboard() {
  const response = await fetch(`${base}/api/customer/dashboard`, {
    headers: { authorization: `Bearer ${owner.token}` },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { usage_analytics: { total_executions: number } } }).data;
}

let bound: string[] = [];

describe(`concurrency invariants (seed ${SEED})`, () => {
  it(`(a) ${VALIDATIONS} validations of ${MACHINE_IDS} machine ids from 50 parallel clients bind exactly max_machines = 3`, {
    timeout: 120_000 * SCALE,
  }, async () => {
    const random = prng(SEED);
    const ids = Array.from({ length: MACHINE_IDS }, (_, i) => `race-machine-${String(i).padStart(4, "0")}`);
    const plan = Array.from({ length: VALIDATIONS }, () => random.pick(ids));
    const answers = await inParallel(plan, async (machineId) => ({
      machineId,
      ...(await post("/api/license/validate", { license_key: licenseKey, machine_id: machineId })),
    }));

    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const codes = new Set(answers.map((answer) => answer.json.data.code));
    expect([...codes].sort()).toEqual(["TOO_MANY_MACHINES", "VALID"]);

    // The database and the customer API agree: exactly three machines, one of them primary.
    const rows = await boundInDatabase();
    bound = rows.map((row) => row.machine_id);
    expect(bound).toHaveLength(3);
    expect(rows.filter((row) => row.is_primary)).toHaveLength(1);
    const listed = await machinesViaApi();
    expect(listed.current_count).toBe(3);
    expect(listed.machines.map((machine) => machine.machine_id).sort()).toEqual(bound);

    // Every VALID answer is for one of those three — its display id and its signed token say so — and
    // every answer for one of those three is VALID (no slot is ever freed here, so nothing in between).
    for (const answer of answers) {
      const data = answer.json.data;
      if (data.code === "VALID") {
        expect(bound).toContain(answer.machineId);
        expect(bound).toContain(data.machine.display_id);
        expect(decodeJwt(data.token)).toMatchObject({ lic: licenseKey, mid: answer.machineId });
      } else {
        expect(bound).not.toContain(answer.machineId);
        expect(data).toMatchObject({ valid: false, token: null, machine: null });
      }
    }

    // Every attempt was counted once (counters are batched in memory, flushed by the read).
    const analytics = await fetch(`${base}/api/license/machines/${licenseKey}/analytics?days=30`, {
      headers: { authorization: `Bearer ${owner.token}` },
    });
    const summary = ((await analytics.json()) as { data: { summary: Record<string, number> } }).data.summary;
    expect(summary).toEqual({
      total_attempts: VALIDATIONS,
      successful_attempts: answers.filter((answer) => answer.json.data.code === "VALID").length,
      unique_machines_active: 3,
    });
  });

  it("(b) parallel usage reports add up exactly; an Idempotency-Key retried concurrently counts once", {
    timeout: 120_000 * SCALE,
  }, async () => {
    expect(bound).toHaveLength(3);
    const random = prng(SEED ^ 0x0b);
    const before = (await dashboard()).usage_analytics.total_executions;
    const features = ["task-execution", "code-review", "memory-search", undefined];
    type Report = { body: Record<string, unknown>; key?: string };
    const plain: Report[] = Array.from({ length: 300 * SCALE }, () => ({
      body: {
        license_key: licenseKey,
        machine_id: random.pick(bound),
        executions: random.int(1, 1_000),
        ...(random.pick(features) ? { feature: random.pick(features.filter(Boolean)) } : {}),
      },
    }));
    // Keyed reports, each sent 4 times at once (a client retrying a request it thinks was lost).
    const keyed: Report[] = Array.from({ length: 25 * SCALE }, (_, i) => ({
      key: `usage-race-${SEED}-${i}`,
      body: { license_key: licenseKey, machine_id: random.pick(bound), executions: random.int(1, 1_000) },
    }));
    const jobs = random.shuffle([...plain, ...keyed.flatMap((report) => [report, report, report, report])]);
    const expected =
      plain.reduce((sum, report) => sum + (report.body.executions as number), 0) +
      keyed.reduce((sum, report) => sum + (report.body.executions as number), 0);

    const answers = await inParallel(jobs, async (report) => ({
      report,
      ...(await post("/api/license/usage", report.body, report.key ? { "idempotency-key": report.key } : {})),
    }));
    for (const answer of answers) {
      if (answer.report.key) {
        // A duplicate is either the stored answer or "still being processed" (the client retries later).
        expect([200, 409], JSON.stringify(answer.json)).toContain(answer.status);
      } else {
        expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      }
      if (answer.status === 200) expect(answer.json.data.recorded).toBe(answer.report.body.executions);
    }
    // Every key was recorded by one of its copies: a later retry gets the stored answer.
    for (const report of keyed) {
      const retry = await post("/api/license/usage", report.body, { "idempotency-key": report.key! });
      expect(retry.status).toBe(200);
      expect(retry.json.data.recorded).toBe(report.body.executions);
      // The same key with another body is refused, and not counted.
      const reused = await post(
        "/api/license/usage",
        { ...report.body, executions: (report.body.executions as number) + 1 },
        { "idempotency-key": report.key! },
      );
      expect(reused.status).toBe(422);
    }

    const after = (await dashboard()).usage_analytics.total_executions;
    expect(after - before).toBe(expected);
    const reports = (await app.database.db.execute(
      sql`select count(*)::int as n, coalesce(sum(executions), 0)::int as total from usage_reports where license_id = ${licenseId}`,
    )) as unknown as { rows: { n: number; total: number }[] };
    expect(reports.rows[0]).toEqual({ n: plain.length + keyed.length, total: expected });
  });

  it("(d) removing a machine while 50 new ones race for the freed slot: never more than 3, one primary", {
    timeout: 60_000,
  }, async () => {
    expect(bound).toHaveLength(3);
    const rows = await boundInDatabase();
    const victim = rows.find((row) => !row.is_primary)!.machine_id;
    const newcomers = Array.from({ length: 50 }, (_, i) => `late-machine-${String(i).padStart(2, "0")}`);
    const [removal, ...answers] = await Promise.all([
      fetch(`${base}/api/license/machines/${licenseKey}/${victim}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${owner.token}` },
      }),
      ...newcomers.map((machineId) =>
        post("/api/license/validate", { license_key: licenseKey, machine_id: machineId }),
      ),
    ]);
    expect(removal!.status).toBe(200);
    const won = answers.filter((answer) => answer.json.data.code === "VALID");
    expect(won.length).toBeLessThanOrEqual(1);

    // Whoever arrives next takes the slot if nobody did; the one after that is refused.
    const late = await Promise.all(
      ["late-machine-x", "late-machine-y", "late-machine-z"].map((machineId) =>
        post("/api/license/validate", { license_key: licenseKey, machine_id: machineId }),
      ),
    );
    expect(won.length + late.filter((answer) => answer.json.data.code === "VALID").length).toBe(1);

    const after = await boundInDatabase();
    expect(after).toHaveLength(3);
    expect(after.map((row) => row.machine_id)).not.toContain(victim);
    expect(after.filter((row) => row.is_primary)).toHaveLength(1);
    expect((await machinesViaApi()).current_count).toBe(3);
  });
  it("(e) executions started, kept alive and ended by 50 parallel clients on three machines: never two running, each ended one counted once", {
    timeout: 120_000 * SCALE,
  }, async () => {
    const random = prng(SEED ^ 0x0e);
    const other = await devSignIn(app, { email: "invariants-executions@example.com", name: "Execution Owner" });
    const created = await app.inject({
      method: "POST",
      url: "/api/customer/licenses",
      headers: { authorization: `Bearer ${other.token}` },
      payload: { tier: "free" },
    });
    const { license_key: key, id } = created.json().data.license as { license_key: string; id: string };
    const machines = ["exec-inv-1", "exec-inv-2", "exec-inv-3"];
    for (const machine of machines) await post("/api/license/validate", { license_key: key, machine_id: machine });
    const running = async () =>
      (
        (await app.database.db.execute(sql`
        select count(*)::int as n from execution_leases e
        join machines m on m.license_id = e.license_id and m.machine_id = e.machine_id and m.status = 'active'
        where e.license_id = ${id} and e.ended_at is null and e.expires_at > clock_timestamp()`)) as unknown as {
          rows: { n: number }[];
        }
      ).rows[0]!.n;

    // Each job plays one app for a while: start; if it got the lease, a heartbeat or two, then end.
    const jobs = Array.from({ length: 200 * SCALE }, () => ({
      machine: random.pick(machines),
      heartbeats: random.int(0, 2),
    }));
    let maxSeen = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        maxSeen = Math.max(maxSeen, await running());
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const outcomes = await inParallel(jobs, async (job) => {
      const started = await post("/api/license/executions", { license_key: key, machine_id: job.machine });
      if (started.status !== 200) {
        expect(started.status, JSON.stringify(started.json)).toBe(409);
        expect(started.json.code).toBe("EXECUTION_LIMIT");
        return "refused" as const;
      }
      const leaseId = started.json.data.execution.id as string;
      const body = { license_key: key, machine_id: job.machine };
      for (let i = 0; i < job.heartbeats; i += 1) {
        const beat = await post(`/api/license/executions/${leaseId}/heartbeat`, body);
        expect(beat.status, JSON.stringify(beat.json)).toBe(200);
      }
      expect((await post(`/api/license/executions/${leaseId}/end`, body)).status).toBe(200);
      return "ran" as const;
    });
    sampling = false;
    await sampler;
    expect(maxSeen).toBeLessThanOrEqual(1);
    expect(await running()).toBe(0);
    const ran = outcomes.filter((outcome) => outcome === "ran").length;
    expect(ran).toBeGreaterThan(0);
    // Each ended lease is one execution in the usage figures, once.
    const counted = (await app.database.db.execute(
      sql`select coalesce(sum(executions), 0)::int as n from usage_rollups where license_id = ${id}`,
    )) as unknown as { rows: { n: number }[] };
    expect(counted.rows[0]!.n).toBe(ran);
  });
});
