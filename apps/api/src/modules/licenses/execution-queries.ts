/**
 * Execution leases (decision 0048). Every decision that can add a running lease — a start, a revival — is taken
 * inside one transaction under the license lock every slot change takes (queries.ts, lockLicense), so concurrent
 * starts from any number of machines and instances are serialised and never exceed the tier's limit. Time is the
 * database's clock, read after the lock is held: instances whose clocks disagree still decide from one clock.
 *
 * A lease is running while it has not ended, has not expired (expires_at, pushed forward by each heartbeat) and its
 * machine holds a slot; a machine removed, deactivated, revoked or culled frees its executions at once. An ended lease
 * is added to the usage figures once, in the transaction that ends it.
 */
import { EXECUTION_RULES, type ExecutionEndReason, executionExpiresAfterSeconds } from "@flotilla/contracts/executions";
import { and, asc, desc, eq, gt, inArray, isNull, lte, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { executionLeases, licenses, machines } from "../../db/schema";
import { utcDay } from "./attempt-recorder";
import {
  claimIdempotencyKey,
  findIdempotentAnswer,
  type LicenseRow,
  lockLicense,
  recordUsage,
  releaseIdempotencyKey,
  storeIdempotentResponse,
} from "./queries";

export type LeaseRow = typeof executionLeases.$inferSelect;

export interface RunningExecution {
  id: string;
  machineId: string;
  displayId: string;
  machineName: string | null;
  feature: string;
  startedAt: Date;
  lastHeartbeatAt: Date;
  expiresAt: Date;
}

/** The database's clock now (after the lock is held: never earlier than a decision that committed before it). */
async function databaseNow(tx: Database): Promise<Date> {
  const result = (await tx.execute(sql`select clock_timestamp() as now`)) as unknown as {
    rows: { now: string | Date }[];
  };
  return new Date(result.rows[0]!.now);
}

/**
 * Locks the license's open leases (not ended, expired or not), then reads the clock. A heartbeat keeps a live lease
 * alive without the license lock (keepAlive: one conditional write); a decision that counts running leases must
 * therefore wait for a heartbeat in flight and see what it wrote. Locking the open rows whatever their expiry does
 * that: PostgreSQL waits for the heartbeat's commit and re-reads the row, and the clock is read only afterwards, so
 * a lease extended a moment before it expired is counted, and one that expired is not extended after the count
 * (keepAlive's own condition, re-checked after it waited for this lock, sees it expired).
 */
async function lockOpenLeases(tx: Database, licenseId: string): Promise<Date> {
  await tx
    .select({ id: executionLeases.id })
    .from(executionLeases)
    .where(and(eq(executionLeases.licenseId, licenseId), isNull(executionLeases.endedAt)))
    .orderBy(asc(executionLeases.id))
    .for("update");
  return databaseNow(tx);
}

/** A lease's machine, and that machine while it holds a slot (only then do its leases run). */
const itsMachine = and(
  eq(machines.licenseId, executionLeases.licenseId),
  eq(machines.machineId, executionLeases.machineId),
);
const onAMachineHoldingASlot = and(itsMachine, eq(machines.status, "active"));

const expiryFrom = (at: Date) => new Date(at.getTime() + executionExpiresAfterSeconds() * 1000);

/** Running leases of these licenses at `now`, oldest first, with their machine's names. */
export async function runningExecutions(
  db: Database,
  licenseIds: string[],
  now: Date,
): Promise<(RunningExecution & { licenseId: string })[]> {
  if (licenseIds.length === 0) return [];
  return db
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
    })
    .from(executionLeases)
    .innerJoin(machines, onAMachineHoldingASlot)
    .where(
      and(
        inArray(executionLeases.licenseId, licenseIds),
        isNull(executionLeases.endedAt),
        gt(executionLeases.expiresAt, now),
      ),
    )
    .orderBy(asc(executionLeases.startedAt), asc(executionLeases.id));
}

async function machineHoldsSlot(tx: Database, licenseId: string, machineId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: machines.id })
    .from(machines)
    .where(and(eq(machines.licenseId, licenseId), eq(machines.machineId, machineId), eq(machines.status, "active")));
  return Boolean(row);
}

/** Why a license is not in force now (under the lock), or null when it is. */
function notInForce(license: LicenseRow | null, now: Date): "SUSPENDED" | "EXPIRED" | "NOT_FOUND" | null {
  if (!license) return "NOT_FOUND";
  if (license.status === "suspended") return "SUSPENDED";
  if (license.status !== "active" || (license.expiresAt && license.expiresAt <= now)) return "EXPIRED";
  return null;
}
type NotInForce = { outcome: "license-not-in-force"; code: "SUSPENDED" | "EXPIRED" | "NOT_FOUND" };

export type StartOutcome =
  | { outcome: "started"; lease: LeaseRow; running: number }
  /** The Idempotency-Key names an earlier start: its answer is replayed (or, for another request, refused). */
  | { outcome: "replay"; stored: { requestHash: string; executionId: string | null; running: number } | null }
  | { outcome: "limit"; running: RunningExecution[] }
  | { outcome: "not-activated" }
  | NotInForce;

