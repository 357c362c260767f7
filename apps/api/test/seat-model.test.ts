/**
 * Model-based concurrency test of seats and executions (launch reviews 2 and 3: one home per invariant). fast-check
 * draws runs of rounds; each round fires a handful of the operations that change who holds a machine slot or an
 * execution slot at once, over real sockets, from several connections: validate (bind, revive), heartbeat, culling,
 * the app's deactivation, checkout and offline activation (license files), the owner's removal, revocation, restore,
 * key rotation and license-file consent, admin actions (suspend, reactivate, device limit, tier, revocation), and
 * executions: starts, heartbeats, the app's end, the owner's and an admin's stop, a tier change that lowers the limit,
 * and time passing over a lease. After every round the invariants are checked against the database and the answers:
 *
 *   1. slots in use ≤ max_machines, and a license with machines has exactly one primary;
 *   2. every machine holding a working license file holds a slot (its lease reaches the file's end), unless it was
 *      revoked, and then the revocation records the file's end;
 *   3. a machine removed before the round began is never VALID and gets no file in it (unless restored in it);
 *   4. the deactivation (5) and activation (10) caps per 24 hours hold; the owner's revoked working files never
 *      exceed one per slot;
 *   5. the audit log has a row for every change: binds, revivals, deactivations, culls, files, removals,
 *      revocations, restores, rotations, consent, admin changes and stopped executions;
 *   6. running executions ≤ the license's limit at every instant a machine could observe: after each round, the
 *      license's running executions as any machine lists them (without changing anything), and in the database the
 *      leases that are running (not stopped, ended or expired), never outnumber the limit; at the end of a run, every
 *      machine heartbeats each lease it holds, one at a time, and no more of them than the limit are answered 200;
 *   7. no running lease belongs to a machine without a slot, nor to an earlier binding of its machine (machine_ref);
 *   8. a lease its app was told is over (410) is never answered 200 again: nothing revives a stopped lease.
 *
 * On PGlite (one statement at a time) it runs a few rounds; on PostgreSQL (api-postgres, CI) it runs with a fixed
 * seed in `npm test`, and `npm run test:stress` runs many more with a random seed. A failure prints the seed and
 * path: FLOTILLA_MODEL_SEED=<seed> FLOTILLA_MODEL_PATH=<path> replays it.
 */
import { randomInt } from "node:crypto";
import type { AddressInfo } from "node:net";
import { EXECUTION_RULES, executionExpiresAfterSeconds } from "@flotilla/contracts/executions";
import { revokedFilesAllowed, SEAT_RULES } from "@flotilla/contracts/seats";
import { TIERS } from "@flotilla/contracts/tiers";
import { sql } from "drizzle-orm";
import fc from "fast-check";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cullingJob } from "../src/jobs/culling";
import { runExclusively } from "../src/jobs/scheduler";
import { devSignIn } from "./helpers/dev-sign-in";
import { ageLease } from "./helpers/lease-time";
import { licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp, onPostgres } from "./helpers/test-app";

const STRESS = process.env.FLOTILLA_STRESS === "1";
const SEED = process.env.FLOTILLA_MODEL_SEED
  ? Number(process.env.FLOTILLA_MODEL_SEED)
  : STRESS
    ? randomInt(2 ** 31)
    : 20_261_125;
const PATH = process.env.FLOTILLA_MODEL_PATH;
const RUNS = Number(process.env.FLOTILLA_MODEL_RUNS ?? (STRESS ? 500 : onPostgres ? 60 : 4));
/** Few machines for three slots: operations on the same machine meet often, which is where races live. */
const MACHINES = ["m0", "m1", "m2", "m3", "m4"] as const;
/** Culling as if this much later: every machine without a working file has been silent past its window. */
const CULL_AHEAD_MS = (TIERS.free.heartbeatIntervalSeconds + SEAT_RULES.driftAllowanceSeconds + 60) * 1000;
const DAY_MS = 86_400_000;
/** A lease aged this far is past its expiry and its revival window: over for good. */
const LEASE_GONE_SECONDS = executionExpiresAfterSeconds() + EXECUTION_RULES.revivalWindowSeconds + 1;
const ADMIN = "model.admin@example.com";

