/** Every query of the licensing module. */
import { inactiveAfterSeconds, revokedFilesAllowed, SEAT_RULES } from "@flotilla/contracts/seats";
import { TIERS, type TierFeatures } from "@flotilla/contracts/tiers";
import { and, asc, count, desc, eq, gt, gte, inArray, lt, ne, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import {
  activationRefusals,
  idempotencyKeys,
  licenseKeyAliases,
  licenses,
  machineEvents,
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

export type BindOutcome =
  | { bound: true; isPrimary: boolean; revived: boolean }
  | { bound: false; reason: "full" | "removed" | "activation-limit" };

const DAY_MS = 24 * 60 * 60 * 1000;

async function eventsSince(tx: Database, licenseId: string, kind: string, since: Date): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(machineEvents)
    .where(and(eq(machineEvents.licenseId, licenseId), eq(machineEvents.kind, kind), gte(machineEvents.at, since)));
  return row?.n ?? 0;
}

/**
 * Binds a machine unless the license is full, or brings back a machine that lost its slot by silence. New machines
 * are capped per license per 24 hours (SEAT_RULES.activationsPerDay), so one key cannot be passed around a crowd.
 * The license row is locked for the transaction, so concurrent binds — from any number of instances — are
 * serialised and never exceed max_machines. A bound machine's refusal notice is cleared.
 */
export async function bindMachine(
  db: Database,
  licenseId: string,
  machine: { machineId: string; displayId: string; machineName?: string; platform?: string; appVersion?: string },
  now: Date,
  /** Runs in the binding's (or revival's) transaction: the audit record. */
  onBound?: (tx: Database, isPrimary: boolean, revived: boolean) => Promise<unknown>,
): Promise<BindOutcome> {
  return db.transaction(async (tx) => {
    const locked = await lockLicense(tx as unknown as Database, licenseId);
    if (!locked) return { bound: false, reason: "full" };
    const existing = await tx
      .select({
        id: machines.id,
        machineId: machines.machineId,
        isPrimary: machines.isPrimary,
        status: machines.status,
      })
      .from(machines)
      .where(eq(machines.licenseId, licenseId));
    const activeCount = existing.filter((row) => row.status === "active").length;
    const already = existing.find((row) => row.machineId === machine.machineId);
    if (already?.status === "active") return { bound: true, isPrimary: already.isPrimary, revived: false };
    if (already) {
      // Back within the revival window (later ones are forgotten by the culling job): its slot, if one is free.
      if (activeCount >= locked.maxMachines) return { bound: false, reason: "full" };
      await tx
        .update(machines)
        .set({ status: "active", inactiveSince: null, lastSeen: now })
        .where(eq(machines.id, already.id));
      await tx.insert(machineEvents).values({ licenseId, machineId: machine.machineId, kind: "revived", at: now });
      await tx
        .delete(activationRefusals)
        .where(and(eq(activationRefusals.licenseId, licenseId), eq(activationRefusals.machineId, machine.machineId)));
      await onBound?.(tx as unknown as Database, already.isPrimary, true);
      return { bound: true, isPrimary: already.isPrimary, revived: true };
    }
    // Removal and binding both lock the license row: a removal that committed first is always seen here.
    const [removed] = await tx
      .select({ id: machineRemovals.id })
      .from(machineRemovals)
      .where(and(eq(machineRemovals.licenseId, licenseId), eq(machineRemovals.machineId, machine.machineId)));
    if (removed) return { bound: false, reason: "removed" };
    if (activeCount >= locked.maxMachines) return { bound: false, reason: "full" };
    const activations = await eventsSince(
      tx as unknown as Database,
      licenseId,
      "activated",
      new Date(now.getTime() - DAY_MS),
    );
    if (activations >= SEAT_RULES.activationsPerDay) return { bound: false, reason: "activation-limit" };
    const isPrimary = !existing.some((row) => row.isPrimary);
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
    await tx.insert(machineEvents).values({ licenseId, machineId: machine.machineId, kind: "activated", at: now });
    await tx
      .delete(activationRefusals)
      .where(and(eq(activationRefusals.licenseId, licenseId), eq(activationRefusals.machineId, machine.machineId)));
    await onBound?.(tx as unknown as Database, isPrimary, false);
    return { bound: true, isPrimary, revived: false };
  });
}

/**
 * Every change to who holds a slot of a license — bind, revive, lease, remove, revoke, deactivate, restore, rotate,
 * refusal notices, admin changes — decides inside one transaction that first takes this lock, so two of them never
 * decide from the same state (decision 0036). It locks, in the order every locker uses:
 *
 *   1. the license row, FOR NO KEY UPDATE: it excludes the other changes of this license, but not the foreign-key
 *      checks of rows that merely point at the license (machine events, audit rows), which take FOR KEY SHARE — with
 *      FOR UPDATE those waited on it while their transaction held a machine row this one needed: a deadlock the
 *      model test found on PostgreSQL;
 *   2. the license's machine rows, in id order: the counter flush and the culling job lock machine rows in the same
 *      order (touchLastSeen, cullSilentMachines), so no two of them can each hold a row the other waits for.
 *
 * The culling job takes the same lock, but SKIP LOCKED: it never waits, and culls a license being changed next round.
 * Returns the locked row, or null when the license is gone.
 */
export async function lockLicense(tx: Database, licenseId: string): Promise<LicenseRow | null> {
  const [row] = await tx.select().from(licenses).where(eq(licenses.id, licenseId)).for("no key update");
  if (!row) return null;
  await tx
    .select({ id: machines.id })
    .from(machines)
    .where(eq(machines.licenseId, licenseId))
    .orderBy(asc(machines.id))
    .for("update");
  return row;
}

/** lockLicense for the license a key names now (a rotated key names none). */
export async function lockLicenseByKey(tx: Database, licenseKey: string): Promise<LicenseRow | null> {
  const [found] = await tx.select({ id: licenses.id }).from(licenses).where(eq(licenses.licenseKey, licenseKey));
  return found ? lockLicense(tx, found.id) : null;
}

/**
 * A license file issued to a machine: its slot is held until the file expires (culling skips it). Decided under the
 * license lock, so a removal or deactivation deciding at the same moment sees the lease or runs first: false when
 * the machine holds no slot (removed, deactivated or culled since the caller's cached read) or the license is no
 * longer in force, and no file may then be issued.
 */
export async function extendLease(
  db: Database,
  licenseId: string,
  machineId: string,
  until: Date,
  now: Date,
  /** Runs in the lease's transaction (the audit record). */
  onLeased?: (tx: Database) => Promise<unknown>,
): Promise<"leased" | "refused" | "files-disabled"> {
  return db.transaction(async (trx) => {
    const tx = trx as unknown as Database;
    const license = await lockLicense(tx, licenseId);
    if (license?.status !== "active" || (license.expiresAt && license.expiresAt <= now)) return "refused";
    if (!license.offlineFilesAllowed) return "files-disabled";
    const rows = await tx
      .update(machines)
      .set({
        leaseUntil: sql`greatest(coalesce(${machines.leaseUntil}, ${until.toISOString()}::timestamptz), ${until.toISOString()}::timestamptz)`,
      })
      .where(and(eq(machines.licenseId, licenseId), eq(machines.machineId, machineId), eq(machines.status, "active")))
      .returning({ id: machines.id });
    if (rows.length !== 1) return "refused";
    await onLeased?.(tx);
    return "leased";
  });
}

/** A machine's slot is free to give back only when no license file issued to it still works (re-checked in the write). */
const noWorkingFile = (now: Date) =>
  sql`(${machines.leaseUntil} is null or ${machines.leaseUntil} <= ${now.toISOString()}::timestamptz)`;

/** A device refused because the license was full: the owner sees the latest few on the dashboard. */
export async function recordRefusal(
  db: Database,
  licenseId: string,
  machine: { machineId: string; displayId: string; machineName?: string; platform?: string },
  now: Date,
  /**
   * Runs in the same transaction when this refusal starts a notice (none was showing): the owner hears once per
   * notice, not once per refused attempt, so a key passed around a crowd cannot flood their inbox.
   */
  onFirstRefusal?: (tx: Database) => Promise<unknown>,
) {
  await db.transaction(async (trx) => {
    const tx = trx as unknown as Database;
    // Refusals of one license run one at a time, under the lock binds take first: concurrent upserts and prunes
    // of the same rows would otherwise deadlock, and "was a notice showing?" must not race. A license deleted
    // meanwhile (its owner erased, decision 0046) has no owner left to tell.
    if (!(await lockLicense(tx, licenseId))) return;
    const [showing] = await tx
      .select({ n: count() })
      .from(activationRefusals)
      .where(eq(activationRefusals.licenseId, licenseId));
    await insertRefusal(tx, licenseId, machine, now);
    if ((showing?.n ?? 0) === 0) await onFirstRefusal?.(tx);
  });
}

async function insertRefusal(
  db: Database,
  licenseId: string,
  machine: { machineId: string; displayId: string; machineName?: string; platform?: string },
  now: Date,
) {
  await db
    .insert(activationRefusals)
    .values({
      licenseId,
      machineId: machine.machineId,
      displayId: machine.displayId,
      machineName: machine.machineName ?? null,
      platform: machine.platform ?? null,
      refusedAt: now,
    })
    .onConflictDoUpdate({
      target: [activationRefusals.licenseId, activationRefusals.machineId],
      set: { refusedAt: now, machineName: machine.machineName ?? null, platform: machine.platform ?? null },
    });
  // Keep the most recent few: a key passed around cannot grow the table.
  await db.execute(sql`
    delete from activation_refusals where license_id = ${licenseId}::uuid and machine_id not in (
      select machine_id from activation_refusals where license_id = ${licenseId}::uuid
      order by refused_at desc limit ${SEAT_RULES.refusalsKept}
    )`);
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

export type DeactivateOutcome = "deactivated" | "not-found" | "limit" | "leased";

/**
 * The app frees its own slot (the machine is forgotten, not barred: it can activate again). Capped per license per
 * 24 hours (SEAT_RULES.deactivationsPerDay), so activating and deactivating in turn cannot share one seat around.
 */
export async function deactivateMachine(
  db: Database,
  licenseId: string,
  machineId: string,
  now: Date,
  /** Runs in the deactivation's transaction (the audit record). */
  onDeactivated?: (tx: Database, machine: MachineRow) => Promise<unknown>,
): Promise<{ outcome: DeactivateOutcome; left: number; leaseUntil?: Date; retryAfterSeconds?: number }> {
  return db.transaction(async (tx) => {
    await lockLicense(tx as unknown as Database, licenseId);
    const [target] = await tx
      .select()
      .from(machines)
      .where(and(eq(machines.licenseId, licenseId), eq(machines.machineId, machineId)));
    const used = await eventsSince(
      tx as unknown as Database,
      licenseId,
      "deactivated",
      new Date(now.getTime() - DAY_MS),
    );
    const left = Math.max(0, SEAT_RULES.deactivationsPerDay - used);
    if (!target) return { outcome: "not-found", left };
    // A license file still working offline keeps its slot: freeing it would let a copy run beside a new machine.
    if (target.leaseUntil && target.leaseUntil > now) return { outcome: "leased", left, leaseUntil: target.leaseUntil };
    if (left === 0) {
      // The cap frees up when the oldest deactivation of the window is 24 hours old.
      const [oldest] = await tx
        .select({ at: machineEvents.at })
        .from(machineEvents)
        .where(
          and(
            eq(machineEvents.licenseId, licenseId),
            eq(machineEvents.kind, "deactivated"),
            gte(machineEvents.at, new Date(now.getTime() - DAY_MS)),
          ),
        )
        .orderBy(asc(machineEvents.at))
        .limit(1);
      const freesAt = (oldest?.at.getTime() ?? now.getTime()) + DAY_MS;
      return { outcome: "limit", left, retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000)) };
    }
    const deleted = await tx
      .delete(machines)
      .where(and(eq(machines.id, target.id), noWorkingFile(now)))
      .returning({ id: machines.id });
    if (deleted.length === 0) return { outcome: "leased", left, leaseUntil: target.leaseUntil ?? now };
    await tx.insert(machineEvents).values({ licenseId, machineId, kind: "deactivated", at: now });
    if (target.isPrimary) await promoteOldest(tx as unknown as Database, licenseId);
    await onDeactivated?.(tx as unknown as Database, target);
    return { outcome: "deactivated", left: left - 1 };
  });
}

