/**
 * Execution leases (decisions 0048, 0052): the only writers of execution_leases. A lease
 *   - holds one of its license's execution slots while it has not ended and has not expired (expires_at, pushed
 *     forward by each heartbeat);
 *   - is running while it also has not been stopped, and only on the binding it started on (machine_ref);
 *   - is stopping once someone else stopped it (its owner, an admin, its machine losing its slot, a lower limit): it
 *     still holds its slot until its app has stopped (the app ends it) or its heartbeat window passes, so "nothing
 *     runs" is true in time, not only in rows. It is never revived.
 * Every decision that can add a lease that holds a slot (a start, a revival) is taken under the seat lock
 * (seat-lock.ts). A live lease's heartbeat is one conditional write without the lock; ending only frees, and a
 * conditional write counts it once. An ended lease is added to the usage figures once, in the transaction that ends it.
 */
import {
  EXECUTION_RULES,
  type ExecutionEndReason,
  type ExecutionStopReason,
  executionExpiresAfterSeconds,
} from "@flotilla/contracts/executions";
import { and, asc, desc, eq, gt, inArray, isNotNull, isNull, lte, or, sql } from "drizzle-orm";
import type { Database, Transaction } from "../../../db/client";
import { rawRowsOf } from "../../../db/raw-rows";
import { executionLeases, licenses, machines } from "../../../db/schema";
import { utcDay } from "../attempt-recorder";
import { recordUsage, usageOfEnded } from "../queries";
import { termsOf } from "./license-terms";
import type { LicenseRow, LockedLicense } from "./seat-lock";

export type LeaseRow = typeof executionLeases.$inferSelect;

/** A lease that holds a slot, as the dashboard, the console and a refusal show it. */
export interface HeldExecution {
  id: string;
  licenseId: string;
  machineId: string;
  displayId: string | null;
  machineName: string | null;
  feature: string;
  startedAt: Date;
  lastHeartbeatAt: Date;
  expiresAt: Date;
  /** Stopped by someone else and still holding its slot (its app has not stopped yet). */
  stopping: boolean;
  stopReason: ExecutionStopReason | null;
  stopRequestedAt: Date | null;
}

/** Holds a slot at `now`: not ended, not expired (stopping ones included). */
const holdsSlotAt = (now: Date) => and(isNull(executionLeases.endedAt), gt(executionLeases.expiresAt, now));
const expiryFrom = (at: Date) => new Date(at.getTime() + executionExpiresAfterSeconds() * 1000);
const itsMachine = and(
  eq(machines.licenseId, executionLeases.licenseId),
  eq(machines.machineId, executionLeases.machineId),
);

/** Leases of these licenses that hold a slot at `now`, oldest first, with their machine's names where it has a row. */
export async function heldExecutions(
  db: Database | Transaction,
  licenseIds: string[],
  now: Date,
): Promise<HeldExecution[]> {
  if (licenseIds.length === 0) return [];
  const rows = await db
    .select({
      id: executionLeases.id,
      licenseId: executionLeases.licenseId,
      machineId: executionLeases.machineId,
      displayId: machines.displayId,
      machineName: machines.machineName,
      feature: executionLeases.feature,
      startedAt: executionLeases.startedAt,
      lastHeartbeatAt: executionLeases.lastHeartbeatAt,
      expiresAt: executionLeases.expiresAt,
      stopRequestedAt: executionLeases.stopRequestedAt,
      endReason: executionLeases.endReason,
    })
    .from(executionLeases)
    .leftJoin(machines, itsMachine)
    .where(and(inArray(executionLeases.licenseId, licenseIds), holdsSlotAt(now)))
    .orderBy(asc(executionLeases.startedAt), asc(executionLeases.id));
  return rows.map(({ endReason, ...row }) => ({
    ...row,
    stopping: row.stopRequestedAt !== null,
    stopReason: row.stopRequestedAt ? (endReason as ExecutionStopReason) : null,
  }));
}

