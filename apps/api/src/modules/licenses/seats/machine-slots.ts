/**
 * Machine slots (decisions 0027, 0036, 0051): the only writers of who holds a slot of a license. Each transition runs
 * on a license under its seat lock (seat-lock.ts) and announces what it changed; every one that frees a slot does it
 * through freeSlot or cullLicenses, which stop the machine's executions in the same transaction (execution-leases.ts).
 */

import type { TierId } from "@flotilla/contracts/plans";
import { inactiveAfterSeconds, revokedFilesAllowed, SEAT_RULES } from "@flotilla/contracts/seats";
import { TIERS, tierById } from "@flotilla/contracts/tiers";
import { and, asc, count, eq, gt, gte, inArray, lt, type SQL, sql } from "drizzle-orm";
import type { Transaction } from "../../../db/client";
import {
  activationRefusals,
  licenseKeyAliases,
  licenses,
  machineEvents,
  machineRemovals,
  machines,
  revokedLicenseFiles,
} from "../../../db/schema";
import { stopBeyondLimit, stopLeasesOfMachines } from "./execution-leases";
import type { LicenseRow, LockedLicense } from "./seat-lock";

export type MachineRow = typeof machines.$inferSelect;

const DAY_MS = 24 * 60 * 60 * 1000;

async function eventsSince(tx: Transaction, licenseId: string, kind: string, since: Date): Promise<number> {
  const [row] = await tx
    .select({ n: count() })
    .from(machineEvents)
    .where(and(eq(machineEvents.licenseId, licenseId), eq(machineEvents.kind, kind), gte(machineEvents.at, since)));
  return row?.n ?? 0;
}

/** A machine's slot is free to give back only when no license file issued to it still works. */
const noWorkingFile = (now: Date) =>
  sql`(${machines.leaseUntil} is null or ${machines.leaseUntil} <= ${now.toISOString()}::timestamptz)`;

/**
 * The one way a machine loses its slot outside the culling job: its row is deleted (forgotten; a new binding is a new
 * row) and its executions stop, in this transaction. `unless` re-checks a condition in the write. False when the
 * write found nothing to free.
 */
async function freeSlot(locked: LockedLicense, target: MachineRow, unless?: SQL): Promise<boolean> {
  const deleted = await locked.tx
    .delete(machines)
    .where(and(eq(machines.id, target.id), unless))
    .returning({ id: machines.id });
  if (deleted.length === 0) return false;
  await stopLeasesOfMachines(locked.tx, [{ licenseId: target.licenseId, machineId: target.machineId }], locked.now);
  if (target.isPrimary) await promoteOldest(locked.tx, target.licenseId);
  locked.announce();
  return true;
}

/** The oldest remaining machine becomes primary (the first machine bound is primary; spec). */
async function promoteOldest(tx: Transaction, licenseId: string) {
  const [next] = await tx
    .select({ id: machines.id })
    .from(machines)
    .where(eq(machines.licenseId, licenseId))
    .orderBy(asc(machines.boundAt))
    .limit(1);
  if (next) await tx.update(machines).set({ isPrimary: true }).where(eq(machines.id, next.id));
}

export type BindOutcome =
  | { bound: true; isPrimary: boolean; revived: boolean }
  | { bound: false; reason: "full" | "removed" | "activation-limit" };

/**
 * Binds a machine unless the license is full, or brings back a machine that lost its slot by silence. New machines
 * are capped per license per 24 hours (SEAT_RULES.activationsPerDay), so one key cannot be passed around a crowd.
 * A bound machine's refusal notice is cleared.
 */
