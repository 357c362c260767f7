/**
 * Execution leases for the desktop app, its owner and admins (decisions 0048, 0052). The license key and machine id say
 * who asks, as on every desktop call; what may run is decided under the license's seat lock (seats/), which announces
 * every change once it has committed: caches, live dashboards and the apps' watches hear it on every instance.
 */
import { createHash } from "node:crypto";
import type {
  StartExecutionRequest,
  WatchExecutionsAnswer,
  WatchExecutionsRequest,
} from "@flotilla/contracts/execution-api";
import {
  EXECUTION_CODES,
  EXECUTION_MESSAGES,
  EXECUTION_RULES,
  EXECUTION_STOP_MESSAGES,
  type ExecutionEndReason,
  type ExecutionStopReason,
} from "@flotilla/contracts/executions";
import { LICENSE_CODE_MESSAGES } from "@flotilla/contracts/tiers";
import DataLoader from "dataloader";
import { eq } from "drizzle-orm";
import type { Database } from "../../db/client";
import { licenses } from "../../db/schema";
import { RETENTION } from "../../jobs/retention";
import { HttpProblem } from "../../plugins/errors";
import { type Actor, recordEvent } from "../events/record";
import type { ExecutionWatches } from "./execution-watches";
import { normalizeLicenseKey } from "./keys";
import type { LicensingService } from "./licensing-service";
import * as leases from "./seats/execution-leases";
import { termsOf } from "./seats/license-terms";
import type { LicenseRow, Seats } from "./seats/seat-lock";

/** Refusals recorded in the audit log per license, at most one in this long (an app retrying must not flood it). */
const REFUSAL_AUDIT_EVERY_MS = 60_000;
/** Heartbeats written in one statement at most (decision 0057). */
const KEEP_ALIVE_BATCH_MAX = 256;

const iso = (date: Date) => date.toISOString();

function holders(held: leases.HeldExecution[]) {
  return held.slice(0, EXECUTION_RULES.holdersNamed).map((lease) => ({
    display_id: lease.displayId ?? lease.machineId,
    machine_name: lease.machineName,
    started_at: iso(lease.startedAt),
    expires_at: iso(lease.expiresAt),
    stopping: lease.stopping,
  }));
}

function leaseView(lease: leases.LeaseRow) {
  return {
    id: lease.id,
    feature: lease.feature,
    started_at: iso(lease.startedAt),
    heartbeat_interval_seconds: EXECUTION_RULES.heartbeatIntervalSeconds,
    expires_at: iso(lease.expiresAt),
  };
}

/** Why a lease no longer runs, in words for the app's user. */
function endedMessage(lease: leases.LeaseRow): string {
  const reason = lease.endReason as ExecutionEndReason | null;
  return reason && reason in EXECUTION_STOP_MESSAGES
    ? EXECUTION_STOP_MESSAGES[reason as ExecutionStopReason]
    : EXECUTION_MESSAGES.ended;
}

function statusOf(lease: leases.LeaseRow): "running" | "stopping" | "ended" {
  if (lease.endedAt) return "ended";
  return lease.stopRequestedAt ? "stopping" : "running";
}

export class ExecutionsService {
  private readonly refusalsAudited = new Map<string, number>();
  /**
   * Live heartbeats that arrive in the same turn of the event loop go to the database as one statement (group commit,
   * decision 0057): each request still waits for its own lease's row before its signed answer. Nothing is cached.
   */
  private readonly keepAlives: DataLoader<leases.KeepAliveInput, leases.KeptAlive>;

  constructor(
    private readonly db: Database,
    private readonly licensing: LicensingService,
    private readonly seats: Seats,
    private readonly watches: ExecutionWatches,
    private readonly onRefused: () => void = () => undefined,
  ) {
    this.keepAlives = new DataLoader((inputs) => leases.keepAliveMany(this.db, inputs), {
      cache: false,
      maxBatchSize: KEEP_ALIVE_BATCH_MAX,
      // After the I/O callbacks of this turn: every heartbeat whose request was read in it joins the statement.
      batchScheduleFn: (flush) => setImmediate(flush),
    });
  }

  /** The license a desktop request names, in force: else the validation code's problem. */
  private async license(licenseKey: string): Promise<LicenseRow> {
    const state = await this.licensing.resolve(normalizeLicenseKey(licenseKey));
    if (!state) throw new HttpProblem(404, LICENSE_CODE_MESSAGES.NOT_FOUND, "NOT_FOUND");
    const blocked = this.licensing.blockedCode(state.license, new Date());
    if (blocked) throw new HttpProblem(403, LICENSE_CODE_MESSAGES[blocked], blocked);
    return state.license;
  }

  /** The license a request names, whatever its status (ending frees, and is allowed on a license not in force). */
  private async anyLicense(licenseKey: string): Promise<LicenseRow> {
    const state = await this.licensing.resolve(normalizeLicenseKey(licenseKey));
    if (!state) throw new HttpProblem(404, LICENSE_CODE_MESSAGES.NOT_FOUND, "NOT_FOUND");
    return state.license;
  }