/** How many leases hold a slot across the service (the /metrics gauge), or of one license. */
export async function heldExecutionCount(db: Database, now: Date, licenseId?: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(executionLeases)
    .where(and(licenseId ? eq(executionLeases.licenseId, licenseId) : undefined, holdsSlotAt(now)));
  return row?.n ?? 0;
}

/** Why a license is not in force at `now` (under the lock), or null when it is. */
export function notInForce(license: LicenseRow | null, now: Date): "SUSPENDED" | "EXPIRED" | "NOT_FOUND" | null {
  if (!license) return "NOT_FOUND";
  if (license.status === "suspended") return "SUSPENDED";
  if (license.status !== "active" || (license.expiresAt && license.expiresAt <= now)) return "EXPIRED";
  return null;
}
type NotInForce = { outcome: "license-not-in-force"; code: "SUSPENDED" | "EXPIRED" | "NOT_FOUND" };

/** The machine's row while it holds a slot of the license (its binding). */
const bindingOf = (licenseId: string, machineId: string) =>
  and(eq(machines.licenseId, licenseId), eq(machines.machineId, machineId), eq(machines.status, "active"));

/** The machine's binding (its row) while it holds a slot, else null. */
async function slotOf(locked: LockedLicense, machineId: string): Promise<{ id: string } | null> {
  const [row] = await locked.tx
    .select({ id: machines.id })
    .from(machines)
    .where(bindingOf(locked.license.id, machineId));
  return row ?? null;
}

/**
 * Whether one more lease on this machine would pass the license's limit (null: unlimited, a per-machine bound).
 * roomFor is the same rule in SQL, for a start decided in one statement: the two change together.
 */
function full(held: HeldExecution[], limit: number | null, machineId: string): boolean {
  if (limit === null) {
    return held.filter((lease) => lease.machineId === machineId).length >= EXECUTION_RULES.maxPerMachineUnlimited;
  }
  return held.length >= limit;
}
const roomFor = (limit: number | null) =>
  limit === null ? sql`held.on_machine < ${EXECUTION_RULES.maxPerMachineUnlimited}` : sql`held.running < ${limit}`;

export type StartOutcome =
  | { outcome: "started"; lease: LeaseRow; running: number; limit: number | null }
  /** The Idempotency-Key names an earlier start: its answer is replayed (or, for another request, refused). */
  | { outcome: "replay"; stored: { requestHash: string; executionId: string | null; running: number } | null }
  | { outcome: "limit"; held: HeldExecution[]; limit: number }
  | { outcome: "not-activated" }
  | NotInForce;

/**
 * Starts an execution unless the license's held executions are at its limit. Under the lock, one statement decides
 * and writes (issue 35): the machine's slot, an earlier start with the same Idempotency-Key, the leases that hold a
 * slot, and, when the slot is held, the key is new and there is room, the lease and the key's answer together. A
 * refusal writes nothing (a retry with its key may win later) and reads who holds the slots for its answer.
 */