/** The oldest remaining machine becomes primary (the first machine bound is primary; spec). */
async function promoteOldest(tx: Database, licenseId: string) {
  const [next] = await tx
    .select({ id: machines.id })
    .from(machines)
    .where(eq(machines.licenseId, licenseId))
    .orderBy(asc(machines.boundAt))
    .limit(1);
  if (next) await tx.update(machines).set({ isPrimary: true }).where(eq(machines.id, next.id));
}

/**
 * The culling job's work: machines silent longer than their tier's heartbeat interval plus the drift allowance lose
 * their slot (inactive); inactive machines past the revival window are forgotten. Returns the license keys that
 * changed, for cache invalidation.
 *
 * It decides under the license lock every slot change takes (lockLicense), taken SKIP LOCKED: a license being changed
 * right now is culled at the next run instead of waited for, so the job — which locks many licenses in one
 * transaction — can never be one half of a deadlock. The writes still re-check the lease and the status.
 */
export async function cullSilentMachines(
  tx: Database,
  now: Date,
  /** Runs in the job's transaction for each machine that lost its slot (the audit record). */
  onCulled?: (tx: Database, machine: { licenseId: string; machineId: string; silentSince: Date }) => Promise<unknown>,
): Promise<{ culled: number; forgotten: number; keys: string[] }> {
  const keys = new Set<string>();
  const at = now.toISOString();
  let culled = 0;
  for (const tier of Object.values(TIERS)) {
    const cutoff = new Date(now.getTime() - inactiveAfterSeconds(tier.heartbeatIntervalSeconds) * 1000);
    const silent = sql`m.status = 'active' and coalesce(m.last_seen, m.bound_at) < ${cutoff.toISOString()}::timestamptz
      and (m.lease_until is null or m.lease_until <= ${at}::timestamptz)`;
    const locked = await lockLicensesWhere(tx, sql`l.tier = ${tier.tier}`, silent);
    if (locked.length === 0) continue;
    const rows = (await tx.execute(sql`
      with silent as (
        update machines m set status = 'inactive', inactive_since = ${at}::timestamptz
        from licenses l
        where l.id = m.license_id and m.license_id = any(${sqlUuids(locked)}) and ${silent}
        returning m.license_id, m.machine_id, l.license_key
      ), logged as (
        insert into machine_events (license_id, machine_id, kind, at)
        select license_id, machine_id, 'culled', ${at}::timestamptz from silent
      )
      select license_id, machine_id, license_key from silent`)) as unknown as {
      rows: { license_id: string; machine_id: string; license_key: string }[];
    };
    culled += rows.rows.length;
    for (const row of rows.rows) {
      keys.add(row.license_key);
      await onCulled?.(tx, { licenseId: row.license_id, machineId: row.machine_id, silentSince: cutoff });
    }
  }
  const stale = sql`m.status = 'inactive'
    and m.inactive_since < ${new Date(now.getTime() - SEAT_RULES.revivalWindowSeconds * 1000).toISOString()}::timestamptz`;
  const lockedForForgetting = await lockLicensesWhere(tx, sql`true`, stale);
  if (lockedForForgetting.length === 0) return { culled, forgotten: 0, keys: [...keys] };
  const forgotten = (await tx.execute(sql`
    with gone as (
      delete from machines m using licenses l
      where l.id = m.license_id and m.license_id = any(${sqlUuids(lockedForForgetting)}) and ${stale}
      returning m.license_id, m.machine_id, m.is_primary, l.license_key
    ), logged as (
      insert into machine_events (license_id, machine_id, kind, at)
      select license_id, machine_id, 'forgotten', ${at}::timestamptz from gone
    )
    select license_id, is_primary, license_key from gone`)) as unknown as {
    rows: { license_id: string; is_primary: boolean; license_key: string }[];
  };
  for (const row of forgotten.rows) {
    keys.add(row.license_key);
    if (row.is_primary) await promoteOldest(tx, row.license_id);
  }
  return { culled, forgotten: forgotten.rows.length, keys: [...keys] };
}