/** Starts an execution unless the license's running executions are at `limit` (null: unlimited, still recorded). */
export async function startExecution(
  db: Database,
  input: {
    licenseId: string;
    machineId: string;
    feature: string;
    limit: number | null;
    /**
     * A retried start (its answer was lost) must not start a second execution: the key is claimed under the lock, so
     * a retry waits for the first attempt and replays its execution. A refusal releases the key (a retry may win).
     */
    idempotency?: { scope: string; key: string; requestHash: string; expiredBefore: Date };
  },
  /** Run in the deciding transaction: the audit record of a refusal. */
  onRefused?: (tx: Database, running: RunningExecution[]) => Promise<unknown>,
): Promise<StartOutcome> {
  return db.transaction(async (trx) => {
    const tx = trx as unknown as Database;
    const license = await lockLicense(tx, input.licenseId);
    const now = await lockOpenLeases(tx, input.licenseId);
    const blocked = notInForce(license, now);
    if (blocked) return { outcome: "license-not-in-force", code: blocked };
    if (!(await machineHoldsSlot(tx, input.licenseId, input.machineId))) return { outcome: "not-activated" };
    const { idempotency } = input;
    if (idempotency) {
      const claimed = await claimIdempotencyKey(
        tx,
        { ...idempotency, statusCode: 200, response: {} },
        now,
        idempotency.expiredBefore,
      );
      if (!claimed) {
        const stored = await findIdempotentAnswer(tx, idempotency.scope, idempotency.key, idempotency.expiredBefore);
        const answer = (stored?.response ?? {}) as { execution_id?: string; running?: number };
        return {
          outcome: "replay",
          stored: stored
            ? {
                requestHash: stored.requestHash,
                executionId: answer.execution_id ?? null,
                running: answer.running ?? 1,
              }
            : null,
        };
      }
    }
    const running = await runningExecutions(tx, [input.licenseId], now);
    const onThisMachine = running.filter((lease) => lease.machineId === input.machineId).length;
    const full =
      input.limit === null ? onThisMachine >= EXECUTION_RULES.maxPerMachineUnlimited : running.length >= input.limit;
    if (full) {
      if (idempotency) await releaseIdempotencyKey(tx, idempotency.scope, idempotency.key);
      await onRefused?.(tx, running);
      return { outcome: "limit", running };
    }
    const [lease] = await tx
      .insert(executionLeases)
      .values({
        licenseId: input.licenseId,
        machineId: input.machineId,
        feature: input.feature,
        startedAt: now,
        lastHeartbeatAt: now,
        expiresAt: expiryFrom(now),
      })
      .returning();
    if (idempotency) {
      await storeIdempotentResponse(tx, idempotency.scope, idempotency.key, {
        execution_id: lease!.id,
        running: running.length + 1,
      });
    }
    return { outcome: "started", lease: lease!, running: running.length + 1 };
  });
}

export type HeartbeatOutcome =
  | { outcome: "alive"; lease: LeaseRow; revived: boolean; running: number }
  | { outcome: "limit"; running: RunningExecution[] }
  | { outcome: "ended"; lease: LeaseRow }
  | { outcome: "not-found" | "not-activated" }
  | NotInForce;

async function findLease(tx: Database, licenseId: string, machineId: string, leaseId: string) {
  const [lease] = await tx
    .select()
    .from(executionLeases)
    .where(
      and(
        eq(executionLeases.id, leaseId),
        eq(executionLeases.licenseId, licenseId),
        eq(executionLeases.machineId, machineId),
      ),
    );
  return lease ?? null;
}

/** A lease by id, for a replayed start. */
export async function leaseById(db: Database, licenseId: string, leaseId: string): Promise<LeaseRow | null> {
  const [lease] = await db
    .select()
    .from(executionLeases)
    .where(and(eq(executionLeases.id, leaseId), eq(executionLeases.licenseId, licenseId)));
  return lease ?? null;
}