export async function startExecution(
  locked: LockedLicense,
  input: {
    machineId: string;
    feature: string;
    /**
     * A retried start (its answer was lost) must not start a second execution: the key is written with the lease, under
     * the lock, so a retry waits for the first attempt and replays its execution. A key older than `expiredBefore`
     * names nothing any more (retention deletes it later).
     */
    idempotency?: { scope: string; key: string; requestHash: string; expiredBefore: Date };
  },
  /** Run in the deciding transaction: the audit record of a refusal. */
  onRefused?: (held: HeldExecution[], limit: number) => Promise<unknown>,
): Promise<StartOutcome> {
  const { tx, license, now } = locked;
  const blocked = notInForce(license, now);
  if (blocked) return { outcome: "license-not-in-force", code: blocked };
  const limit = termsOf(license).executionLimit;
  const { idempotency } = input;
  const at = sql`${now.toISOString()}::timestamptz`;
  const { rows } = (await tx.execute(sql`
    with slot as (
      select id from machines where ${bindingOf(license.id, input.machineId)}
    ), earlier as (
      select request_hash, response from idempotency_keys
      where ${
        idempotency
          ? sql`scope = ${idempotency.scope} and key = ${idempotency.key}
              and created_at >= ${idempotency.expiredBefore.toISOString()}::timestamptz`
          : sql`false`
      }
    ), held as (
      select count(*)::integer as running, (count(*) filter (where machine_id = ${input.machineId}))::integer as on_machine
      from execution_leases
      where license_id = ${license.id}::uuid and ${holdsSlotAt(now)}
    ), started as (
      insert into execution_leases (license_id, machine_id, machine_ref, feature, started_at, last_heartbeat_at, expires_at)
      select ${license.id}::uuid, ${input.machineId}, slot.id, ${input.feature}, ${at}, ${at},
        ${expiryFrom(now).toISOString()}::timestamptz
      from slot, held
      where not exists (select 1 from earlier) and ${roomFor(limit)}
      returning *
    )${
      idempotency
        ? sql`, kept as (
      insert into idempotency_keys (scope, key, request_hash, status_code, response, created_at)
      select ${idempotency.scope}, ${idempotency.key}, ${idempotency.requestHash}, 200,
        jsonb_build_object('execution_id', started.id, 'running', held.running + 1), ${at}
      from started, held
      on conflict (scope, key) do update
      set request_hash = excluded.request_hash, status_code = excluded.status_code, response = excluded.response,
        created_at = excluded.created_at
      where idempotency_keys.created_at < ${idempotency.expiredBefore.toISOString()}::timestamptz
    )`
        : sql``
    }
    select (select id from slot) as slot_id, held.running as held_running,
      earlier.request_hash as earlier_request_hash, earlier.response as earlier_response, started.*
    from held left join earlier on true left join started on true
  `)) as unknown as { rows: Array<Record<string, unknown>> };
  const row = rows[0]!;
  if (!row.slot_id) return { outcome: "not-activated" };
  if (row.earlier_request_hash) {
    const answer = (row.earlier_response ?? {}) as { execution_id?: string; running?: number };
    return {
      outcome: "replay",
      stored: {
        requestHash: String(row.earlier_request_hash),
        executionId: answer.execution_id ?? null,
        running: answer.running ?? 1,
      },
    };
  }
  if (row.id) {
    locked.announceExecutions();
    return { outcome: "started", lease: leaseFromRaw(row), running: Number(row.held_running) + 1, limit };
  }
  const held = await heldExecutions(tx, [license.id], now);
  const shown = limit ?? held.length;
  await onRefused?.(held, shown);
  return { outcome: "limit", held, limit: shown };
}

/** Who asks to keep which lease alive: the license and machine a desktop request names, and the lease's id. */
export interface KeepAliveInput {
  licenseId: string;
  machineId: string;
  leaseId: string;
}

/** A live lease after its heartbeat, and its license's leases that hold a slot (the answer's `running`). */
export type KeptAlive = { lease: LeaseRow; running: number } | null;

/** A raw row of execution_leases (column names as in the database) as drizzle's LeaseRow. */
const leaseFromRaw = rawRowsOf(executionLeases);

/**
 * Heartbeats of live leases, any number of them in one statement and without the seat lock (decision 0057): extends
 * each lease that has not ended, has not been stopped, has not expired, and whose binding it started on still holds a
 * slot. Null for the others: the caller decides those under the lock (heartbeatLocked). A machine that lost its slot and
 * was bound again is a new binding: its old lease is never extended here.
 *
 * - The same statement counts each license's leases that hold a slot (the answer's `running`). Its subquery reads the
 *   statement's snapshot, in which every extended lease already held its slot (only a lease that had not expired is
 *   extended), so each is counted once either way.
 * - It never waits for a row lock (SKIP LOCKED): a lease locked by a decision under the seat lock (seat-lock.ts locks
 *   open leases in id order) or by another instance's heartbeat is left out, and its heartbeat goes to the lock, which
 *   waits for that decision and sees what it wrote. A statement that holds many rows and waits for none cannot be part
 *   of a deadlock.
 * - One fixed text whatever the number of leases (arrays, not a list of parameters), in a PL/pgSQL function (migration
 *   0021, keep_alive_leases) so that it is planned once per connection: planning was half its cost on the embedded
 *   database. A change to what "holds a slot" means changes that function too.
 */