type Machine = (typeof MACHINES)[number];
type Op =
  | { kind: "validate" | "heartbeat" | "checkout" | "offline" | "deactivate"; machine: Machine }
  | { kind: "remove" | "revoke" | "restore" | "adminRevoke"; machine: Machine }
  | { kind: "cull" | "rotate" | "suspend" | "reactivate" }
  | { kind: "files"; allowed: boolean }
  | { kind: "limit"; max: number }
  | { kind: "tier"; tier: "free" | "plus" }
  /** The app validates (binding its machine if it may), then starts an execution. */
  | { kind: "start"; machine: Machine }
  /** On the n-th lease started so far (modulo their number): its own machine heartbeats or ends it, or it ages. */
  | { kind: "execHeartbeat" | "execEnd" | "ownerStop" | "adminStop"; lease: number }
  | { kind: "age"; lease: number; seconds: number };

const anyMachine = fc.constantFrom(...MACHINES);
/** The operations, on machines drawn from `machineArb`. */
const opsOn = (machineArb: fc.Arbitrary<Machine>): fc.Arbitrary<Op> =>
  fc.oneof(
    { weight: 8, arbitrary: machineArb.map((machine) => ({ kind: "validate" as const, machine })) },
    { weight: 2, arbitrary: machineArb.map((machine) => ({ kind: "heartbeat" as const, machine })) },
    { weight: 4, arbitrary: machineArb.map((machine) => ({ kind: "checkout" as const, machine })) },
    { weight: 2, arbitrary: machineArb.map((machine) => ({ kind: "offline" as const, machine })) },
    { weight: 3, arbitrary: machineArb.map((machine) => ({ kind: "deactivate" as const, machine })) },
    { weight: 3, arbitrary: machineArb.map((machine) => ({ kind: "remove" as const, machine })) },
    { weight: 2, arbitrary: machineArb.map((machine) => ({ kind: "revoke" as const, machine })) },
    { weight: 2, arbitrary: machineArb.map((machine) => ({ kind: "restore" as const, machine })) },
    { weight: 1, arbitrary: machineArb.map((machine) => ({ kind: "adminRevoke" as const, machine })) },
    { weight: 2, arbitrary: fc.constant({ kind: "cull" as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: "rotate" as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: "suspend" as const }) },
    { weight: 2, arbitrary: fc.constant({ kind: "reactivate" as const }) },
    { weight: 2, arbitrary: fc.boolean().map((allowed) => ({ kind: "files" as const, allowed })) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 5 }).map((max) => ({ kind: "limit" as const, max })) },
    {
      weight: 2,
      arbitrary: fc.constantFrom("free" as const, "plus" as const).map((tier) => ({ kind: "tier" as const, tier })),
    },
    { weight: 5, arbitrary: machineArb.map((machine) => ({ kind: "start" as const, machine })) },
    ...(["execHeartbeat", "execEnd", "ownerStop", "adminStop"] as const).map((kind) => ({
      weight: kind === "execHeartbeat" ? 4 : 2,
      arbitrary: fc.nat(20).map((lease) => ({ kind, lease })),
    })),
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.nat(20), fc.constantFrom(executionExpiresAfterSeconds() + 1, LEASE_GONE_SECONDS))
        .map(([lease, seconds]) => ({ kind: "age" as const, lease, seconds })),
    },
  );
const runArb = fc.record({
  /** Whether the owner allowed license files before the first round (mostly: files are where seats multiplied). */
  filesAllowed: fc.integer({ min: 0, max: 3 }).map((n) => n > 0),
  /**
   * Most operations of a round name its focus machine, so that a removal, a checkout and a revocation of one machine
   * meet at the same moment; each is sent 1–3 times at once, as a retrying client or a crowd with one key would.
   */
  rounds: fc.array(
    anyMachine.chain((focus) =>
      fc
        .array(
          fc.tuple(
            opsOn(fc.oneof({ weight: 3, arbitrary: fc.constant(focus) }, { weight: 2, arbitrary: anyMachine })),
            fc.integer({ min: 1, max: 3 }),
          ),
          { minLength: 2, maxLength: 8 },
        )
        .map((ops) => ops.flatMap(([op, copies]) => Array.from({ length: copies }, () => op))),
    ),
    { minLength: 3, maxLength: 12 },
  ),
});

interface Outcome {
  op: Op;
  /** The lease an execution operation acted on (its id and machine), when there was one. */
  lease?: Lease;
  status: number;
  /** The licensing code of a desktop answer (VALID, MACHINE_REMOVED…) or the error code. */
  code: string | null;
  /** A license file's end, when one was issued. */
  fileUntil: Date | null;
  /** The new key, after a rotation. */
  newKey?: string;
  /** A started lease; and how a stop answered (the reason it gives). */
  started?: Lease;
  endReason?: string;
}

