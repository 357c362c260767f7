/** Every query of the licensing module. */
import type { TierFeatures } from "@flotilla/contracts/tiers";
import { and, asc, desc, eq, gte, lt, ne, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import {
  idempotencyKeys,
  licenses,
  machineRemovals,
  machines,
  usageReports,
  usageRollups,
  validationRollups,
} from "../../db/schema";

export type LicenseRow = typeof licenses.$inferSelect;
export type MachineRow = typeof machines.$inferSelect;

export interface LicenseState {
  license: LicenseRow;
  /** machine_id → is_primary */
  machines: Map<string, boolean>;
  /** Machines the owner removed: they do not bind again until allowed back. */
  removed: Set<string>;
}

export async function loadLicenseState(db: Database, licenseKey: string): Promise<LicenseState | null> {
  const rows = await db
    .select({ license: licenses, machineId: machines.machineId, isPrimary: machines.isPrimary })
    .from(licenses)
    .leftJoin(machines, eq(machines.licenseId, licenses.id))
    .where(eq(licenses.licenseKey, licenseKey));
  const first = rows[0];
  if (!first) return null;
  const bound = new Map<string, boolean>();
  for (const row of rows) if (row.machineId !== null) bound.set(row.machineId, row.isPrimary ?? false);
  const removed = await db
    .select({ machineId: machineRemovals.machineId })
    .from(machineRemovals)
    .where(eq(machineRemovals.licenseId, first.license.id));
  return { license: first.license, machines: bound, removed: new Set(removed.map((row) => row.machineId)) };
}

export type BindOutcome = { bound: true; isPrimary: boolean } | { bound: false; reason: "full" | "removed" };

/**
 * Binds a machine unless the license is full. The license row is locked for the transaction, so
 * concurrent binds — from any number of instances — are serialised and never exceed max_machines.
 */
export async function bindMachine(
  db: Database,
  licenseId: string,
  machine: { machineId: string; displayId: string; machineName?: string; platform?: string; appVersion?: string },
  now: Date,
  /** Runs in the binding's transaction (the audit record). */
  onBound?: (tx: Database, isPrimary: boolean) => Promise<unknown>,
): Promise<BindOutcome> {
  return db.transaction(async (tx) => {
    const [locked] = await tx
      .select({ maxMachines: licenses.maxMachines })
      .from(licenses)
      .where(eq(licenses.id, licenseId))
      .for("update");
    if (!locked) return { bound: false, reason: "full" };
    const existing = await tx
      .select({ machineId: machines.machineId, isPrimary: machines.isPrimary })
      .from(machines)
      .where(eq(machines.licenseId, licenseId));
    const already = existing.find((row) => row.machineId === machine.machineId);
    if (already) return { bound: true, isPrimary: already.isPrimary };
    // Removal and binding both lock the license row: a removal that committed first is always seen here.
    const [removed] = await tx
      .select({ id: machineRemovals.id })
      .from(machineRemovals)
      .where(and(eq(machineRemovals.licenseId, licenseId), eq(machineRemovals.machineId, machine.machineId)));
    if (removed) return { bound: false, reason: "removed" };
    if (existing.length >= locked.maxMachines) return { bound: false, reason: "full" };
    const isPrimary = existing.length === 0;
    await tx.insert(machines).values({
      licenseId,
      machineId: machine.machineId,
      displayId: machine.displayId,
      machineName: machine.machineName ?? null,
      platform: machine.platform ?? null,
      appVersion: machine.appVersion ?? null,
      isPrimary,
      boundAt: now,
      lastSeen: now,
    });
    await onBound?.(tx as unknown as Database, isPrimary);
    return { bound: true, isPrimary };
  });
}

/** Inserts the customer's license; null when they already have one (the unique index decides). */
export async function insertLicense(
  db: Database,
  row: { customerId: string; licenseKey: string; tier: string; maxMachines: number; features: TierFeatures },
): Promise<LicenseRow | null> {
  const [inserted] = await db
    .insert(licenses)
    .values(row)
    .onConflictDoNothing({ target: licenses.customerId })
    .returning();
  return inserted ?? null;
}

export async function licensesOfCustomer(db: Database, customerId: string) {
  const rows = await db
    .select({ license: licenses, primaryMachine: machines.machineId })
    .from(licenses)
    .leftJoin(machines, and(eq(machines.licenseId, licenses.id), eq(machines.isPrimary, true)))
    .where(eq(licenses.customerId, customerId))
    .orderBy(asc(licenses.createdAt));
  return rows;
}

/** The license with this key if — and only if — it belongs to this customer. */
export async function ownedLicense(db: Database, customerId: string, licenseKey: string): Promise<LicenseRow | null> {
  const [row] = await db
    .select()
    .from(licenses)
    .where(and(eq(licenses.licenseKey, licenseKey), eq(licenses.customerId, customerId)));
  return row ?? null;
}

export async function machinesOf(db: Database, licenseId: string): Promise<MachineRow[]> {
  return db.select().from(machines).where(eq(machines.licenseId, licenseId)).orderBy(asc(machines.boundAt));
}

export type RemoveOutcome = "removed" | "not-found" | "last-machine";

/**
 * Removes a machine (never the last one) and remembers the removal, so that the machine does not bind again on
 * its own; when the primary goes, the oldest remaining becomes primary.
 */
export async function removeMachine(
  db: Database,
  licenseId: string,
  machineId: string,
  now: Date,
  /** Runs in the removal's transaction (the audit record). */
  onRemoved?: (tx: Database, removed: MachineRow) => Promise<unknown>,
): Promise<RemoveOutcome> {
  return db.transaction(async (tx) => {
    await tx.select({ id: licenses.id }).from(licenses).where(eq(licenses.id, licenseId)).for("update");
    const bound = await tx
      .select()
      .from(machines)
      .where(eq(machines.licenseId, licenseId))
      .orderBy(asc(machines.boundAt));
    const target = bound.find((row) => row.machineId === machineId);
    if (!target) return "not-found";
    if (bound.length <= 1) return "last-machine";
    await tx.delete(machines).where(eq(machines.id, target.id));
    await tx
      .insert(machineRemovals)
      .values({
        licenseId,
        machineId: target.machineId,
        displayId: target.displayId,
        machineName: target.machineName,
        removedAt: now,
      })
      .onConflictDoUpdate({
        target: [machineRemovals.licenseId, machineRemovals.machineId],
        set: { removedAt: now },
      });
    if (target.isPrimary) {
      const next = bound.find((row) => row.id !== target.id);
      if (next) await tx.update(machines).set({ isPrimary: true }).where(eq(machines.id, next.id));
    }
    await onRemoved?.(tx as unknown as Database, target);
    return "removed";
  });
}

/** The owner lets a removed machine bind again (on its next validation, while a slot is free). */
export async function restoreMachine(db: Database, licenseId: string, machineId: string): Promise<boolean> {
  const rows = await db
    .delete(machineRemovals)
    .where(and(eq(machineRemovals.licenseId, licenseId), eq(machineRemovals.machineId, machineId)))
    .returning({ id: machineRemovals.id });
  return rows.length === 1;
}

export async function removedMachinesOf(db: Database, licenseId: string) {
  return db
    .select()
    .from(machineRemovals)
    .where(eq(machineRemovals.licenseId, licenseId))
    .orderBy(desc(machineRemovals.removedAt));
}

/**
 * Changes a license's status and nothing else: the expiry date is a separate fact (a reactivated license keeps
 * the end date it was sold with; an expired status needs no date).
 */
export async function setLicenseStatus(
  db: Database,
  licenseKey: string,
  status: "active" | "suspended" | "expired",
  now: Date,
): Promise<LicenseRow | null> {
  const [row] = await db
    .update(licenses)
    .set({ status, updatedAt: now })
    .where(eq(licenses.licenseKey, licenseKey))
    .returning();
  return row ?? null;
}

// ── Rolled-up counters ────────────────────────────────────────────────────────────────────────────

export interface AttemptIncrement {
  day: string;
  licenseKey: string;
  machineId: string;
  code: string;
  attempts: number;
}

/**
 * Rows per statement for batch writes: PostgreSQL takes at most 65,535 parameters per statement, and a flush after
 * an outage can hold far more rows than fit in one.
 */
export const WRITE_CHUNK_ROWS = 1_000;

function chunks<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < rows.length; at += WRITE_CHUNK_ROWS) out.push(rows.slice(at, at + WRITE_CHUNK_ROWS));
  return out;
}