export async function keepAliveMany(db: Database, inputs: readonly KeepAliveInput[]): Promise<KeptAlive[]> {
  if (inputs.length === 0) return [];
  const { rows } = (await db.execute(sql`
    select (kept.lease).*, kept.running
    from keep_alive_leases(
      ${sql.param(inputs.map((input) => input.leaseId))}::uuid[],
      ${sql.param(inputs.map((input) => input.licenseId))}::uuid[],
      ${sql.param(inputs.map((input) => input.machineId))}::text[],
      ${executionExpiresAfterSeconds()}::integer
    ) as kept
  `)) as unknown as { rows: Array<Record<string, unknown>> };
  const kept = new Map<string, { lease: LeaseRow; running: number }>();
  for (const row of rows) kept.set(String(row.id), { lease: leaseFromRaw(row), running: Number(row.running) });
  // A lease is answered only to the license and machine it belongs to (the statement matched on all three).
  return inputs.map((input) => {
    const found = kept.get(input.leaseId);
    return found && found.lease.licenseId === input.licenseId && found.lease.machineId === input.machineId
      ? found
      : null;
  });
}

/** One lease's heartbeat: keepAliveMany of one. */
export async function keepAlive(db: Database, input: KeepAliveInput): Promise<KeptAlive> {
  const [kept] = await keepAliveMany(db, [input]);
  return kept ?? null;
}

/** A lease of this license held by this machine (another license's or machine's is none of its business). */
async function machinesLease(
  tx: Database | Transaction,
  input: { licenseId: string; machineId: string; leaseId: string },
): Promise<LeaseRow | null> {
  const [lease] = await tx
    .select()
    .from(executionLeases)
    .where(
      and(
        eq(executionLeases.id, input.leaseId),
        eq(executionLeases.licenseId, input.licenseId),
        eq(executionLeases.machineId, input.machineId),
      ),
    );
  return lease ?? null;
}

export type HeartbeatOutcome =
  | { outcome: "alive"; lease: LeaseRow; revived: boolean; running: number; limit: number | null }
  | { outcome: "limit"; held: HeldExecution[]; limit: number }
  | { outcome: "ended"; lease: LeaseRow }
  | { outcome: "not-found" }
  | NotInForce;

/**
 * A heartbeat that keepAlive could not take: decided under the lock. A stopped or ended lease is over (EXECUTION_ENDED,
 * with why); one whose binding no longer holds a slot is stopped now; one that expired comes back within the revival
 * window if a slot is free (else the limit's refusal, and it stays expired), and after the window it has ended.
 */
