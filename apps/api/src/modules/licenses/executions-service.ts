/**
 * Execution leases for the desktop app, its owner and admins (decision 0048). The license key and machine id say who
 * asks, as on every desktop call; what may run is decided in the database under the license lock
 * (execution-queries.ts). Every change is announced on the license change channel, which feeds live dashboards.
 */
import { createHash } from "node:crypto";
import type { StartExecutionRequest } from "@flotilla/contracts/execution-api";
import {
  EXECUTION_CODES,
  EXECUTION_MESSAGES,
  EXECUTION_RULES,
  type ExecutionEndReason,
} from "@flotilla/contracts/executions";
import { LICENSE_CODE_MESSAGES, tierById } from "@flotilla/contracts/tiers";
import type { Database } from "../../db/client";
import { RETENTION } from "../../jobs/retention";
import { HttpProblem } from "../../plugins/errors";
import { type Actor, recordEvent } from "../events/record";
import * as eq from "./execution-queries";
import { normalizeLicenseKey } from "./keys";
import type { LicensingService } from "./licensing-service";
import type { LicenseRow } from "./queries";

/** Refusals recorded in the audit log per license, at most one in this long (an app retrying must not flood it). */
const REFUSAL_AUDIT_EVERY_MS = 60_000;

const iso = (date: Date) => date.toISOString();

function limitOf(license: LicenseRow): number | null {
  return tierById(license.tier)?.features.maxConcurrentExecutions ?? null;
}

function holders(running: eq.RunningExecution[]) {
  return running.slice(0, EXECUTION_RULES.holdersNamed).map((lease) => ({
    display_id: lease.displayId,
    machine_name: lease.machineName,
    started_at: iso(lease.startedAt),
    expires_at: iso(lease.expiresAt),
  }));
}

function leaseView(lease: eq.LeaseRow) {
  return {
    id: lease.id,
    feature: lease.feature,
    started_at: iso(lease.startedAt),
    heartbeat_interval_seconds: EXECUTION_RULES.heartbeatIntervalSeconds,
    expires_at: iso(lease.expiresAt),
  };
}

