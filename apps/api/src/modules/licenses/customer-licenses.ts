/** The customer API: dashboard figures, license creation, devices and analytics — all scoped to the owner. */
import { LICENSE_ERRORS, LICENSE_MESSAGES } from "@flotilla/contracts/licensing";
import { inactiveAfterSeconds, SEAT_RULES } from "@flotilla/contracts/seats";
import { tierById } from "@flotilla/contracts/tiers";
import type { Database } from "../../db/client";
import { HttpProblem } from "../../plugins/errors";
import type { CustomerRow } from "../auth/queries";
import { recordEvent } from "../events/record";
import { utcDay } from "./attempt-recorder";
import { displayIdFor, generateLicenseKey, normalizeLicenseKey } from "./keys";
import * as q from "./queries";
import { type HeldExecution, heldExecutions } from "./seats/execution-leases";
import { termsOf } from "./seats/license-terms";
import * as slots from "./seats/machine-slots";
import type { Seats } from "./seats/seat-lock";

const customerActor = (customer: CustomerRow) => ({
  type: "customer" as const,
  id: customer.id,
  email: customer.email,
});

const DAY_MS = 24 * 60 * 60 * 1000;
const MOST_USED_FEATURES = 5;
/**
 * Devices listed in analytics, busiest first: a license has at most 20 bound, plus the removed ones and the refused
 * ones (at most SEAT_RULES.refusalsKept named a day per instance).
 */
const MAX_MACHINE_STATS = 100;

type RefusalRow = Awaited<ReturnType<typeof q.refusalsOf>>[number];

function licenseView(
  row: q.LicenseRow,
  primaryMachine: string | null,
  extras: { refusals?: RefusalRow[]; previousKeyValidUntil?: Date | undefined; running?: HeldExecution[] } = {},
) {
  const terms = termsOf(row);
  return {
    id: row.id,
    license_key: row.licenseKey,
    tier: row.tier,
    status: row.status,
    machine_id: primaryMachine,
    expires_at: row.expiresAt?.toISOString() ?? null,
    last_seen: row.lastSeen?.toISOString() ?? null,
    max_machines: row.maxMachines,
    created_at: row.createdAt.toISOString(),
    features: terms.features,
    refused_activations: (extras.refusals ?? []).map((refusal) => ({
      machine_id: refusal.machineId,
      display_id: refusal.displayId,
      machine_name: refusal.machineName,
      platform: refusal.platform,
      refused_at: refusal.refusedAt.toISOString(),
    })),
    previous_key_valid_until: extras.previousKeyValidUntil?.toISOString() ?? null,
    offline_files_allowed: row.offlineFilesAllowed,
    executions: {
      limit: terms.executionLimit,
      // What holds the license's execution slots: running ones, and stopped ones whose app has not stopped yet.
      running: (extras.running ?? []).map((lease) => ({
        id: lease.id,
        machine_id: lease.machineId,
        display_id: lease.displayId ?? displayIdFor(lease.machineId),
        machine_name: lease.machineName,
        feature: lease.feature,
        started_at: lease.startedAt.toISOString(),
        last_heartbeat_at: lease.lastHeartbeatAt.toISOString(),
        expires_at: lease.expiresAt.toISOString(),
        status: lease.stopping ? ("stopping" as const) : ("running" as const),
        stop_reason: lease.stopReason,
        stop_requested_at: lease.stopRequestedAt?.toISOString() ?? null,
      })),
    },
  };
}

export class CustomerLicenses {
  constructor(
    private readonly db: Database,
    /** Every change to slots, keys and consent, under the license's seat lock (announced after commit). */
    private readonly seats: Seats,
    /** Tells every instance's license cache that a license changed. */
    private readonly changed: (licenseKey: string) => Promise<void>,
    /** Writes pending last-seen times and attempt counters, so that reads are current. */
    private readonly flushCounters: () => Promise<void>,
    /** Tells the customer's live dashboards, on every instance, that they have a new license. */
    private readonly ownerChanged: (customerId: string) => Promise<void> = async () => undefined,
  ) {}