  private refused(held: leases.HeldExecution[], limit: number): never {
    this.onRefused();
    const soonest = held.reduce<Date | null>(
      (at, lease) => (at === null || lease.expiresAt < at ? lease.expiresAt : at),
      null,
    );
    throw new HttpProblem(409, EXECUTION_MESSAGES.limit(limit), EXECUTION_CODES.limit, undefined, {
      limit,
      running: holders(held),
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
    const outcome = await this.seats.change(license.id, (locked) =>
      leases.startExecution(locked, { machineId, feature, idempotency }, (held, limit) =>
        this.auditThisRefusal(license.id)
          ? recordEvent(locked.tx, {
              type: "execution.refused",
              actor: { type: "service", id: "license-api" },
              target: { type: "license", id: license.id },
              licenseId: license.id,
              customerId: license.customerId,
              before: null,
              after: { machine_id: machineId, running: held.length, limit },
            })
          : Promise.resolve(),
      ),
    );
    if (!outcome) return this.notInForce("NOT_FOUND");
    if (outcome.outcome === "license-not-in-force") return this.notInForce(outcome.code);
    if (outcome.outcome === "not-activated") return this.notActivated();
    if (outcome.outcome === "limit") return this.refused(outcome.held, outcome.limit);
    if (outcome.outcome === "replay") return this.replay(license, outcome.stored, idempotency!.requestHash);
    return { execution: leaseView(outcome.lease), running: outcome.running, limit: outcome.limit, revived: false };
  }

  /** A retried start: the execution the first attempt started, as it is now. */
  private async replay(
    license: LicenseRow,
    stored: { requestHash: string; executionId: string | null; running: number } | null,
    requestHash: string,
  ) {
    if (stored && stored.requestHash !== requestHash) {
      throw new HttpProblem(
        422,
        "This Idempotency-Key was already used for a different request.",
        "IDEMPOTENCY_KEY_REUSED",
      );
    }
    const lease = stored?.executionId ? await leases.leaseById(this.db, license.id, stored.executionId) : null;
    if (!lease) {
      throw new HttpProblem(
        409,
        "A request with this Idempotency-Key is still being processed.",
        "IDEMPOTENCY_IN_PROGRESS",
      );
    }
    return {
      execution: leaseView(lease),
      running: stored!.running,
      limit: termsOf(license).executionLimit,
      revived: false,
    };
  }

  async heartbeat(executionId: string, input: { license_key: string; machine_id: string }) {
    const license = await this.license(input.license_key);
    const machineId = input.machine_id.trim();
    // A live lease: one conditional write, no lock. Anything else (expired, stopped, ended, unknown, its binding gone):
    // decided under the seat lock.
    const alive = await this.keepAlives.load({ licenseId: license.id, machineId, leaseId: executionId });
    if (alive) {
      // A running execution is its machine's sign of life too: the machine keeps its slot while it runs.
      this.licensing.recorder.seenMachine(license.id, machineId, new Date());
      return {
        execution: leaseView(alive.lease),
        running: alive.running,
        limit: termsOf(license).executionLimit,
        revived: false,
      };
    }
    const outcome = await this.seats.change(license.id, (locked) =>
      leases.heartbeatLocked(locked, { machineId, leaseId: executionId }),
    );
    if (!outcome) return this.notInForce("NOT_FOUND");
    switch (outcome.outcome) {
      case "not-found":
        throw new HttpProblem(404, EXECUTION_MESSAGES.notFound, EXECUTION_CODES.notFound);
      case "ended":
        throw new HttpProblem(410, endedMessage(outcome.lease), EXECUTION_CODES.ended, undefined, {
          end_reason: outcome.lease.endReason ?? "completed",
        });
      case "license-not-in-force":
        return this.notInForce(outcome.code);
      case "limit":
        return this.refused(outcome.held, outcome.limit);
    }
    this.licensing.recorder.seenMachine(license.id, machineId, new Date());
    return {
      execution: leaseView(outcome.lease),
      running: outcome.running,
      limit: outcome.limit,
      revived: outcome.revived,
    };
  }

  /**
   * The app ends its execution: it completed, or it has stopped after being stopped (its slot is held until then).
   * Idempotent: an ended one answers how it ended. Allowed on a license no longer in force: ending only frees.
   */
  async end(executionId: string, input: { license_key: string; machine_id: string }) {
    const license = await this.anyLicense(input.license_key);
    const outcome = await leases.endByApp(this.db, {
      licenseId: license.id,
      machineId: input.machine_id.trim(),
      leaseId: executionId,
    });
    if (outcome.outcome === "not-found") {
      throw new HttpProblem(404, EXECUTION_MESSAGES.notFound, EXECUTION_CODES.notFound);
    }
    if (outcome.now) await this.seats.announceExecutions([license.licenseKey]);
    return endedView(outcome.lease);
  }

  /** What holds the license's execution slots now (the CLI's list): names, not machine ids, for the other machines. */
  async running(input: { license_key: string; machine_id: string }) {
    const license = await this.license(input.license_key);
    const machineId = input.machine_id.trim();
    const held = await leases.heldExecutions(this.db, [license.id], new Date());
    return {
      limit: termsOf(license).executionLimit,
      running: held.map((lease) => ({
        id: lease.machineId === machineId ? lease.id : "",
        feature: lease.feature,
        this_machine: lease.machineId === machineId,
        display_id: lease.displayId ?? lease.machineId,
        machine_name: lease.machineName,
        started_at: iso(lease.startedAt),
        expires_at: iso(lease.expiresAt),
        stopping: lease.stopping,
      })),
    };
  }

  /**
   * The app's watch (decision 0052): answered at once when one of its executions on this machine no longer runs or
   * the license is no longer in force, else held until that happens or its hold passes.
   */
  async watch(input: WatchExecutionsRequest, aborted: AbortSignal): Promise<WatchExecutionsAnswer> {
    const requestKey = normalizeLicenseKey(input.license_key);
    const machineId = input.machine_id.trim();
    const ids = [...new Set(input.execution_ids)];
    const state = await this.licensing.resolve(requestKey);
    const unknown = (code: WatchExecutionsAnswer["code"]) => ({
      code,
      changed: true,
      executions: ids.map((id) => ({ id, status: "unknown" as const, end_reason: null, message: null })),
    });
    if (!state) return unknown("NOT_FOUND");
    const licenseId = state.license.id;
    const check = async (): Promise<WatchExecutionsAnswer> => {
      // The database, not the cache: the change that woke this watch has committed; a cached state may predate it.
      const [license] = await this.db.select().from(licenses).where(eq(licenses.id, licenseId));
      if (!license) return unknown("NOT_FOUND");
      const blocked = this.licensing.blockedCode(license, new Date());
      const found = new Map(
        (await leases.leasesOfMachine(this.db, { licenseId, machineId, leaseIds: ids })).map((lease) => [
          lease.id,
          lease,
        ]),
      );
      const executions = ids.map((id) => {
        const lease = found.get(id);
        if (!lease) return { id, status: "unknown" as const, end_reason: null, message: null };
        const status = statusOf(lease);
        return {
          id,
          status,
          end_reason: status === "running" ? null : ((lease.endReason ?? "completed") as ExecutionEndReason),
          message: status === "running" ? null : endedMessage(lease),
        };
      });
      return {
        code: blocked ?? "VALID",
        changed: blocked !== null || executions.some((execution) => execution.status !== "running"),
        executions,
      };
    };
    const holdMs = (input.wait_seconds ?? EXECUTION_RULES.watchHoldSeconds) * 1000;
    return this.watches.hold([...new Set([state.license.licenseKey, requestKey])], holdMs, check, aborted);
  }

  /**
   * The owner or an admin stops a running execution: it is stopping until its app has stopped (within about a second
   * through its watch, at its next heartbeat otherwise) or its heartbeat window has passed; its slot is held until then.
   */
  async stop(
    license: LicenseRow,
    executionId: string,
    by: {
      actor: Actor;
      reason: Extract<ExecutionStopReason, "ended_by_owner" | "ended_by_admin">;
      note?: string | null;
    },
    address: string | null,
  ) {
    const outcome = await this.seats.change(license.id, (locked) =>
      leases.stopExecution(locked, executionId, by.reason, (lease) =>
        recordEvent(locked.tx, {
          type: "execution.ended",
          actor: by.actor,
          target: { type: "execution", id: lease.id },
          licenseId: license.id,
          customerId: license.customerId,
          before: { status: "running", machine_id: lease.machineId, started_at: iso(lease.startedAt) },
          after: { status: "stopping", end_reason: by.reason },
          reason: by.note ?? null,
          address,
        }),
      ),
    );
    if (!outcome || outcome.outcome === "not-found") {
      throw new HttpProblem(404, EXECUTION_MESSAGES.notFound, EXECUTION_CODES.notFound);
    }
    const { lease } = outcome;
    return {
      status: outcome.outcome,
      end_reason: (lease.endReason ?? by.reason) as ExecutionEndReason,
      stop_requested_at: lease.stopRequestedAt ? iso(lease.stopRequestedAt) : null,
      holds_slot_until: outcome.outcome === "stopping" ? iso(lease.expiresAt) : null,
      ended_at: lease.endedAt ? iso(lease.endedAt) : null,
    };
  }

  private notInForce(code: "SUSPENDED" | "EXPIRED" | "NOT_FOUND"): never {
    throw new HttpProblem(code === "NOT_FOUND" ? 404 : 403, LICENSE_CODE_MESSAGES[code], code);
  }

  private notActivated(): never {
    throw new HttpProblem(403, LICENSE_CODE_MESSAGES.NOT_ACTIVATED, "NOT_ACTIVATED");
  }
}

function endedView(lease: leases.LeaseRow) {
  return {
    ended: true as const,
    end_reason: (lease.endReason ?? "completed") as ExecutionEndReason,
    ended_at: iso(lease.endedAt ?? new Date()),
  };
}