export async function bindMachine(
  locked: LockedLicense,
  machine: { machineId: string; displayId: string; machineName?: string; platform?: string; appVersion?: string },
  /** Runs in the binding's (or revival's) transaction: the audit record. */
  onBound?: (isPrimary: boolean, revived: boolean) => Promise<unknown>,
): Promise<BindOutcome> {
  const { tx, license, now } = locked;
  const existing = await tx
    .select({ id: machines.id, machineId: machines.machineId, isPrimary: machines.isPrimary, status: machines.status })
    .from(machines)
    .where(eq(machines.licenseId, license.id));
  const activeCount = existing.filter((row) => row.status === "active").length;
  const already = existing.find((row) => row.machineId === machine.machineId);
  if (already?.status === "active") return { bound: true, isPrimary: already.isPrimary, revived: false };
  const clearRefusal = () =>
    tx
      .delete(activationRefusals)
      .where(and(eq(activationRefusals.licenseId, license.id), eq(activationRefusals.machineId, machine.machineId)));
  if (already) {
    // Back within the revival window (later ones are forgotten by the culling job): its slot, if one is free. Its
    // executions were stopped when it lost the slot and stay so.
    if (activeCount >= license.maxMachines) return { bound: false, reason: "full" };
    await tx
      .update(machines)
      .set({ status: "active", inactiveSince: null, lastSeen: now })
      .where(eq(machines.id, already.id));
    await tx
      .insert(machineEvents)
      .values({ licenseId: license.id, machineId: machine.machineId, kind: "revived", at: now });
    await clearRefusal();
    await onBound?.(already.isPrimary, true);
    locked.announce();
    return { bound: true, isPrimary: already.isPrimary, revived: true };
  }
  // Removal and binding both hold the seat lock: a removal that committed first is always seen here.
  const [removed] = await tx
    .select({ id: machineRemovals.id })
    .from(machineRemovals)
    .where(and(eq(machineRemovals.licenseId, license.id), eq(machineRemovals.machineId, machine.machineId)));
  if (removed) return { bound: false, reason: "removed" };
  if (activeCount >= license.maxMachines) return { bound: false, reason: "full" };
  const activations = await eventsSince(tx, license.id, "activated", new Date(now.getTime() - DAY_MS));
  if (activations >= SEAT_RULES.activationsPerDay) return { bound: false, reason: "activation-limit" };
  const isPrimary = !existing.some((row) => row.isPrimary);
  await tx.insert(machines).values({
    licenseId: license.id,
    machineId: machine.machineId,
    displayId: machine.displayId,
    machineName: machine.machineName ?? null,
    platform: machine.platform ?? null,
    appVersion: machine.appVersion ?? null,
    isPrimary,
    boundAt: now,
    lastSeen: now,
  });
  await tx
    .insert(machineEvents)
    .values({ licenseId: license.id, machineId: machine.machineId, kind: "activated", at: now });
  await clearRefusal();
  await onBound?.(isPrimary, false);
  locked.announce();
  return { bound: true, isPrimary, revived: false };
}

/**
 * A device refused because the license was full: the owner sees the latest few on the dashboard. `onFirstRefusal`
 * runs when this refusal starts a notice (none was showing): the owner hears once per notice, not once per refused
 * attempt, so a key passed around a crowd cannot flood their inbox. Under the seat lock: concurrent upserts and prunes
 * of the same rows would otherwise deadlock, and "was a notice showing?" must not race.
 */