interface Lease {
  id: string;
  machine: Machine;
}

let app: FastifyInstance;
let close: () => Promise<void>;
let base: string;
let admin: string;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false, adminEmails: [ADMIN] }));
  await app.listen({ port: 0, host: "127.0.0.1" });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  admin = (await devSignIn(app, { email: ADMIN, name: "Model Admin" })).token;
});
afterAll(() => close());

async function call(method: string, path: string, body?: unknown, token?: string) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json().catch(() => ({}))) as Record<string, unknown> & {
    data?: Record<string, unknown> & { license_file?: { expires_at: string } | null };
  };
  return { status: response.status, json };
}

/** One operation, as the app, the owner or an admin sends it; every answer is recorded, none is asserted here. */
async function perform(op: Op, key: string, owner: string, leases: Lease[]): Promise<Outcome> {
  const desktop = (path: string, machine: string, extra: Record<string, unknown> = {}) =>
    call("POST", path, { license_key: key, machine_id: machine, ...extra });
  const machines = `/api/license/machines/${key}`;
  const actions = `/api/admin/licenses/${key}/actions`;
  const lease = "lease" in op && leases.length > 0 ? leases[op.lease % leases.length] : undefined;
  const answer = await (async () => {
    switch (op.kind) {
      case "start":
        // As an app does when it launches a task: make sure of its license (validate: binds the machine again if it
        // lost its slot), then start.
        await desktop("/api/license/validate", op.machine);
        return desktop("/api/license/executions", op.machine);
      case "execHeartbeat":
      case "execEnd":
        if (!lease) return { status: 0, json: {} };
        return desktop(
          `/api/license/executions/${lease.id}/${op.kind === "execEnd" ? "end" : "heartbeat"}`,
          lease.machine,
        );
      case "ownerStop":
        if (!lease) return { status: 0, json: {} };
        return call("DELETE", `/api/customer/licenses/${key}/executions/${lease.id}`, undefined, owner);
      case "adminStop":
        if (!lease) return { status: 0, json: {} };
        return call("POST", `/api/admin/licenses/${key}/executions/${lease.id}/end`, { reason: "model test" }, admin);
      case "age":
        if (!lease) return { status: 0, json: {} };
        await ageLease(app, lease.id, op.seconds);
        return { status: 200, json: {} };
      case "tier":
        // The device limit stays: a tier change that only lowers the execution limit is what this explores.
        return call("POST", actions, { action: "change", tier: op.tier, max_machines: 5, reason: "model test" }, admin);
      case "validate":
        return desktop("/api/license/validate", op.machine);
      case "heartbeat":
        return desktop("/api/license/heartbeat", op.machine);
      case "checkout":
        return desktop("/api/license/checkout", op.machine, { ttl_seconds: 90 * 86_400 });
      case "offline":
        return call("POST", "/api/license/offline-activations", {
          request: {
            format: "flotilla-activation-request/1",
            license_key: key,
            machine_id: op.machine,
            created_at: new Date().toISOString(),
          },
          ttl_seconds: 30 * 86_400,
        });
      case "deactivate":
        return desktop("/api/license/deactivate", op.machine);
      case "remove":
        return call("DELETE", `${machines}/${op.machine}`, undefined, owner);
      case "revoke":
        return call("POST", `${machines}/${op.machine}/revoke`, undefined, owner);
      case "restore":
        return call("POST", `${machines}/${op.machine}/restore`, undefined, owner);
      case "adminRevoke":
        return call(
          "POST",
          `/api/admin/licenses/${key}/machines/${op.machine}/revoke`,
          { reason: "model test" },
          admin,
        );
      case "rotate":
        return call("POST", `/api/customer/licenses/${key}/rotate`, undefined, owner);
      case "files":
        return call("PUT", `/api/customer/licenses/${key}/offline-files`, { allowed: op.allowed }, owner);
      case "suspend":
      case "reactivate":
        return call("POST", actions, { action: op.kind, reason: "model test" }, admin);
      case "limit":
        return call("POST", actions, { action: "change", max_machines: op.max, reason: "model test" }, admin);
      case "cull": {
        const job = cullingJob(app.licensing.seats);
        const outcome = await runExclusively(app.database.db, job, new Date(Date.now() + CULL_AHEAD_MS));
        return { status: outcome.ran ? 200 : 409, json: {} };
      }
    }
  })();
  const data = answer.json.data;
  const file = data?.license_file?.expires_at;
  const execution = (data as { execution?: { id: string } } | undefined)?.execution;
  return {
    op,
    ...(lease ? { lease } : {}),
    ...(op.kind === "start" && answer.status === 200 && execution
      ? { started: { id: execution.id, machine: op.machine } }
      : {}),
    ...(typeof data?.end_reason === "string" ? { endReason: data.end_reason } : {}),
    status: answer.status,
    code: (data?.code as string | undefined) ?? (answer.json.code as string | undefined) ?? null,
    fileUntil: file ? new Date(file) : null,
    ...(op.kind === "rotate" && answer.status === 200
      ? { newKey: (data?.license as { license_key: string } | undefined)?.license_key }
      : {}),
  };
}