export async function heartbeatLocked(
  locked: LockedLicense,
  input: { machineId: string; leaseId: string },
): Promise<HeartbeatOutcome> {
  const { tx, license, now } = locked;
  const lease = await machinesLease(tx, { licenseId: license.id, ...input });
  if (!lease) return { outcome: "not-found" };
  if (lease.endedAt || lease.stopRequestedAt) return { outcome: "ended", lease };
  const blocked = notInForce(license, now);
  if (blocked) return { outcome: "license-not-in-force", code: blocked };
  const slot = await slotOf(locked, input.machineId);
  if (!slot || slot.id !== lease.machineRef) {
    const [stopped] = await stopLeases(tx, [lease.id], "machine_released", now);
    locked.announceExecutions();
    return { outcome: "ended", lease: stopped ?? lease };
  }
  const limit = termsOf(license).executionLimit;
  const held = await heldExecutions(tx, [license.id], now);
  const alive = lease.expiresAt > now;
  if (!alive) {
    const revivableUntil = new Date(lease.expiresAt.getTime() + EXECUTION_RULES.revivalWindowSeconds * 1000);
    if (now > revivableUntil) {
      const ended = await endLease(tx, lease, "expired", lease.expiresAt);
      return { outcome: "ended", lease: ended ?? lease };
    }
    if (full(held, limit, input.machineId)) return { outcome: "limit", held, limit: limit ?? held.length };
  }
  const [updated] = await tx
    .update(executionLeases)
    .set({ lastHeartbeatAt: now, expiresAt: expiryFrom(now) })
    .where(eq(executionLeases.id, lease.id))
    .returning();
  // A revival changes what runs; a plain heartbeat shows on the dashboard as a later expiry only.
  if (!alive) locked.announceExecutions();
  return { outcome: "alive", lease: updated!, revived: !alive, running: held.length + (alive ? 0 : 1), limit };
}

/** Ends a lease (if it has not ended) and counts it as one execution, in the caller's transaction. */
async function endLease(tx: Transaction, lease: LeaseRow, reason: ExecutionEndReason, endedAt: Date) {
  const [ended] = await tx
    .update(executionLeases)
    .set({ endedAt, endReason: reason })
    .where(and(eq(executionLeases.id, lease.id), isNull(executionLeases.endedAt)))
    .returning();
  if (!ended) return null;
  await recordUsage(tx, {
    licenseId: ended.licenseId,
    machineId: ended.machineId,
    feature: ended.feature,
    executions: 1,
    day: utcDay(endedAt),
  });
  return ended;
}

/**
 * The app ends its own lease (it completed, or it has stopped after being stopped): the slot is free at once, and it
 * counts once. Idempotent: an ended lease answers how it ended. A stopped lease keeps the reason it was stopped for.
 * No lock needed: ending only frees, and the conditional write counts it once. One statement (decision 0057): the end
 * and its two usage writes (recordUsage's, as data-modifying CTEs) commit together; only a lease that had already ended,
 * or is not this machine's, takes a second read.
 */
export async function endByApp(
  db: Database,
  input: { licenseId: string; machineId: string; leaseId: string },
): Promise<{ outcome: "ended"; lease: LeaseRow; now: boolean } | { outcome: "not-found" }> {
  // Stamped to the millisecond, as every decision under the lock is (its clock is a JavaScript Date): a start that
  // follows this end in the same millisecond must not be recorded as beginning before it ended.
  const { rows } = (await db.execute(sql`
    with ended as (
      update ${executionLeases}
      set ended_at = date_trunc('milliseconds', clock_timestamp()),
          end_reason = case when stop_requested_at is null then 'completed' else end_reason end
      where id = ${input.leaseId} and license_id = ${input.licenseId} and machine_id = ${input.machineId}
        and ended_at is null
      returning *
    ), ${usageOfEnded(sql`ended`)}
    select * from ended
  `)) as unknown as { rows: Array<Record<string, unknown>> };
  if (rows[0]) return { outcome: "ended", lease: leaseFromRaw(rows[0]), now: true };
  const lease = await machinesLease(db, input);
  return lease ? { outcome: "ended", lease, now: false } : { outcome: "not-found" };
}

/**
 * Stops leases that hold a slot: each holds it on until its app has stopped (it ends the lease) or it expires.
 * Returns the leases it stopped (those already stopped or ended are left as they are).
 */
async function stopLeases(
  tx: Transaction,
  leaseIds: string[],
  reason: ExecutionStopReason,
  now: Date,
): Promise<LeaseRow[]> {
  if (leaseIds.length === 0) return [];
  return tx
    .update(executionLeases)
    .set({ stopRequestedAt: now, endReason: reason })
    .where(
      and(
        inArray(executionLeases.id, leaseIds),
        isNull(executionLeases.endedAt),
        isNull(executionLeases.stopRequestedAt),
      ),
    )
    .returning();
}