export async function recordRefusal(
  locked: LockedLicense,
  machine: { machineId: string; displayId: string; machineName?: string; platform?: string },
  onFirstRefusal?: () => Promise<unknown>,
) {
  const { tx, license, now } = locked;
  const [showing] = await tx
    .select({ n: count() })
    .from(activationRefusals)
    .where(eq(activationRefusals.licenseId, license.id));
  await tx
    .insert(activationRefusals)
    .values({
      licenseId: license.id,
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
  await tx.execute(sql`
    delete from activation_refusals where license_id = ${license.id}::uuid and machine_id not in (
      select machine_id from activation_refusals where license_id = ${license.id}::uuid
      order by refused_at desc limit ${SEAT_RULES.refusalsKept}
    )`);
  if ((showing?.n ?? 0) === 0) await onFirstRefusal?.();
}

export type DeactivateOutcome = "deactivated" | "not-found" | "limit" | "leased";

/**
 * The app frees its own slot (the machine is forgotten, not barred: it can activate again). Capped per license per
 * 24 hours (SEAT_RULES.deactivationsPerDay), so activating and deactivating in turn cannot share one seat around.
 */
export async function deactivateMachine(
  locked: LockedLicense,
  machineId: string,
  /** Runs in the deactivation's transaction (the audit record). */
  onDeactivated?: (machine: MachineRow) => Promise<unknown>,
): Promise<{ outcome: DeactivateOutcome; left: number; leaseUntil?: Date; retryAfterSeconds?: number }> {
  const { tx, license, now } = locked;
  const [target] = await tx
    .select()
    .from(machines)
    .where(and(eq(machines.licenseId, license.id), eq(machines.machineId, machineId)));
  const used = await eventsSince(tx, license.id, "deactivated", new Date(now.getTime() - DAY_MS));
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
          eq(machineEvents.licenseId, license.id),
          eq(machineEvents.kind, "deactivated"),
          gte(machineEvents.at, new Date(now.getTime() - DAY_MS)),
        ),
      )
      .orderBy(asc(machineEvents.at))
      .limit(1);
    const freesAt = (oldest?.at.getTime() ?? now.getTime()) + DAY_MS;
    return { outcome: "limit", left, retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000)) };
  }
  if (!(await freeSlot(locked, target, noWorkingFile(now)))) {
    return { outcome: "leased", left, leaseUntil: target.leaseUntil ?? now };
  }
  await tx.insert(machineEvents).values({ licenseId: license.id, machineId, kind: "deactivated", at: now });
  await onDeactivated?.(target);
  return { outcome: "deactivated", left: left - 1 };
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
  locked: LockedLicense,
  machineId: string,
  options: { revokeBy?: "customer" | "admin" } = {},
  /** Runs in the removal's transaction (the audit record). */
  onRemoved?: (removed: MachineRow, fileValidUntil: Date | null) => Promise<unknown>,
): Promise<RemoveResult> {
  const { tx, license, now } = locked;
  const bound = await tx
    .select()
    .from(machines)
    .where(eq(machines.licenseId, license.id))
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
        .where(and(eq(revokedLicenseFiles.licenseId, license.id), gt(revokedLicenseFiles.validUntil, now)))
        .orderBy(asc(revokedLicenseFiles.validUntil));
      if (held.length >= revokedFilesAllowed(license.maxMachines)) {
        return { outcome: "revocation-limit", revokedFilesHeld: held.length, nextFreeAt: held[0]!.validUntil };
      }
    }
    await tx.insert(revokedLicenseFiles).values({
      licenseId: license.id,
      machineId: target.machineId,
      displayId: target.displayId,
      revokedAt: now,
      validUntil: fileValidUntil,
      revokedBy: options.revokeBy,
    });
  }
  // Under the lock no license file can appear since the read; the write re-checks it anyway unless this is a revocation.
  if (!(await freeSlot(locked, target, options.revokeBy ? undefined : noWorkingFile(now)))) {
    return { outcome: "leased", leaseUntil: target.leaseUntil ?? now };
  }
  await tx
    .insert(machineRemovals)
    .values({
      licenseId: license.id,
      machineId: target.machineId,
      displayId: target.displayId,
      machineName: target.machineName,
      removedAt: now,
    })
    .onConflictDoUpdate({ target: [machineRemovals.licenseId, machineRemovals.machineId], set: { removedAt: now } });
  await onRemoved?.(target, fileValidUntil);
  return { outcome: "removed", fileValidUntil };
}

/** The owner lets a removed machine bind again (on its next validation, while a slot is free). */
export async function restoreMachine(
  locked: LockedLicense,
  machineId: string,
  onRestored?: () => Promise<unknown>,
): Promise<boolean> {
  const rows = await locked.tx
    .delete(machineRemovals)
    .where(and(eq(machineRemovals.licenseId, locked.license.id), eq(machineRemovals.machineId, machineId)))
    .returning({ id: machineRemovals.id });
  if (rows.length !== 1) return false;
  await onRestored?.();
  locked.announce();
  return true;
}

/**
 * A license file issued to a machine: its slot is held until the file expires (culling skips it). "refused" when the
 * machine holds no slot (removed, deactivated or culled since the caller's cached read) or the license is no longer
 * in force, and no file may then be issued.
 */
export async function leaseSlotForFile(
  locked: LockedLicense,
  machineId: string,
  until: Date,
  /** Runs in the lease's transaction (the audit record). */
  onLeased?: () => Promise<unknown>,
): Promise<"leased" | "refused" | "files-disabled"> {
  const { tx, license, now } = locked;
  if (license.status !== "active" || (license.expiresAt && license.expiresAt <= now)) return "refused";
  if (!license.offlineFilesAllowed) return "files-disabled";
  const at = until.toISOString();
  const rows = await tx
    .update(machines)
    .set({ leaseUntil: sql`greatest(coalesce(${machines.leaseUntil}, ${at}::timestamptz), ${at}::timestamptz)` })
    .where(and(eq(machines.licenseId, license.id), eq(machines.machineId, machineId), eq(machines.status, "active")))
    .returning({ id: machines.id });
  if (rows.length !== 1) return "refused";
  await onLeased?.();
  locked.announce();
  return "leased";
}

/** Turns license files on or off for a license (the owner's consent); false when it was already so. */
export async function setOfflineFilesAllowed(
  locked: LockedLicense,
  allowed: boolean,
  /** Runs in the change's transaction when the setting changed (the audit record). */
  onChanged?: () => Promise<unknown>,
): Promise<boolean> {
  if (locked.license.offlineFilesAllowed === allowed) return false;
  await locked.tx
    .update(licenses)
    .set({ offlineFilesAllowed: allowed, updatedAt: locked.now })
    .where(eq(licenses.id, locked.license.id));
  await onChanged?.();
  locked.announce();
  return true;
}