const rows = async <T>(query: ReturnType<typeof sql>) =>
  ((await app.database.db.execute(query)) as unknown as { rows: T[] }).rows;

async function removedMachines(licenseId: string): Promise<Set<string>> {
  const removed = await rows<{ machine_id: string }>(
    sql`select machine_id from machine_removals where license_id = ${licenseId}`,
  );
  return new Set(removed.map((row) => row.machine_id));
}

/** The invariants, after a round. `files` holds every license file issued so far: machine → its latest end. */
async function checkInvariants(
  licenseId: string,
  round: Outcome[],
  removedBefore: Set<string>,
  files: Map<string, Date>,
  maxSeen: number,
) {
  const now = new Date();
  const [license] = await rows<{ max_machines: number }>(
    sql`select max_machines from licenses where id = ${licenseId}`,
  );
  const machines = await rows<{ machine_id: string; status: string; is_primary: boolean; lease_until: string | null }>(
    sql`select machine_id, status, is_primary, lease_until from machines where license_id = ${licenseId}`,
  );
  const active = machines.filter((m) => m.status === "active");

  // 1. Slots and the primary.
  expect(active.length, "slots in use ≤ max_machines").toBeLessThanOrEqual(license!.max_machines);
  if (machines.length > 0)
    expect(
      machines.filter((m) => m.is_primary),
      "exactly one primary",
    ).toHaveLength(1);

  // 2. A working file is backed by a held slot, or by a recorded revocation that knows the file's end.
  const revoked = await rows<{ machine_id: string; valid_until: string; revoked_by: string }>(
    sql`select machine_id, valid_until, revoked_by from revoked_license_files where license_id = ${licenseId}`,
  );
  for (const [machineId, until] of files) {
    if (until <= now) continue;
    const held = active.find((m) => m.machine_id === machineId);
    const backed =
      (held?.lease_until && new Date(held.lease_until).getTime() >= until.getTime() - 1_000) ||
      revoked.some((r) => r.machine_id === machineId && new Date(r.valid_until).getTime() >= until.getTime() - 1_000);
    expect(backed, `${machineId} holds a file working until ${until.toISOString()} but no slot`).toBeTruthy();
  }

  // 3. Removed before the round: never VALID, never a file, unless the owner restored it meanwhile.
  const restored = new Set(
    round.filter((o) => o.op.kind === "restore").map((o) => (o.op as { machine: string }).machine),
  );
  for (const outcome of round) {
    const machine = "machine" in outcome.op ? outcome.op.machine : null;
    if (!machine || !removedBefore.has(machine) || restored.has(machine)) continue;
    if (["validate", "heartbeat", "checkout", "offline"].includes(outcome.op.kind)) {
      expect(outcome.code, `removed ${machine} answered ${outcome.code} to ${outcome.op.kind}`).not.toBe("VALID");
      expect(outcome.fileUntil, `removed ${machine} got a license file`).toBeNull();
    }
  }

  // 4. Caps.
  const [events] = await rows<{ deactivated: number; activated: number }>(sql`
    select count(*) filter (where kind = 'deactivated')::int as deactivated,
           count(*) filter (where kind = 'activated')::int as activated
    from machine_events where license_id = ${licenseId} and at > ${new Date(now.getTime() - DAY_MS).toISOString()}::timestamptz`);
  expect(events!.deactivated, "deactivations per 24 h").toBeLessThanOrEqual(SEAT_RULES.deactivationsPerDay);
  expect(events!.activated, "new machines per 24 h").toBeLessThanOrEqual(SEAT_RULES.activationsPerDay);
  const ownerHeld = revoked.filter((r) => r.revoked_by === "customer" && new Date(r.valid_until) > now).length;
  expect(ownerHeld, "owner's revoked working files").toBeLessThanOrEqual(revokedFilesAllowed(maxSeen));
}