  async dashboard(customer: CustomerRow) {
    await this.flushCounters();
    const rows = await q.licensesOfCustomer(this.db, customer.id);
    const ids = rows.map((row) => row.license.id);
    const now = new Date();
    const [total, month, features, refusals, graces, running] = await Promise.all([
      q.executionsSince(this.db, ids, null),
      q.executionsSince(this.db, ids, `${now.toISOString().slice(0, 7)}-01`),
      q.topFeatures(this.db, ids, MOST_USED_FEATURES),
      q.refusalsOf(this.db, ids),
      q.previousKeyGrace(this.db, ids, now),
      heldExecutions(this.db, ids, now),
    ]);
    const capacity = rows
      .filter((row) => row.license.status === "active")
      .reduce((sum, row) => sum + (tierById(row.license.tier)?.monthlyQuota ?? 0), 0);
    return {
      customer: { name: customer.name, email: customer.email, avatar_url: customer.avatarUrl },
      licenses: rows.map((row) =>
        licenseView(row.license, row.primaryMachine, {
          refusals: refusals.filter((refusal) => refusal.licenseId === row.license.id),
          previousKeyValidUntil: graces.get(row.license.id),
          running: running.filter((lease) => lease.licenseId === row.license.id),
        }),
      ),
      usage_analytics: {
        total_executions: total,
        current_month_executions: month,
        license_utilization: capacity > 0 ? Math.round((month / capacity) * 1000) / 10 : 0,
        monthly_capacity: capacity,
        most_used_features: features,
      },
    };
  }

  async create(customer: CustomerRow, tierName: string, address: string | null = null) {
    const tier = tierById(tierName.toLowerCase());
    if (!tier) throw new HttpProblem(400, LICENSE_ERRORS.unknownTier, "UNKNOWN_TIER");
    if (!tier.available) throw new HttpProblem(400, LICENSE_ERRORS.tierUnavailable, "TIER_UNAVAILABLE");
    const licenseKey = generateLicenseKey();
    const row = await this.db.transaction(async (tx) => {
      const inserted = await q.insertLicense(tx as unknown as Database, {
        customerId: customer.id,
        licenseKey,
        tier: tier.tier,
        maxMachines: tier.maxMachines,
      });
      if (inserted) {
        await recordEvent(tx, {
          type: "license.created",
          actor: customerActor(customer),
          target: { type: "license", id: inserted.id },
          customerId: customer.id,
          licenseId: inserted.id,
          before: null,
          // Keys are secrets: the audit log, webhooks and mail name them by their last characters only.
          after: { key_hint: inserted.licenseKey.slice(-5), tier: inserted.tier, max_machines: inserted.maxMachines },
          address,
        });
      }
      return inserted;
    });
    if (!row) throw new HttpProblem(409, LICENSE_ERRORS.duplicate, "LICENSE_EXISTS");
    await this.changed(licenseKey);
    await this.ownerChanged(customer.id);
    return licenseView(row, null);
  }

  /** One of the customer's licenses; someone else's key and an unknown key both answer 404. */
  ownedOrNotFound(customer: CustomerRow, licenseKey: string) {
    return this.owned(customer, licenseKey);
  }

  /** The customer's license by its key; `previousKey` also accepts a key rotated within its grace (reads only). */
  private async owned(customer: CustomerRow, licenseKey: string, { previousKey = false } = {}) {
    const key = normalizeLicenseKey(licenseKey);
    const license =
      (await q.ownedLicense(this.db, customer.id, key)) ??
      (previousKey ? await q.ownedLicenseByPreviousKey(this.db, customer.id, key) : null);
    // Someone else's key and an unknown key look the same.
    if (!license) throw new HttpProblem(404, LICENSE_ERRORS.notFound, "NOT_FOUND");
    return license;
  }

  async machines(customer: CustomerRow, licenseKey: string) {
    const license = await this.owned(customer, licenseKey, { previousKey: true });
    await this.flushCounters();
    const now = new Date();
    const [rows, removed] = await Promise.all([
      q.machinesOf(this.db, license.id),
      q.removedMachinesOf(this.db, license.id, now),
    ]);
    const heartbeat = termsOf(license).heartbeatIntervalSeconds;
    return {
      // Slots in use: a machine that went silent (inactive) holds none.
      current_count: rows.filter((row) => row.status === "active").length,
      max_machines: license.maxMachines,
      machines: rows.map((row) => ({
        machine_id: row.machineId,
        display_id: row.displayId,
        machine_name: row.machineName,
        platform: row.platform,
        is_primary: row.isPrimary,
        bound_at: row.boundAt.toISOString(),
        last_seen: row.lastSeen?.toISOString() ?? null,
        // A validation is a heartbeat too: both keep the slot.
        last_heartbeat_at: row.lastSeen?.toISOString() ?? null,
        status: row.status === "inactive" ? ("inactive" as const) : ("active" as const),
        inactive_since: row.inactiveSince?.toISOString() ?? null,
        license_file_until: row.leaseUntil && row.leaseUntil > now ? row.leaseUntil.toISOString() : null,
      })),
      seat_rules: {
        heartbeat_interval_seconds: heartbeat,
        inactive_after_seconds: inactiveAfterSeconds(heartbeat),
        revival_window_seconds: SEAT_RULES.revivalWindowSeconds,
      },
      removed_machines: removed.map((row) => ({
        machine_id: row.machineId,
        display_id: row.displayId,
        machine_name: row.machineName,
        removed_at: row.removedAt.toISOString(),
        license_file_until: row.licenseFileUntil?.toISOString() ?? null,
      })),
    };
  }