/**
 * Changes a license's status and nothing else: the expiry date is a separate fact (a reactivated license keeps the end
 * date it was sold with). A license not in force runs nothing new; its apps hear it at once (their watch) and stop.
 */
export async function setLicenseStatus(
  locked: LockedLicense,
  status: "active" | "suspended" | "expired",
): Promise<LicenseRow> {
  const [row] = await locked.tx
    .update(licenses)
    .set({ status, updatedAt: locked.now })
    .where(eq(licenses.id, locked.license.id))
    .returning();
  locked.announce();
  return row!;
}

export type TermsChange =
  | { outcome: "changed"; license: LicenseRow; stoppedExecutions: string[] }
  | { outcome: "slots-in-use"; inUse: number };

/**
 * An admin changes what a license may do: its expiry, tier, device limit or license-file consent. A lower device limit
 * is refused while more slots are taken than it allows; a lower execution limit (a tier change) brings what runs down
 * to it (stopBeyondLimit: the most recently started stop, their apps are told).
 */
export async function changeLicenseTerms(
  locked: LockedLicense,
  change: { tier?: TierId; maxMachines?: number; offlineFilesAllowed?: boolean; expiresAt?: Date | null },
): Promise<TermsChange> {
  const { tx, license, now } = locked;
  if (change.maxMachines !== undefined && change.maxMachines < license.maxMachines) {
    const [held] = await tx
      .select({ n: count() })
      .from(machines)
      .where(and(eq(machines.licenseId, license.id), eq(machines.status, "active")));
    if ((held?.n ?? 0) > change.maxMachines) return { outcome: "slots-in-use", inUse: held!.n };
  }
  const tier = change.tier ? tierById(change.tier) : undefined;
  const [row] = await tx
    .update(licenses)
    .set({
      ...(tier ? { tier: tier.tier } : {}),
      ...(change.maxMachines !== undefined ? { maxMachines: change.maxMachines } : {}),
      ...(change.offlineFilesAllowed !== undefined ? { offlineFilesAllowed: change.offlineFilesAllowed } : {}),
      ...(change.expiresAt !== undefined ? { expiresAt: change.expiresAt } : {}),
      updatedAt: now,
    })
    .where(eq(licenses.id, license.id))
    .returning();
  locked.announce();
  const stoppedExecutions = await stopBeyondLimit(locked, row!);
  return { outcome: "changed", license: row!, stoppedExecutions };
}

/**
 * A new key for a license; the old one keeps working for the grace period (SEAT_RULES.keyRotationGraceSeconds).
 * Machines belong to the license, not the key: they keep their slots when they present the new one.
 */
export async function rotateLicenseKey(
  locked: LockedLicense,
  newKey: string,
  /** Runs in the rotation's transaction (the audit record). */
  onRotated?: (rotated: { license: LicenseRow; validUntil: Date }) => Promise<unknown>,
): Promise<{ license: LicenseRow; previousKey: string; validUntil: Date }> {
  const { tx, license: current, now } = locked;
  const validUntil = new Date(now.getTime() + SEAT_RULES.keyRotationGraceSeconds * 1000);
  await tx.insert(licenseKeyAliases).values({ licenseKey: current.licenseKey, licenseId: current.id, validUntil });
  const [license] = await tx
    .update(licenses)
    .set({ licenseKey: newKey, updatedAt: now })
    .where(eq(licenses.id, current.id))
    .returning();
  await onRotated?.({ license: license!, validUntil });
  locked.announce(current.licenseKey);
  locked.announce(newKey);
  return { license: license!, previousKey: current.licenseKey, validUntil };
}

/**
 * The culling job's work on a batch of licenses under their seat lock (taken SKIP LOCKED by the caller): machines
 * silent longer than their tier's heartbeat interval plus the drift allowance lose their slot (inactive) and their
 * executions stop; inactive machines past the revival window are forgotten. The writes re-check the license file and
 * the status. Returns what it did, per license, for the job's record.
 */