/**
 * The machines lost their slots (deactivated, removed, revoked, culled): their leases stop, in the transaction that
 * freed the slots and under the same lock. Every path that frees a slot calls this (machine-slots.ts). Returns how
 * many it stopped.
 */
export async function stopLeasesOfMachines(
  tx: Transaction,
  freed: { licenseId: string; machineId: string }[],
  now: Date,
): Promise<number> {
  if (freed.length === 0) return 0;
  const pairs = sql.join(
    freed.map((row) => sql`(${row.licenseId}::uuid, ${row.machineId}::text)`),
    sql`, `,
  );
  const stopped = await tx
    .update(executionLeases)
    .set({ stopRequestedAt: now, endReason: "machine_released" })
    .where(
      and(
        isNull(executionLeases.endedAt),
        isNull(executionLeases.stopRequestedAt),
        sql`(${executionLeases.licenseId}, ${executionLeases.machineId}) in (${pairs})`,
      ),
    )
    .returning({ id: executionLeases.id });
  return stopped.length;
}

/**
 * A lower limit brings what runs down to it: the executions started last beyond the limit stop (the oldest run on),
 * and their apps are told (410 EXECUTION_ENDED "limit_lowered" at the next heartbeat, and their watch at once).
 * Returns the ids it stopped.
 */
export async function stopBeyondLimit(locked: LockedLicense, changed: LicenseRow = locked.license): Promise<string[]> {
  const limit = termsOf(changed).executionLimit;
  if (limit === null) return [];
  const running = (await heldExecutions(locked.tx, [locked.license.id], locked.now)).filter((lease) => !lease.stopping);
  const surplus = running.slice(limit).map((lease) => lease.id);
  const stopped = await stopLeases(locked.tx, surplus, "limit_lowered", locked.now);
  if (stopped.length > 0) locked.announceExecutions();
  return stopped.map((lease) => lease.id);
}

export type StopOutcome =
  | { outcome: "stopping"; lease: LeaseRow; now: boolean }
  | { outcome: "ended"; lease: LeaseRow }
  | { outcome: "not-found" };

/**
 * The owner or an admin stops an execution of the license (any machine). A running lease is stopping from now: its
 * app is told at once (its watch) or at its next heartbeat, and its slot is held until it has stopped or expired. A
 * lease that had gone silent (expired, not yet ended) ends now: it held no slot, and it can no longer be revived.
 * Idempotent.
 */
export async function stopExecution(
  locked: LockedLicense,
  leaseId: string,
  reason: Extract<ExecutionStopReason, "ended_by_owner" | "ended_by_admin">,
  /** Run in the deciding transaction when this call stopped it (the audit record). */
  onStopped?: (lease: LeaseRow) => Promise<unknown>,
): Promise<StopOutcome> {
  const { tx, license, now } = locked;
  const [lease] = await tx
    .select()
    .from(executionLeases)
    .where(and(eq(executionLeases.id, leaseId), eq(executionLeases.licenseId, license.id)));
  if (!lease) return { outcome: "not-found" };
  if (lease.endedAt) return { outcome: "ended", lease };
  if (lease.stopRequestedAt) {
    if (lease.expiresAt > now) return { outcome: "stopping", lease, now: false };
    // Stopped earlier, and its app never answered: it ended when its heartbeat window passed.
    const ended = await endLease(tx, lease, lease.endReason as ExecutionEndReason, lease.expiresAt);
    locked.announceExecutions();
    return { outcome: "ended", lease: ended ?? lease };
  }
  if (lease.expiresAt <= now) {
    // Silent, but within its revival window: it holds no slot, so it ends now and can never come back.
    const ended = await endLease(tx, lease, reason, now);
    await onStopped?.(ended ?? lease);
    locked.announceExecutions();
    return { outcome: "ended", lease: ended ?? lease };
  }
  const [stopped] = await stopLeases(tx, [lease.id], reason, now);
  await onStopped?.(stopped!);
  locked.announceExecutions();
  return { outcome: "stopping", lease: stopped!, now: true };
}