/** 6–8: executions as their machines observe them, and the lease rule in the database. `told` holds leases answered 410. */
async function checkExecutions(licenseId: string, key: string, told: Set<string>, round: Outcome[]) {
  const [license] = await rows<{ tier: keyof typeof TIERS }>(sql`select tier from licenses where id = ${licenseId}`);
  const limit = TIERS[license!.tier].features.maxConcurrentExecutions;
  // 8. Told it is over before this round: never answered 200 in it.
  for (const outcome of round) {
    if (outcome.op.kind !== "execHeartbeat" || !outcome.lease) continue;
    if (told.has(outcome.lease.id)) {
      expect(outcome.status, `lease ${outcome.lease.id} was told it is over, then kept alive`).not.toBe(200);
    }
  }
  for (const outcome of round) if (outcome.lease && outcome.status === 410) told.add(outcome.lease.id);
  // 6 and 7, in the database: running leases within the limit, each on the binding that holds its slot.
  const running = await rows<{ id: string; machine_id: string; slot_machine: string | null }>(sql`
    select e.id, e.machine_id, m.machine_id as slot_machine from execution_leases e
    left join machines m on m.id = e.machine_ref and m.status = 'active'
    where e.license_id = ${licenseId} and e.ended_at is null and e.stop_requested_at is null
      and e.expires_at > clock_timestamp()`);
  if (limit !== null) expect(running.length, "running executions ≤ the limit").toBeLessThanOrEqual(limit);
  for (const lease of running) {
    expect(lease.slot_machine, `running lease ${lease.id} on a machine without a slot`).toBe(lease.machine_id);
  }
  // 6, as any machine sees it without changing anything: the license's running executions (the CLI's list).
  const listed = await call("POST", "/api/license/executions/running", { license_key: key, machine_id: MACHINES[0] });
  const runningListed = ((listed.json.data?.running ?? []) as { stopping?: boolean }[]).filter(
    (lease) => !lease.stopping,
  );
  if (limit !== null) expect(runningListed.length, "executions listed running ≤ the limit").toBeLessThanOrEqual(limit);
}

/** 6, at the end of a run: every machine heartbeats each lease it holds, one at a time; at most the limit stay running. */
async function probeByHeartbeats(licenseId: string, key: string, leases: Lease[], told: Set<string>) {
  const [license] = await rows<{ tier: keyof typeof TIERS }>(sql`select tier from licenses where id = ${licenseId}`);
  const limit = TIERS[license!.tier].features.maxConcurrentExecutions;
  let observed = 0;
  for (const lease of leases) {
    const answer = await call("POST", `/api/license/executions/${lease.id}/heartbeat`, {
      license_key: key,
      machine_id: lease.machine,
    });
    if (told.has(lease.id))
      expect(answer.status, `lease ${lease.id} was told it is over, then kept alive`).not.toBe(200);
    if (answer.status === 200) observed += 1;
  }
  if (limit !== null) expect(observed, "executions machines observe running ≤ the limit").toBeLessThanOrEqual(limit);
}