export async function cullLicenses(
  tx: Transaction,
  locked: LockedLicense[],
  now: Date,
): Promise<{ culled: { licenseId: string; machineId: string }[]; forgotten: number }> {
  if (locked.length === 0) return { culled: [], forgotten: 0 };
  const at = now.toISOString();
  const culled: { licenseId: string; machineId: string }[] = [];
  for (const tier of Object.values(TIERS)) {
    const ids = locked.filter((one) => one.license.tier === tier.tier).map((one) => one.license.id);
    if (ids.length === 0) continue;
    const cutoff = new Date(now.getTime() - inactiveAfterSeconds(tier.heartbeatIntervalSeconds) * 1000).toISOString();
    const rows = await tx
      .update(machines)
      .set({ status: "inactive", inactiveSince: now })
      .where(
        and(
          inArray(machines.licenseId, ids),
          eq(machines.status, "active"),
          sql`coalesce(${machines.lastSeen}, ${machines.boundAt}) < ${cutoff}::timestamptz`,
          sql`(${machines.leaseUntil} is null or ${machines.leaseUntil} <= ${at}::timestamptz)`,
        ),
      )
      .returning({ licenseId: machines.licenseId, machineId: machines.machineId });
    culled.push(...rows);
  }
  if (culled.length > 0) {
    await tx
      .insert(machineEvents)
      .values(culled.map((row) => ({ licenseId: row.licenseId, machineId: row.machineId, kind: "culled", at: now })));
    await stopLeasesOfMachines(tx, culled, now);
  }
  const staleBefore = new Date(now.getTime() - SEAT_RULES.revivalWindowSeconds * 1000);
  const gone = await tx
    .delete(machines)
    .where(
      and(
        inArray(
          machines.licenseId,
          locked.map((one) => one.license.id),
        ),
        eq(machines.status, "inactive"),
        lt(machines.inactiveSince, staleBefore),
      ),
    )
    .returning({ licenseId: machines.licenseId, machineId: machines.machineId, isPrimary: machines.isPrimary });
  if (gone.length > 0) {
    await tx
      .insert(machineEvents)
      .values(gone.map((row) => ({ licenseId: row.licenseId, machineId: row.machineId, kind: "forgotten", at: now })));
    for (const row of gone) if (row.isPrimary) await promoteOldest(tx, row.licenseId);
  }
  const changed = new Set([...culled, ...gone].map((row) => row.licenseId));
  for (const one of locked) if (changed.has(one.license.id)) one.announce();
  return { culled, forgotten: gone.length };
}

/**
 * What a license's culling looks for (SQL on aliases l and m): a machine past its window, or inactive past revival.
 * `licenseWhere` names the licenses from the machines' side (decision 0058): active machines silent past the shortest
 * window of any tier (machines_status_last_seen_idx; machines_never_seen_idx for one never seen since it was bound)
 * and inactive ones past the revival window (machines_inactive_since_idx) — index ranges that are empty when nothing
 * is due, instead of a walk over every license. `machineWhere` then decides per machine, by its license's tier.
 */
export function cullingCandidates(now: Date): { licenseWhere: SQL; machineWhere: SQL } {
  const at = now.toISOString();
  const cutoffOf = (heartbeatIntervalSeconds: number) =>
    new Date(now.getTime() - inactiveAfterSeconds(heartbeatIntervalSeconds) * 1000).toISOString();
  const perTier = sql.join(
    Object.values(TIERS).map(
      (tier) =>
        sql`(l.tier = ${tier.tier} and coalesce(m.last_seen, m.bound_at) < ${cutoffOf(tier.heartbeatIntervalSeconds)}::timestamptz)`,
    ),
    sql` or `,
  );
  // The latest cutoff of any tier: every machine due under its own tier is silent at least this long.
  const anyCutoff = cutoffOf(Math.min(...Object.values(TIERS).map((tier) => tier.heartbeatIntervalSeconds)));
  const staleBefore = new Date(now.getTime() - SEAT_RULES.revivalWindowSeconds * 1000).toISOString();
  return {
    // = any(array(…)): the candidates are computed once, first (an InitPlan), and the licenses looked up by them; an
    // IN (…) here let PostgreSQL walk every license and join the machines instead (1.2 s on 200,000 licenses).
    licenseWhere: sql`l.id = any(array(
      select d.license_id from machines d where d.status = 'active' and d.last_seen < ${anyCutoff}::timestamptz
      union
      select d.license_id from machines d
        where d.status = 'active' and d.last_seen is null and d.bound_at < ${anyCutoff}::timestamptz
      union
      select d.license_id from machines d where d.status = 'inactive' and d.inactive_since < ${staleBefore}::timestamptz
    ))`,
    machineWhere: sql`((m.status = 'active' and (m.lease_until is null or m.lease_until <= ${at}::timestamptz)
      and (${perTier})) or (m.status = 'inactive' and m.inactive_since < ${staleBefore}::timestamptz))`,
  };
}