/** A uuid[] parameter that PGlite and PostgreSQL both read. */
function sqlUuids(ids: string[]) {
  return sql`array[${sql.join(
    ids.map((id) => sql`${id}::uuid`),
    sql`, `,
  )}]::uuid[]`;
}

/**
 * Takes lockLicense's lock, SKIP LOCKED, on every license matching `licenseWhere` that has a machine matching
 * `machineWhere` (aliases l and m): the licenses, then their machines, in id order. Returns the ids it locked.
 */
async function lockLicensesWhere(
  tx: Database,
  licenseWhere: ReturnType<typeof sql>,
  machineWhere: ReturnType<typeof sql>,
): Promise<string[]> {
  const locked = (await tx.execute(sql`
    select l.id from licenses l
    where ${licenseWhere} and exists (select 1 from machines m where m.license_id = l.id and ${machineWhere})
    order by l.id for no key update skip locked`)) as unknown as { rows: { id: string }[] };
  const ids = locked.rows.map((row) => row.id);
  if (ids.length === 0) return ids;
  await tx.execute(sql`
    select m.id from machines m where m.license_id = any(${sqlUuids(ids)}) order by m.id for update`);
  return ids;
}

/**
 * A new key for a license; the old one keeps working for the grace period (SEAT_RULES.keyRotationGraceSeconds).
 * Machines belong to the license, not the key: they keep their slots when they present the new one.
 */