export class ExecutionsService {
  private readonly refusalsAudited = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly licensing: LicensingService,
    /** Tells every instance (and every live dashboard) that a license changed. */
    private readonly changed: (licenseKey: string) => Promise<void>,
    private readonly onRefused: () => void = () => undefined,
  ) {}

  /** The license a desktop request names, in force: else the validation code's problem. */
  private async license(licenseKey: string): Promise<LicenseRow> {
    const state = await this.licensing.resolve(normalizeLicenseKey(licenseKey));
    if (!state) throw new HttpProblem(404, LICENSE_CODE_MESSAGES.NOT_FOUND, "NOT_FOUND");
    const blocked = this.licensing.blockedCode(state.license, new Date());
    if (blocked) throw new HttpProblem(403, LICENSE_CODE_MESSAGES[blocked], blocked);
    return state.license;
  }

  private refused(running: eq.RunningExecution[], limit: number): never {
    this.onRefused();
    const soonest = running.reduce<Date | null>(
      (at, lease) => (at === null || lease.expiresAt < at ? lease.expiresAt : at),
      null,
    );
    throw new HttpProblem(409, EXECUTION_MESSAGES.limit(limit), EXECUTION_CODES.limit, undefined, {
      limit,
      running: holders(running),
      oldest_expires_at: iso(soonest ?? new Date()),
    });
  }

  /** Whether this refusal goes into the audit log (at most one per license a minute, per instance). */
  private auditThisRefusal(licenseId: string): boolean {
    const now = Date.now();
    const last = this.refusalsAudited.get(licenseId);
    if (last !== undefined && now - last < REFUSAL_AUDIT_EVERY_MS) return false;
    if (this.refusalsAudited.size > 10_000) this.refusalsAudited.clear();
    this.refusalsAudited.set(licenseId, now);
    return true;
  }

  async start(input: StartExecutionRequest, idempotencyKey?: string) {
    const license = await this.license(input.license_key);
    const limit = limitOf(license);
    const machineId = input.machine_id.trim();
    const feature = input.feature ?? "";
    const idempotency = idempotencyKey
      ? {
          scope: `execution-start:${license.id}:${machineId}`,
          key: idempotencyKey,
          requestHash: createHash("sha256").update(JSON.stringify({ machineId, feature })).digest("hex"),
          expiredBefore: new Date(Date.now() - RETENTION.idempotencyKeyMs),
        }
      : undefined;
    const outcome = await eq.startExecution(
      this.db,
      { licenseId: license.id, machineId, feature, limit, idempotency },
      (tx, running) =>
        this.auditThisRefusal(license.id)
          ? recordEvent(tx, {
              type: "execution.refused",
              actor: { type: "service", id: "license-api" },
              target: { type: "license", id: license.id },
              licenseId: license.id,
              customerId: license.customerId,
              before: null,
              after: { machine_id: machineId, running: running.length, limit },
            })
          : Promise.resolve(),
    );
    if (outcome.outcome === "license-not-in-force") this.notInForce(outcome.code);
    if (outcome.outcome === "not-activated") this.notActivated();
    if (outcome.outcome === "limit") this.refused(outcome.running, limit ?? outcome.running.length);
    if (outcome.outcome === "replay") return this.replay(license, outcome.stored, idempotency!.requestHash, limit);
    await this.changed(license.licenseKey);
    return { execution: leaseView(outcome.lease), running: outcome.running, limit, revived: false };
  }

  /** A retried start: the execution the first attempt started, as it is now. */
  private async replay(
    license: LicenseRow,
    stored: { requestHash: string; executionId: string | null; running: number } | null,
    requestHash: string,
    limit: number | null,
  ) {
    if (stored && stored.requestHash !== requestHash) {
      throw new HttpProblem(
        422,
        "This Idempotency-Key was already used for a different request.",
        "IDEMPOTENCY_KEY_REUSED",
      );
    }
    const lease = stored?.executionId ? await eq.leaseById(this.db, license.id, stored.executionId) : null;
    if (!lease) {
      throw new HttpProblem(
        409,
        "A request with this Idempotency-Key is still being processed.",
        "IDEMPOTENCY_IN_PROGRESS",
      );
    }
    return { execution: leaseView(lease), running: stored!.running, limit, revived: false };
  }

  async heartbeat(executionId: string, input: { license_key: string; machine_id: string }) {
    const license = await this.license(input.license_key);
    const limit = limitOf(license);
    const machineId = input.machine_id.trim();
    // A live lease: one conditional write, no lock. Anything else (expired, ended, unknown, machine gone): decided
    // under the license lock.
    const alive = await eq.keepAlive(this.db, { licenseId: license.id, machineId, leaseId: executionId });
    if (alive) {
      return {
        execution: leaseView(alive),
        running: await eq.runningCount(this.db, license.id),
        limit,
        revived: false,
      };
    }
    const outcome = await eq.heartbeatExecution(this.db, {
      licenseId: license.id,
      machineId,
      leaseId: executionId,
      limit,
    });
    switch (outcome.outcome) {
      case "not-found":
        throw new HttpProblem(404, EXECUTION_MESSAGES.notFound, EXECUTION_CODES.notFound);
      case "ended":
        throw new HttpProblem(410, EXECUTION_MESSAGES.ended, EXECUTION_CODES.ended);
      case "license-not-in-force":
        return this.notInForce(outcome.code);
      case "not-activated":
        await this.changed(license.licenseKey);
        return this.notActivated();
      case "limit":
        return this.refused(outcome.running, limit ?? outcome.running.length);
    }
    // A revival changes what runs; a plain heartbeat shows on the dashboard as a later expiry only.
    if (outcome.revived) await this.changed(license.licenseKey);
    return { execution: leaseView(outcome.lease), running: outcome.running, limit, revived: outcome.revived };
  }

  /** The app ends its execution (idempotent: an ended one answers how it ended). */
  async end(executionId: string, input: { license_key: string; machine_id: string }) {
    const license = await this.license(input.license_key);
    const outcome = await eq.endExecution(this.db, {
      licenseId: license.id,
      machineId: input.machine_id.trim(),
      leaseId: executionId,
      reason: "completed",
    });
    if (outcome.outcome === "not-found") {
      throw new HttpProblem(404, EXECUTION_MESSAGES.notFound, EXECUTION_CODES.notFound);
    }
    if (outcome.now) await this.changed(license.licenseKey);
    return endedView(outcome.lease);
  }

  /** What runs on the license now (the CLI's list): names, not machine ids, for the other machines. */
  async running(input: { license_key: string; machine_id: string }) {
    const license = await this.license(input.license_key);
    const machineId = input.machine_id.trim();
    const running = await eq.runningExecutions(this.db, [license.id], new Date());
    return {
      limit: limitOf(license),
      running: running.map((lease) => ({
        id: lease.machineId === machineId ? lease.id : "",
        feature: lease.feature,
        this_machine: lease.machineId === machineId,
        display_id: lease.displayId,
        machine_name: lease.machineName,
        started_at: iso(lease.startedAt),
        expires_at: iso(lease.expiresAt),
      })),
    };
  }

  /** The owner or an admin ends a running execution; its app hears EXECUTION_ENDED at its next heartbeat. */
  async forceEnd(
    license: LicenseRow,
    executionId: string,
    by: {
      actor: Actor;
      reason: Extract<ExecutionEndReason, "ended_by_owner" | "ended_by_admin">;
      note?: string | null;
    },
    address: string | null,
  ) {
    const outcome = await eq.endExecution(
      this.db,
      { licenseId: license.id, leaseId: executionId, reason: by.reason },
      (tx, lease) =>
        recordEvent(tx, {
          type: "execution.ended",
          actor: by.actor,
          target: { type: "execution", id: lease.id },
          licenseId: license.id,
          customerId: license.customerId,
          before: { status: "running", machine_id: lease.machineId, started_at: iso(lease.startedAt) },
          after: { status: "ended", end_reason: by.reason },
          reason: by.note ?? null,
          address,
        }),
    );
    if (outcome.outcome === "not-found") {
      throw new HttpProblem(404, EXECUTION_MESSAGES.notFound, EXECUTION_CODES.notFound);
    }
    if (outcome.now) await this.changed(license.licenseKey);
    return endedView(outcome.lease);
  }

  private notInForce(code: "SUSPENDED" | "EXPIRED" | "NOT_FOUND"): never {
    throw new HttpProblem(code === "NOT_FOUND" ? 404 : 403, LICENSE_CODE_MESSAGES[code], code);
  }

  private notActivated(): never {
    throw new HttpProblem(403, LICENSE_CODE_MESSAGES.NOT_ACTIVATED, "NOT_ACTIVATED");
  }
}

function endedView(lease: eq.LeaseRow) {
  return {
    ended: true as const,
    end_reason: (lease.endReason ?? "completed") as ExecutionEndReason,
    ended_at: iso(lease.endedAt ?? new Date()),
  };
}