/** A lease by id, for a replayed start. */
export async function leaseById(db: Database, licenseId: string, leaseId: string): Promise<LeaseRow | null> {
  const [lease] = await db
    .select()
    .from(executionLeases)
    .where(and(eq(executionLeases.id, leaseId), eq(executionLeases.licenseId, licenseId)));
  return lease ?? null;
}

/** A machine's leases by id, for its watch: each as it stands now (missing ids are not this machine's). */
export async function leasesOfMachine(
  db: Database,
  input: { licenseId: string; machineId: string; leaseIds: string[] },
): Promise<LeaseRow[]> {
  if (input.leaseIds.length === 0) return [];
  return db
    .select()
    .from(executionLeases)
    .where(
      and(
        inArray(executionLeases.id, input.leaseIds),
        eq(executionLeases.licenseId, input.licenseId),
        eq(executionLeases.machineId, input.machineId),
      ),
    );
}

/**
 * The sweep (culling job), in batches of at most `batch`: leases silent past their revival window have ended, dated
 * when they expired; stopped leases whose app never answered have ended when they expired (they are never revived).
 * Each is counted once. Returns the keys of the licenses it changed.
 */
export async function sweepExpiredExecutions(tx: Transaction, now: Date, batch: number): Promise<string[]> {
  const before = new Date(now.getTime() - EXECUTION_RULES.revivalWindowSeconds * 1000);
  const due = await tx
    .select({ id: executionLeases.id })
    .from(executionLeases)
    .where(
      and(
        isNull(executionLeases.endedAt),
        or(
          lte(executionLeases.expiresAt, before),
          and(isNotNull(executionLeases.stopRequestedAt), lte(executionLeases.expiresAt, now)),
        ),
      ),
    )
    .orderBy(asc(executionLeases.id))
    .limit(batch)
    .for("update", { skipLocked: true });
  if (due.length === 0) return [];
  const ended = await tx
    .update(executionLeases)
    .set({
      endedAt: executionLeases.expiresAt,
      endReason: sql`case when ${executionLeases.stopRequestedAt} is null then 'expired' else ${executionLeases.endReason} end`,
    })
    .where(
      and(
        inArray(
          executionLeases.id,
          due.map((row) => row.id),
        ),
        isNull(executionLeases.endedAt),
      ),
    )
    .returning();
  for (const lease of ended) {
    await recordUsage(tx, {
      licenseId: lease.licenseId,
      machineId: lease.machineId,
      feature: lease.feature,
      executions: 1,
      day: utcDay(lease.expiresAt),
    });
  }
  const ids = [...new Set(ended.map((lease) => lease.licenseId))];
  if (ids.length === 0) return [];
  const keys = await tx.select({ key: licenses.licenseKey }).from(licenses).where(inArray(licenses.id, ids));
  return keys.map((row) => row.key);
}

/** A license's most recent leases, whatever their state (the console). */
export async function recentExecutions(db: Database, licenseId: string, limit: number) {
  return db
    .select({
      id: executionLeases.id,
      machineId: executionLeases.machineId,
      displayId: machines.displayId,
      machineName: machines.machineName,
      feature: executionLeases.feature,
      startedAt: executionLeases.startedAt,
      lastHeartbeatAt: executionLeases.lastHeartbeatAt,
      expiresAt: executionLeases.expiresAt,
      endedAt: executionLeases.endedAt,
      endReason: executionLeases.endReason,
      stopRequestedAt: executionLeases.stopRequestedAt,
    })
    .from(executionLeases)
    .leftJoin(machines, itsMachine)
    .where(eq(executionLeases.licenseId, licenseId))
    .orderBy(desc(executionLeases.startedAt))
    .limit(limit);
}