/** 5. Every change has its audit row: counted from the machine events and from the answers of the whole run. */
async function checkAudit(licenseId: string, all: Outcome[], filesAllowedFirst: boolean) {
  const audit = new Map(
    (
      await rows<{ type: string; n: number }>(
        sql`select type, count(*)::int as n from audit_events where license_id = ${licenseId} group by type`,
      )
    ).map((row) => [row.type, row.n]),
  );
  const events = new Map(
    (
      await rows<{ kind: string; n: number }>(
        sql`select kind, count(*)::int as n from machine_events where license_id = ${licenseId} group by kind`,
      )
    ).map((row) => [row.kind, row.n]),
  );
  const count = (type: string) => audit.get(type) ?? 0;
  const succeeded = (...kinds: Op["kind"][]) => all.filter((o) => kinds.includes(o.op.kind) && o.status === 200).length;
  expect(count("machine.bound"), "binds").toBe(events.get("activated") ?? 0);
  expect(count("machine.revived"), "revivals").toBe(events.get("revived") ?? 0);
  expect(count("machine.deactivated"), "deactivations").toBe(events.get("deactivated") ?? 0);
  // Culls are summed per batch of the job (decision 0058): no row per machine, and the summaries add up to the culled
  // machine events (every license's: a batch's summary is not any one license's).
  expect(count("machine.culled"), "culls have no row each").toBe(0);
  const [culls] = await rows<{ summed: number; culled: number }>(sql`
    select (select coalesce(sum((after->>'culled')::int), 0) from audit_events where type = 'machines.culled')::int as summed,
           (select count(*) from machine_events where kind = 'culled')::int as culled`);
  expect(culls!.summed, "culls summed").toBe(culls!.culled);
  expect(count("machine.license_file_issued"), "files").toBe(all.filter((o) => o.fileUntil).length);
  expect(count("machine.removed"), "removals").toBe(succeeded("remove"));
  expect(count("machine.revoked"), "revocations").toBe(succeeded("revoke", "adminRevoke"));
  expect(count("machine.restored"), "restores").toBe(succeeded("restore"));
  expect(count("license.key_rotated"), "rotations").toBe(succeeded("rotate"));
  expect(count("license.status_changed") + count("license.updated"), "admin changes").toBe(
    succeeded("suspend", "reactivate", "limit", "tier"),
  );
  // Each execution stopped by its owner or an admin, once, whoever asked how often.
  const stopped = new Set(
    all
      .filter(
        (o) =>
          (o.op.kind === "ownerStop" || o.op.kind === "adminStop") &&
          o.status === 200 &&
          (o.endReason === "ended_by_owner" || o.endReason === "ended_by_admin"),
      )
      .map((o) => o.lease!.id),
  );
  expect(count("execution.ended"), "stopped executions").toBe(stopped.size);
  // The owner's first consent (before the rounds) is a change too; a repeated setting changes nothing.
  expect(count("license.offline_files_changed"), "consent changes").toBeLessThanOrEqual(
    succeeded("files") + (filesAllowedFirst ? 1 : 0),
  );
}

let runs = 0;
/** What the runs did, printed at the end: a model test that never reaches a state proves nothing about it. */
const tally = new Map<string, number>();
function count(outcome: Outcome) {
  const name = `${outcome.op.kind} → ${outcome.fileUntil ? "file" : (outcome.code ?? outcome.status)}`;
  tally.set(name, (tally.get(name) ?? 0) + 1);
}
describe(`seats under concurrent changes, model-based (seed ${SEED}, ${RUNS} runs${onPostgres ? " on PostgreSQL" : ""})`, () => {
  it("keeps every invariant after every round", { timeout: STRESS ? 3_600_000 : 300_000 }, async () => {
    console.info(`seat model seed ${SEED} (FLOTILLA_MODEL_SEED=${SEED} to replay)`);
    await fc.assert(
      fc.asyncProperty(runArb, async ({ filesAllowed, rounds: plan }) => {
        runs += 1;
        const { token: owner, key: firstKey } = await licensedCustomer(app, `model-${SEED}-${runs}-`, {
          offlineFiles: filesAllowed,
        });
        let key = firstKey;
        const [{ id: licenseId }] = (await rows<{ id: string }>(
          sql`select id from licenses where license_key = ${key}`,
        )) as [{ id: string }];
        const files = new Map<string, Date>();
        const all: Outcome[] = [];
        const leases: Lease[] = [];
        const told = new Set<string>();
        let maxSeen: number = TIERS.free.maxMachines;
        for (const ops of plan) {
          const removedBefore = await removedMachines(licenseId);
          const round = await Promise.all(ops.map((op) => perform(op, key, owner, leases)));
          all.push(...round);
          for (const outcome of round) {
            count(outcome);
            if (outcome.fileUntil && "machine" in outcome.op) {
              const seen = files.get(outcome.op.machine);
              if (!seen || outcome.fileUntil > seen) files.set(outcome.op.machine, outcome.fileUntil);
            }
            if (outcome.newKey) key = outcome.newKey;
            if (outcome.op.kind === "limit" && outcome.status === 200) maxSeen = Math.max(maxSeen, outcome.op.max);
          }
          await checkInvariants(licenseId, round, removedBefore, files, maxSeen);
          for (const outcome of round) if (outcome.started) leases.push(outcome.started);
          await checkExecutions(licenseId, key, told, round);
        }
        await probeByHeartbeats(licenseId, key, leases, told);
        await checkAudit(licenseId, all, filesAllowed);
      }),
      { seed: SEED, numRuns: RUNS, ...(PATH ? { path: PATH } : {}), verbose: 1 },
    );
    console.info(
      [...tally.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, n]) => `${name}: ${n}`)
        .join("\n"),
    );
  });
});