export async function addValidationAttempts(db: Database, rows: AttemptIncrement[]): Promise<void> {
  for (const chunk of chunks(rows)) await addValidationAttemptChunk(db, chunk);
}

async function addValidationAttemptChunk(db: Database, rows: AttemptIncrement[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insert(validationRollups)
    .values(rows)
    .onConflictDoUpdate({
      target: [
        validationRollups.licenseKey,
        validationRollups.day,
        validationRollups.machineId,
        validationRollups.code,
      ],
      set: { attempts: sql`${validationRollups.attempts} + excluded.attempts` },
    });
}

/** Last-seen times for machines and licenses, written in one statement each per chunk. */
export async function touchLastSeen(db: Database, seen: { licenseId: string; machineId: string; at: Date }[]) {
  for (const chunk of chunks(seen)) await touchLastSeenChunk(db, chunk);
}

async function touchLastSeenChunk(db: Database, seen: { licenseId: string; machineId: string; at: Date }[]) {
  if (seen.length === 0) return;
  const values = sql.join(
    seen.map((row) => sql`(${row.licenseId}::uuid, ${row.machineId}, ${row.at.toISOString()}::timestamptz)`),
    sql`, `,
  );
  await db.execute(sql`
    update machines m set last_seen = greatest(coalesce(m.last_seen, v.at), v.at)
    from (values ${values}) as v(license_id, machine_id, at)
    where m.license_id = v.license_id and m.machine_id = v.machine_id`);
  await db.execute(sql`
    update licenses l set last_seen = greatest(coalesce(l.last_seen, v.at), v.at)
    from (select license_id, max(at) as at from (values ${values}) as v(license_id, machine_id, at) group by license_id) as v
    where l.id = v.license_id`);
}

export async function recordUsage(
  tx: Database,
  row: { licenseId: string; machineId: string; feature: string; executions: number; day: string },
) {
  await tx.insert(usageReports).values({
    licenseId: row.licenseId,
    machineId: row.machineId,
    feature: row.feature,
    executions: row.executions,
  });
  await tx
    .insert(usageRollups)
    .values({
      licenseId: row.licenseId,
      day: row.day,
      machineId: row.machineId,
      feature: row.feature,
      executions: row.executions,
    })
    .onConflictDoUpdate({
      target: [usageRollups.licenseId, usageRollups.day, usageRollups.machineId, usageRollups.feature],
      set: { executions: sql`${usageRollups.executions} + excluded.executions` },
    });
}

/** Usage rollups of any of these licenses (ids cast to uuid for both PGlite and PostgreSQL). */
function usageOfLicenses(licenseIds: string[]) {
  return sql`${usageRollups.licenseId} in (${sql.join(
    licenseIds.map((id) => sql`${id}::uuid`),
    sql`, `,
  )})`;
}

export async function executionsSince(db: Database, licenseIds: string[], since: string | null): Promise<number> {
  if (licenseIds.length === 0) return 0;
  const [row] = await db
    .select({ total: sql<string>`coalesce(sum(${usageRollups.executions}), 0)` })
    .from(usageRollups)
    .where(and(usageOfLicenses(licenseIds), since ? gte(usageRollups.day, since) : undefined));
  return Number(row?.total ?? 0);
}

export async function topFeatures(db: Database, licenseIds: string[], limit: number): Promise<string[]> {
  if (licenseIds.length === 0) return [];
  const rows = await db
    .select({ feature: usageRollups.feature, total: sql<string>`sum(${usageRollups.executions})` })
    .from(usageRollups)
    .where(and(usageOfLicenses(licenseIds), ne(usageRollups.feature, "")))
    .groupBy(usageRollups.feature)
    .orderBy(desc(sql`sum(${usageRollups.executions})`), asc(usageRollups.feature))
    .limit(limit);
  return rows.map((row) => row.feature);
}

export async function validationStats(db: Database, licenseKey: string, since: string) {
  return db
    .select({
      machineId: validationRollups.machineId,
      total: sql<number>`sum(${validationRollups.attempts})::int`,
      successful: sql<number>`coalesce(sum(${validationRollups.attempts}) filter (where ${validationRollups.code} = 'VALID'), 0)::int`,
    })
    .from(validationRollups)
    .where(and(eq(validationRollups.licenseKey, licenseKey), gte(validationRollups.day, since)))
    .groupBy(validationRollups.machineId)
    .orderBy(desc(sql`sum(${validationRollups.attempts})`));
}

// ── Idempotency ───────────────────────────────────────────────────────────────────────────────────

/** The live answer stored for a key (younger than `expiredBefore` is not), or null. */
export async function findIdempotentAnswer(db: Database, scope: string, key: string, expiredBefore: Date) {
  const [row] = await db
    .select()
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.scope, scope),
        eq(idempotencyKeys.key, key),
        gte(idempotencyKeys.createdAt, expiredBefore),
      ),
    );
  return row ?? null;
}

/**
 * Claims the key inside the caller's transaction; false when another request holds it and it is still live.
 * A key older than `expiredBefore` is free again (retention deletes it later): it never replays after that.
 */
export async function claimIdempotencyKey(
  tx: Database,
  row: { scope: string; key: string; requestHash: string; statusCode: number; response: unknown },
  now: Date,
  expiredBefore: Date,
): Promise<boolean> {
  const inserted = await tx
    .insert(idempotencyKeys)
    .values({ ...row, createdAt: now })
    .onConflictDoUpdate({
      target: [idempotencyKeys.scope, idempotencyKeys.key],
      set: { requestHash: row.requestHash, statusCode: row.statusCode, response: row.response, createdAt: now },
      setWhere: lt(idempotencyKeys.createdAt, expiredBefore),
    })
    .returning({ key: idempotencyKeys.key });
  return inserted.length === 1;
}

export async function storeIdempotentResponse(tx: Database, scope: string, key: string, response: unknown) {
  await tx
    .update(idempotencyKeys)
    .set({ response })
    .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
}