/** Ends a lease (if it has not ended) and counts it as one execution, in the caller's transaction. */
async function endLease(tx: Database, lease: LeaseRow, reason: ExecutionEndReason, endedAt: Date) {
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
 * A heartbeat of a live lease, in one statement and without the license lock: extends it when it has not ended, has
 * not expired and its machine holds a slot. Null otherwise: the caller decides under the lock (heartbeatExecution).
 */
export async function keepAlive(
  db: Database,
  input: { licenseId: string; machineId: string; leaseId: string },
): Promise<LeaseRow | null> {
  const [lease] = await db
    .update(executionLeases)
    .set({
      lastHeartbeatAt: sql`clock_timestamp()`,
      expiresAt: sql`clock_timestamp() + make_interval(secs => ${executionExpiresAfterSeconds()})`,
    })
    .where(
      and(
        eq(executionLeases.id, input.leaseId),
        eq(executionLeases.licenseId, input.licenseId),
        eq(executionLeases.machineId, input.machineId),
        isNull(executionLeases.endedAt),
        sql`${executionLeases.expiresAt} > clock_timestamp()`,
        sql`exists (select 1 from ${machines} m where m.license_id = ${executionLeases.licenseId}
          and m.machine_id = ${executionLeases.machineId} and m.status = 'active')`,
      ),
    )
    .returning();
  return lease ?? null;
}

/** How many executions of the license run now (informational: the answer's `running`). */
export function runningCount(db: Database, licenseId: string): Promise<number> {
  return runningExecutionCount(db, new Date(), licenseId);
}

/**
 * Keeps a lease alive. One that expired comes back within the revival window if a slot is free (else the limit's
 * refusal, and it stays expired); after the window it has ended. A machine that lost its slot loses its executions.
 */
export async function heartbeatExecution(
  db: Database,
  input: { licenseId: string; machineId: string; leaseId: string; limit: number | null },
): Promise<HeartbeatOutcome> {
  return db.transaction(async (trx) => {
    const tx = trx as unknown as Database;
    const license = await lockLicense(tx, input.licenseId);
    const now = await lockOpenLeases(tx, input.licenseId);
    const lease = await findLease(tx, input.licenseId, input.machineId, input.leaseId);
    if (!lease) return { outcome: "not-found" };
    if (lease.endedAt) return { outcome: "ended", lease };
    const blocked = notInForce(license, now);
    if (blocked) return { outcome: "license-not-in-force", code: blocked };
    if (!(await machineHoldsSlot(tx, input.licenseId, input.machineId))) {
      await endLease(tx, lease, "expired", now);
      return { outcome: "not-activated" };
    }
    const running = await runningExecutions(tx, [input.licenseId], now);
    const alive = lease.expiresAt > now;
    if (!alive) {
      const revivableUntil = new Date(lease.expiresAt.getTime() + EXECUTION_RULES.revivalWindowSeconds * 1000);
      if (now > revivableUntil) {
        const ended = await endLease(tx, lease, "expired", lease.expiresAt);
        return { outcome: "ended", lease: ended ?? lease };
      }
      const onThisMachine = running.filter((other) => other.machineId === input.machineId).length;
      const full =
        input.limit === null ? onThisMachine >= EXECUTION_RULES.maxPerMachineUnlimited : running.length >= input.limit;
      if (full) return { outcome: "limit", running };
    }
    const [updated] = await tx
      .update(executionLeases)
      .set({ lastHeartbeatAt: now, expiresAt: expiryFrom(now) })
      .where(eq(executionLeases.id, lease.id))
      .returning();
    return { outcome: "alive", lease: updated!, revived: !alive, running: running.length + (alive ? 0 : 1) };
  });
}

/**
 * Ends a lease: by its app (completed), its owner or an admin. Idempotent: a lease already ended answers as it ended.
 * No lock needed: ending only frees, and the conditional write counts it once.
 */
export async function endExecution(
  db: Database,
  input: { licenseId: string; leaseId: string; machineId?: string; reason: ExecutionEndReason },
  /** Run in the ending transaction when this call ended it (the audit record of a forced end). */
  onEnded?: (tx: Database, lease: LeaseRow) => Promise<unknown>,
): Promise<{ outcome: "ended"; lease: LeaseRow; now: boolean } | { outcome: "not-found" }> {
  return db.transaction(async (trx) => {
    const tx = trx as unknown as Database;
    const [lease] = await tx
      .select()
      .from(executionLeases)
      .where(
        and(
          eq(executionLeases.id, input.leaseId),
          eq(executionLeases.licenseId, input.licenseId),
          input.machineId ? eq(executionLeases.machineId, input.machineId) : undefined,
        ),
      );
    if (!lease) return { outcome: "not-found" };
    if (lease.endedAt) return { outcome: "ended", lease, now: false };
    const ended = await endLease(tx, lease, input.reason, await databaseNow(tx));
    if (!ended) return { outcome: "ended", lease, now: false };
    await onEnded?.(tx, ended);
    return { outcome: "ended", lease: ended, now: true };
  });
}

/**
 * The sweep (culling job): leases silent past their revival window have ended — dated when they expired — and are
 * counted. Returns the keys of the licenses it changed.
 */
export async function sweepExpiredExecutions(tx: Database, now: Date): Promise<string[]> {
  const before = new Date(now.getTime() - EXECUTION_RULES.revivalWindowSeconds * 1000);
  const ended = await tx
    .update(executionLeases)
    .set({ endedAt: executionLeases.expiresAt, endReason: "expired" })
    .where(and(isNull(executionLeases.endedAt), lte(executionLeases.expiresAt, before)))
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

/** A license's most recent leases, running or not (the console). */
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
    })
    .from(executionLeases)
    .leftJoin(machines, itsMachine)
    .where(eq(executionLeases.licenseId, licenseId))
    .orderBy(desc(executionLeases.startedAt))
    .limit(limit);
}

/** Running leases across the service (the /metrics gauge), or of one license. */
export async function runningExecutionCount(db: Database, now: Date, licenseId?: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(executionLeases)
    .innerJoin(machines, onAMachineHoldingASlot)
    .where(
      and(
        licenseId ? eq(executionLeases.licenseId, licenseId) : undefined,
        isNull(executionLeases.endedAt),
        gt(executionLeases.expiresAt, now),
      ),
    );
  return row?.n ?? 0;
}