  async analytics(customer: CustomerRow, licenseKey: string, days: number) {
    const license = await this.owned(customer, licenseKey, { previousKey: true });
    await this.flushCounters();
    const now = new Date();
    const since = utcDay(new Date(now.getTime() - (days - 1) * DAY_MS));
    const [stats, bound, removed, refusals, executions] = await Promise.all([
      q.validationStats(this.db, license.id, since),
      q.machinesOf(this.db, license.id),
      q.removedMachinesOf(this.db, license.id, now),
      q.refusalsOf(this.db, [license.id]),
      q.executionsByMachine(this.db, license.id, since),
    ]);
    // A device's name as the owner knows it: bound, removed, or given with its refused attempt.
    const names = new Map<string, string | null>();
    for (const row of refusals) names.set(row.machineId, row.machineName);
    for (const row of removed) names.set(row.machineId, row.machineName);
    for (const row of bound) names.set(row.machineId, row.machineName);
    const holding = new Set(bound.map((row) => row.machineId));
    // Active Devices agrees with "Devices Used": a device counts while it holds a slot (a removed or silent one does
    // not), if it validated in the window.
    const holdingActive = new Set(bound.filter((row) => row.status !== "inactive").map((row) => row.machineId));
    // Refused attempts past the few named a day are counted together (machine ""): in the totals, not listed.
    const devices = stats.filter((row) => row.machineId !== "");
    const summary = stats.reduce(
      (acc, row) => ({
        total_attempts: acc.total_attempts + row.total,
        successful_attempts: acc.successful_attempts + row.successful,
        unique_machines_active:
          acc.unique_machines_active + (row.successful > 0 && holdingActive.has(row.machineId) ? 1 : 0),
      }),
      { total_attempts: 0, successful_attempts: 0, unique_machines_active: 0 },
    );
    return {
      days,
      summary,
      machine_stats: devices.slice(0, MAX_MACHINE_STATS).map((row) => ({
        machine_id: displayIdFor(row.machineId),
        machine_name: names.get(row.machineId) ?? null,
        // Bound to the license now (active or inactive); a refused or removed device is not.
        bound: holding.has(row.machineId),
        total_attempts: row.total,
        successful_attempts: row.successful,
        failed_attempts: row.total - row.successful,
        executions: executions.get(row.machineId) ?? 0,
      })),
    };
  }

  async removeMachine(customer: CustomerRow, licenseKey: string, machineId: string, address: string | null = null) {
    await this.release(customer, licenseKey, machineId, address, false);
    return LICENSE_MESSAGES.machineRemoved;
  }

  /**
   * The remedy for a leaked key (decision 0036): frees the slot of a machine even while a license file issued to it
   * still works, and bars the machine; the file may keep running offline until it expires, and the dashboard says so.
   */
  async revokeMachine(customer: CustomerRow, licenseKey: string, machineId: string, address: string | null = null) {
    const fileValidUntil = await this.release(customer, licenseKey, machineId, address, true);
    return {
      message: LICENSE_MESSAGES.machineRevoked(fileValidUntil),
      license_file_valid_until: fileValidUntil?.toISOString() ?? null,
    };
  }

