/**
 * The licensing module's reads, counters, usage and idempotency. What changes who holds a slot or an execution lives
 * in seats/ (decision 0051), under the license's seat lock.
 */
import { and, asc, desc, eq, gt, gte, inArray, lt, ne, type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import {
  activationRefusals,
  idempotencyKeys,
  licenseKeyAliases,
  licenses,
  machineRemovals,
  machines,
  revokedLicenseFiles,
  usageReports,
  usageRollups,
  validationRollups,
} from "../../db/schema";

export type LicenseRow = typeof licenses.$inferSelect;
export type MachineRow = typeof machines.$inferSelect;

export interface LicenseState {
  license: LicenseRow;
  /** Machines holding a slot: machine_id → is_primary */
  machines: Map<string, boolean>;
  /** Machines that lost their slot by silence (culled); they may come back within the revival window. */
  inactive: Set<string>;
  /** Machines the owner removed: they do not bind again until allowed back. */
  removed: Set<string>;
  /** Set when the key asked for is a rotated one: it stops working then (a cached state must not outlive it). */
  keyValidUntil: Date | null;
}

/**
 * The license a key names — its current key, or a rotated one still within its grace — with its machines.
 */
export async function loadLicenseState(
  db: Database,
  licenseKey: string,
  now = new Date(),
): Promise<LicenseState | null> {
  let [license] = await db.select().from(licenses).where(eq(licenses.licenseKey, licenseKey));
  let keyValidUntil: Date | null = null;
  if (!license) {
    const [alias] = await db
      .select({ license: licenses, validUntil: licenseKeyAliases.validUntil })
      .from(licenseKeyAliases)
      .innerJoin(licenses, eq(licenses.id, licenseKeyAliases.licenseId))
      .where(and(eq(licenseKeyAliases.licenseKey, licenseKey), gt(licenseKeyAliases.validUntil, now)));
    license = alias?.license;
    keyValidUntil = alias?.validUntil ?? null;
  }
  if (!license) return null;
  const [bound, removed] = await Promise.all([
    db
      .select({ machineId: machines.machineId, isPrimary: machines.isPrimary, status: machines.status })
      .from(machines)
      .where(eq(machines.licenseId, license.id)),
    db
      .select({ machineId: machineRemovals.machineId })
      .from(machineRemovals)
      .where(eq(machineRemovals.licenseId, license.id)),
  ]);
  const active = new Map<string, boolean>();
  const inactive = new Set<string>();
  for (const row of bound) {
    if (row.status === "active") active.set(row.machineId, row.isPrimary);
    else inactive.add(row.machineId);
  }
  return { license, machines: active, inactive, removed: new Set(removed.map((row) => row.machineId)), keyValidUntil };
}

export async function refusalsOf(db: Database, licenseIds: string[]) {
  if (licenseIds.length === 0) return [];
  return db
    .select()
    .from(activationRefusals)
    .where(inArray(activationRefusals.licenseId, licenseIds))
    .orderBy(desc(activationRefusals.refusedAt));
}

export async function dismissRefusals(db: Database, licenseId: string): Promise<void> {
  await db.delete(activationRefusals).where(eq(activationRefusals.licenseId, licenseId));
}

/** Until when a license's previous key still works, if it was rotated within the grace. */
export async function previousKeyGrace(db: Database, licenseIds: string[], now: Date): Promise<Map<string, Date>> {
  if (licenseIds.length === 0) return new Map();
  const rows = await db
    .select({ licenseId: licenseKeyAliases.licenseId, validUntil: licenseKeyAliases.validUntil })
    .from(licenseKeyAliases)
    .where(and(inArray(licenseKeyAliases.licenseId, licenseIds), gt(licenseKeyAliases.validUntil, now)));
  const latest = new Map<string, Date>();
  for (const row of rows) {
    const seen = latest.get(row.licenseId);
    if (!seen || row.validUntil > seen) latest.set(row.licenseId, row.validUntil);
  }
  return latest;
}

/** Inserts the customer's license; null when they already have one (the unique index decides). */
export async function insertLicense(
  db: Database,
  row: { customerId: string; licenseKey: string; tier: string; maxMachines: number },
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

/**
 * The license this customer's key named before a rotation still within its grace, or null. For reads only: a page
 * (or another tab) that asked by the old key a moment before the rotation's answer arrived is answered, not told 404;
 * a change by the old key is still refused.
 */
export async function ownedLicenseByPreviousKey(
  db: Database,
  customerId: string,
  licenseKey: string,
  now = new Date(),
): Promise<LicenseRow | null> {
  const [aliased] = await db
    .select({ license: licenses })
    .from(licenseKeyAliases)
    .innerJoin(licenses, eq(licenses.id, licenseKeyAliases.licenseId))
    .where(
      and(
        eq(licenseKeyAliases.licenseKey, licenseKey),
        gt(licenseKeyAliases.validUntil, now),
        eq(licenses.customerId, customerId),
      ),
    );
  return aliased?.license ?? null;
}

export async function machinesOf(db: Database, licenseId: string): Promise<MachineRow[]> {
  return db.select().from(machines).where(eq(machines.licenseId, licenseId)).orderBy(asc(machines.boundAt));
}

/** Removed machines, newest first, each with the end of its revoked license file while that still works. */
export async function removedMachinesOf(db: Database, licenseId: string, now: Date) {
  const [removed, revoked] = await Promise.all([
    db
      .select()
      .from(machineRemovals)
      .where(eq(machineRemovals.licenseId, licenseId))
      .orderBy(desc(machineRemovals.removedAt)),
    db
      .select({ machineId: revokedLicenseFiles.machineId, validUntil: revokedLicenseFiles.validUntil })
      .from(revokedLicenseFiles)
      .where(and(eq(revokedLicenseFiles.licenseId, licenseId), gt(revokedLicenseFiles.validUntil, now))),
  ]);
  const fileUntil = new Map<string, Date>();
  for (const row of revoked) {
    const seen = fileUntil.get(row.machineId);
    if (!seen || row.validUntil > seen) fileUntil.set(row.machineId, row.validUntil);
  }
  return removed.map((row) => ({ ...row, licenseFileUntil: fileUntil.get(row.machineId) ?? null }));
}

// ── Rolled-up counters ────────────────────────────────────────────────────────────────────────────

export interface AttemptIncrement {
  day: string;
  /** The license the key named (current or rotated key alike); null for a key that names none. */
  licenseId: string | null;
  machineId: string;
  code: string;
  attempts: number;
}

/**
 * Rows per statement of the counter flush (validation counters, last-seen times). The flush is background work, so it
 * writes in small statements and gives the event loop a turn between them: requests read meanwhile send their
 * statements first. On the embedded database a statement runs on the process's only thread (PGlite): one 200-row
 * last-seen write took 11–15 ms there every second, and every request that arrived meanwhile waited for all of it
 * (issue 35); 32 rows take about 1 ms. On PostgreSQL each statement holds its rows' locks as briefly. (PostgreSQL takes
 * at most 65,535 parameters per statement, and a flush after an outage can hold far more rows than fit in one.)
 */
export const WRITE_CHUNK_ROWS = 32;

/** A batch write that failed part-way: the statements before it were committed, these rows were not. */
export class PartlyWritten<T> extends Error {
  constructor(
    readonly unwritten: T[],
    options: { cause: unknown },
  ) {
    super(`${unwritten.length} rows were not written`, options);
  }
}

/**
 * Writes rows WRITE_CHUNK_ROWS at a time, each statement on a turn of the event loop (its timers phase) of its own. A
 * failed statement throws PartlyWritten with its rows and the ones after it: a retry must not write the others twice.
 */
async function inTurns<T>(rows: T[], write: (chunk: T[]) => Promise<void>): Promise<void> {
  for (let at = 0; at < rows.length; at += WRITE_CHUNK_ROWS) {
    // setImmediate would come back before the statements of requests read in this turn (they are sent from the same
    // check phase, queued after it); a timer comes back after them.
    await new Promise((resolve) => setTimeout(resolve, 0));
    try {
      await write(rows.slice(at, at + WRITE_CHUNK_ROWS));
    } catch (error) {
      throw new PartlyWritten(rows.slice(at), { cause: error });
    }
  }
}

export async function addValidationAttempts(db: Database, rows: AttemptIncrement[]): Promise<void> {
  await inTurns(rows, (chunk) => addValidationAttemptChunk(db, chunk));
}

async function addValidationAttemptChunk(db: Database, rows: AttemptIncrement[]): Promise<void> {
  if (rows.length === 0) return;
  const values = sql.join(
    rows.map(
      (row) =>
        sql`(${row.day}::date, ${row.licenseId}::uuid, ${row.machineId}::text, ${row.code}::text, ${row.attempts}::int)`,
    ),
    sql`, `,
  );
  // A license deleted while its counters waited in memory takes them with it (they would fail the foreign key, and
  // a failed chunk is retried: one such row must not hold back every other counter).
  await db.execute(sql`
    insert into validation_rollups (day, license_id, machine_id, code, attempts)
    select v.day, v.license_id, v.machine_id, v.code, v.attempts
    from (values ${values}) as v(day, license_id, machine_id, code, attempts)
    where v.license_id is null or exists (select 1 from licenses l where l.id = v.license_id)
    on conflict (license_id, day, machine_id, code)
    do update set attempts = validation_rollups.attempts + excluded.attempts`);
}

type SeenMachine = { licenseId: string; machineId: string; at: Date };

/** Last-seen times: the machines', then their licenses', WRITE_CHUNK_ROWS rows a statement (inTurns). */
export async function touchLastSeen(db: Database, seen: SeenMachine[]) {
  await inTurns(seen, (chunk) => touchMachinesLastSeen(db, chunk));
  await inTurns(seen, (chunk) => touchLicensesLastSeen(db, chunk));
}

function seenValues(seen: SeenMachine[]) {
  return sql.join(
    seen.map((row) => sql`(${row.licenseId}::uuid, ${row.machineId}, ${row.at.toISOString()}::timestamptz)`),
    sql`, `,
  );
}

// Rows are locked in id order, as every other locker of these rows does (lockLicense): two flushes from two
// instances, or a flush and a seat change, can then never each hold a row the other waits for.
async function touchMachinesLastSeen(db: Database, seen: SeenMachine[]) {
  const values = seenValues(seen);
  await db.execute(sql`
    update machines m set last_seen = greatest(coalesce(m.last_seen, v.at), v.at)
    from (values ${values}) as v(license_id, machine_id, at),
      (select x.id from machines x join (values ${values}) as w(license_id, machine_id, at)
         on x.license_id = w.license_id and x.machine_id = w.machine_id
       order by x.id for update of x) as locked
    where m.id = locked.id and m.license_id = v.license_id and m.machine_id = v.machine_id`);
}

async function touchLicensesLastSeen(db: Database, seen: SeenMachine[]) {
  const values = seenValues(seen);
  await db.execute(sql`
    update licenses l set last_seen = greatest(coalesce(l.last_seen, v.at), v.at)
    from (select license_id, max(at) as at from (values ${values}) as v(license_id, machine_id, at) group by license_id) as v,
      (select x.id from licenses x
       where x.id in (select license_id from (values ${values}) as w(license_id, machine_id, at))
       order by x.id for no key update of x) as locked
    where l.id = locked.id and l.id = v.license_id`);
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

/**
 * recordUsage's two writes as data-modifying CTEs of the caller's statement: one execution for each row of `ended`
 * (a CTE of ended execution_leases rows), on the UTC day it ended. Ending a lease in one statement (endByApp).
 */
export function usageOfEnded(ended: SQL) {
  return sql`reported as (
      insert into ${usageReports} (license_id, machine_id, feature, executions)
      select license_id, machine_id, feature, 1 from ${ended}
    ), rolled_up as (
      insert into ${usageRollups} (license_id, day, machine_id, feature, executions)
      select license_id, (ended_at at time zone 'UTC')::date, machine_id, feature, 1 from ${ended}
      on conflict (license_id, day, machine_id, feature)
      do update set executions = ${usageRollups}.executions + excluded.executions
    )`;
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

/** Executions each device of the license started since the day, by raw machine id. */
export async function executionsByMachine(
  db: Database,
  licenseId: string,
  since: string,
): Promise<Map<string, number>> {
  const rows = await db
    .select({ machineId: usageRollups.machineId, total: sql<string>`sum(${usageRollups.executions})` })
    .from(usageRollups)
    .where(and(eq(usageRollups.licenseId, licenseId), gte(usageRollups.day, since)))
    .groupBy(usageRollups.machineId);
  return new Map(rows.map((row) => [row.machineId, Number(row.total)]));
}

export async function validationStats(db: Database, licenseId: string, since: string) {
  return db
    .select({
      machineId: validationRollups.machineId,
      total: sql<number>`sum(${validationRollups.attempts})::int`,
      successful: sql<number>`coalesce(sum(${validationRollups.attempts}) filter (where ${validationRollups.code} = 'VALID'), 0)::int`,
    })
    .from(validationRollups)
    .where(and(eq(validationRollups.licenseId, licenseId), gte(validationRollups.day, since)))
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