export async function rotateLicenseKey(
  db: Database,
  licenseId: string,
  newKey: string,
  now: Date,
  /** Runs in the rotation's transaction (the audit record). */
  onRotated?: (tx: Database, rotated: { license: LicenseRow; validUntil: Date }) => Promise<unknown>,
): Promise<{ license: LicenseRow; previousKey: string; validUntil: Date } | null> {
  return db.transaction(async (tx) => {
    const current = await lockLicense(tx as unknown as Database, licenseId);
    if (!current) return null;
    const validUntil = new Date(now.getTime() + SEAT_RULES.keyRotationGraceSeconds * 1000);
    await tx.insert(licenseKeyAliases).values({ licenseKey: current.licenseKey, licenseId, validUntil });
    const [license] = await tx
      .update(licenses)
      .set({ licenseKey: newKey, updatedAt: now })
      .where(eq(licenses.id, licenseId))
      .returning();
    await onRotated?.(tx as unknown as Database, { license: license!, validUntil });
    return { license: license!, previousKey: current.licenseKey, validUntil };
  });
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

export type RemoveOutcome = "removed" | "not-found" | "last-machine" | "leased" | "revocation-limit";

export interface RemoveResult {
  outcome: RemoveOutcome;
  /** "leased": until when the machine's license file works. */
  leaseUntil?: Date;
  /** "removed" by a revocation of a machine whose file still works: the file may run offline until then. */
  fileValidUntil?: Date | null;
  /** "revocation-limit": revoked files still working, and when the first of them expires. */
  revokedFilesHeld?: number;
  nextFreeAt?: Date;
}

/**
 * Removes a machine and remembers the removal, so that the machine does not bind again on its own; when the primary
 * goes, the oldest remaining becomes primary. The owner never removes the last one.
 *
 * A machine holding a license file that still works keeps its slot until the file expires: the file keeps working
 * offline, so freeing its slot would let another machine run beside it. Only a revocation frees it (decision 0036):
 * the owner's remedy for a leaked key (at most `revokedFilesAllowed(max_machines)` such files at a time), or an
 * admin's (any number, the last machine too). The revoked file is recorded with its end, for the dashboard.
 */
export async function removeMachine(
  db: Database,
  licenseId: string,
  machineId: string,
  now: Date,
  options: { revokeBy?: "customer" | "admin" } = {},
  /** Runs in the removal's transaction (the audit record). */
  onRemoved?: (tx: Database, removed: MachineRow, fileValidUntil: Date | null) => Promise<unknown>,
): Promise<RemoveResult> {
  return db.transaction(async (trx) => {
    const tx = trx as unknown as Database;
    const license = await lockLicense(tx, licenseId);
    if (!license) return { outcome: "not-found" };
    const bound = await tx
      .select()
      .from(machines)
      .where(eq(machines.licenseId, licenseId))
      .orderBy(asc(machines.boundAt));
    const target = bound.find((row) => row.machineId === machineId);
    if (!target) return { outcome: "not-found" };
    if (bound.length <= 1 && options.revokeBy !== "admin") return { outcome: "last-machine" };
    const fileValidUntil = target.leaseUntil && target.leaseUntil > now ? target.leaseUntil : null;
    if (fileValidUntil) {
      if (!options.revokeBy) return { outcome: "leased", leaseUntil: fileValidUntil };
      if (options.revokeBy === "customer") {
        const held = await tx
          .select({ validUntil: revokedLicenseFiles.validUntil })
          .from(revokedLicenseFiles)
          .where(and(eq(revokedLicenseFiles.licenseId, licenseId), gt(revokedLicenseFiles.validUntil, now)))
          .orderBy(asc(revokedLicenseFiles.validUntil));
        if (held.length >= revokedFilesAllowed(license.maxMachines)) {
          return { outcome: "revocation-limit", revokedFilesHeld: held.length, nextFreeAt: held[0]!.validUntil };
        }
      }
      await tx.insert(revokedLicenseFiles).values({
        licenseId,
        machineId: target.machineId,
        displayId: target.displayId,
        revokedAt: now,
        validUntil: fileValidUntil,
        revokedBy: options.revokeBy,
      });
    }
    // Under the lock no lease can appear since the read; the write re-checks it anyway unless this is a revocation.
    const deleted = await tx
      .delete(machines)
      .where(and(eq(machines.id, target.id), options.revokeBy ? undefined : noWorkingFile(now)))
      .returning({ id: machines.id });
    if (deleted.length === 0) return { outcome: "leased", leaseUntil: target.leaseUntil ?? now };
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
    await onRemoved?.(tx, target, fileValidUntil);
    return { outcome: "removed", fileValidUntil };
  });
}

/** Turns license files on or off for a license (the owner's consent); returns the row before, or null. */
export async function setOfflineFilesAllowed(
  db: Database,
  licenseId: string,
  allowed: boolean,
  now: Date,
  /** Runs in the change's transaction when the setting changed (the audit record). */
  onChanged?: (tx: Database) => Promise<unknown>,
): Promise<boolean> {
  return db.transaction(async (trx) => {
    const tx = trx as unknown as Database;
    const license = await lockLicense(tx, licenseId);
    if (!license || license.offlineFilesAllowed === allowed) return false;
    await tx.update(licenses).set({ offlineFilesAllowed: allowed, updatedAt: now }).where(eq(licenses.id, licenseId));
    await onChanged?.(tx);
    return true;
  });
}

/**
 * The owner lets a removed machine bind again (on its next validation, while a slot is free). Runs in the caller's
 * transaction, under the license lock like every change to who may hold a slot.
 */
export async function restoreMachine(tx: Database, licenseId: string, machineId: string): Promise<boolean> {
  await lockLicense(tx, licenseId);
  const rows = await tx
    .delete(machineRemovals)
    .where(and(eq(machineRemovals.licenseId, licenseId), eq(machineRemovals.machineId, machineId)))
    .returning({ id: machineRemovals.id });
  return rows.length === 1;
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

/**
 * Changes a license's status and nothing else: the expiry date is a separate fact (a reactivated license keeps
 * the end date it was sold with; an expired status needs no date).
 */
export async function setLicenseStatus(
  db: Database,
  licenseKey: string,
  status: "active" | "suspended" | "expired",
  now: Date,
  /** Runs in the change's transaction (the audit record), with the status before. */
  onChanged?: (tx: Database, license: LicenseRow, previousStatus: string) => Promise<unknown>,
): Promise<LicenseRow | null> {
  return db.transaction(async (trx) => {
    const tx = trx as unknown as Database;
    const current = await lockLicenseByKey(tx, licenseKey);
    if (!current) return null;
    const [row] = await tx
      .update(licenses)
      .set({ status, updatedAt: now })
      .where(eq(licenses.id, current.id))
      .returning();
    await onChanged?.(tx, row!, current.status);
    return row ?? null;
  });
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
  // Rows are locked in id order, as every other locker of these rows does (lockLicense): two flushes from two
  // instances, or a flush and a seat change, can then never each hold a row the other waits for.
  await db.execute(sql`
    update machines m set last_seen = greatest(coalesce(m.last_seen, v.at), v.at)
    from (values ${values}) as v(license_id, machine_id, at),
      (select x.id from machines x join (values ${values}) as w(license_id, machine_id, at)
         on x.license_id = w.license_id and x.machine_id = w.machine_id
       order by x.id for update of x) as locked
    where m.id = locked.id and m.license_id = v.license_id and m.machine_id = v.machine_id`);
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

/** Frees a key claimed by a request that changed nothing (a refused execution start), so a retry may try again. */
export async function releaseIdempotencyKey(tx: Database, scope: string, key: string) {
  await tx.delete(idempotencyKeys).where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
}

export async function storeIdempotentResponse(tx: Database, scope: string, key: string, response: unknown) {
  await tx
    .update(idempotencyKeys)
    .set({ response })
    .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));
}