  private async release(
    customer: CustomerRow,
    licenseKey: string,
    machineId: string,
    address: string | null,
    revoke: boolean,
  ): Promise<Date | null> {
    const license = await this.owned(customer, licenseKey);
    const removal = await this.seats.change(license.id, (locked) =>
      slots.removeMachine(locked, machineId, revoke ? { revokeBy: "customer" } : {}, (removed, fileValidUntil) =>
        recordEvent(locked.tx, {
          type: revoke ? "machine.revoked" : "machine.removed",
          actor: customerActor(customer),
          target: { type: "machine", id: removed.machineId },
          customerId: customer.id,
          licenseId: license.id,
          before: { display_id: removed.displayId, machine_name: removed.machineName, is_primary: removed.isPrimary },
          after: revoke ? { license_file_valid_until: fileValidUntil?.toISOString() ?? null } : null,
          address,
        }),
      ),
    );
    const result = removal ?? { outcome: "not-found" as const };
    if (result.outcome === "not-found") throw new HttpProblem(404, LICENSE_ERRORS.machineNotFound, "NOT_FOUND");
    if (result.outcome === "last-machine") throw new HttpProblem(409, LICENSE_ERRORS.lastMachine, "LAST_MACHINE");
    if (result.outcome === "leased") {
      throw new HttpProblem(409, LICENSE_ERRORS.licenseFileActive(result.leaseUntil!), "LICENSE_FILE_ACTIVE");
    }
    if (result.outcome === "revocation-limit") {
      throw new HttpProblem(
        409,
        LICENSE_ERRORS.revocationLimit(result.revokedFilesHeld!, result.nextFreeAt!),
        "REVOCATION_LIMIT",
      );
    }
    return result.fileValidUntil ?? null;
  }

  /** The owner's consent to license files for this license (off by default). */
  async setOfflineFiles(customer: CustomerRow, licenseKey: string, allowed: boolean, address: string | null = null) {
    const license = await this.owned(customer, licenseKey);
    await this.seats.change(license.id, (locked) =>
      slots.setOfflineFilesAllowed(locked, allowed, () =>
        recordEvent(locked.tx, {
          type: "license.offline_files_changed",
          actor: customerActor(customer),
          target: { type: "license", id: license.id },
          customerId: customer.id,
          licenseId: license.id,
          before: { offline_files_allowed: !allowed },
          after: { offline_files_allowed: allowed },
          address,
        }),
      ),
    );
    return {
      message: allowed ? LICENSE_MESSAGES.offlineFilesAllowed : LICENSE_MESSAGES.offlineFilesOff,
      data: { offline_files_allowed: allowed },
    };
  }

  /**
   * A new key for a leaked one: shown to its owner now; the old key keeps working for the grace period so running
   * machines can take the new one, then stops. Machines keep their slots.
   */
  async rotateKey(customer: CustomerRow, licenseKey: string, address: string | null = null) {
    const license = await this.owned(customer, licenseKey);
    const rotated = await this.seats.change(license.id, (locked) =>
      slots.rotateLicenseKey(locked, generateLicenseKey(), (done) =>
        // Keys are secrets: the audit log and the mail name them by their last characters only.
        recordEvent(locked.tx, {
          type: "license.key_rotated",
          actor: customerActor(customer),
          target: { type: "license", id: license.id },
          customerId: customer.id,
          licenseId: license.id,
          before: { key_hint: license.licenseKey.slice(-5) },
          after: {
            key_hint: done.license.licenseKey.slice(-5),
            previous_key_valid_until: done.validUntil.toISOString(),
          },
          address,
        }),
      ),
    );
    if (!rotated) throw new HttpProblem(404, LICENSE_ERRORS.notFound, "NOT_FOUND");
    const [primary] = (await q.machinesOf(this.db, license.id)).filter((row) => row.isPrimary);
    return {
      license: licenseView(rotated.license, primary?.machineId ?? null, { previousKeyValidUntil: rotated.validUntil }),
      previous_key_valid_until: rotated.validUntil.toISOString(),
    };
  }

  /** The owner has seen the refused devices (or freed a slot): the notice goes. */
  async dismissRefusals(customer: CustomerRow, licenseKey: string) {
    const license = await this.owned(customer, licenseKey);
    await q.dismissRefusals(this.db, license.id);
    return LICENSE_MESSAGES.refusalsDismissed;
  }

  /** Lets a removed device bind again: it is re-activated on its next validation while a slot is free. */
  async restoreMachine(customer: CustomerRow, licenseKey: string, machineId: string, address: string | null = null) {
    const license = await this.owned(customer, licenseKey);
    const restored = await this.seats.change(license.id, (locked) =>
      slots.restoreMachine(locked, machineId, () =>
        recordEvent(locked.tx, {
          type: "machine.restored",
          actor: customerActor(customer),
          target: { type: "machine", id: machineId },
          customerId: customer.id,
          licenseId: license.id,
          before: { removed: true },
          after: { removed: false },
          address,
        }),
      ),
    );
    if (!restored) {
      throw new HttpProblem(404, LICENSE_ERRORS.removedMachineNotFound, "NOT_FOUND");
    }
    return LICENSE_MESSAGES.machineRestored;
  }
}
