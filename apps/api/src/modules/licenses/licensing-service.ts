/**
 * The desktop app's licensing API: validate (bind a machine when a slot is free, sign an offline token)
 * and usage reports. Checks run in a fixed order: NOT_FOUND, SUSPENDED, EXPIRED, MACHINE_REMOVED,
 * TOO_MANY_MACHINES.
 *
 * Validation is naturally idempotent (decide from the current state, record the attempt), so it never replays
 * a stored answer: a repeated request after a suspension or a removal learns about it. Usage reports are not
 * idempotent by nature; with an Idempotency-Key a retry within 24 h gets the first answer and counts once.
 */
import { createHash } from "node:crypto";
import type { UsageRequest, ValidateRequest } from "@flotilla/contracts/licensing";
import { CLIENT_CONFIGURATION, LICENSE_CODE_MESSAGES, type LicenseCode } from "@flotilla/contracts/tiers";
import type { Database } from "../../db/client";
import { RETENTION } from "../../jobs/retention";
import { HttpProblem } from "../../plugins/errors";
import { recordEvent } from "../events/record";
import { AttemptRecorder, utcDay } from "./attempt-recorder";
import { displayIdFor, normalizeLicenseKey } from "./keys";
import type { LicenseCache } from "./license-cache";
import type { LicenseInvalidation } from "./license-invalidation";
import * as q from "./queries";
import type { LicenseSigner } from "./signing";

export interface ValidateResult {
  valid: boolean;
  code: LicenseCode;
  message: string;
  license: {
    tier: string;
    status: string;
    expires_at: string | null;
    features: q.LicenseRow["features"];
    max_machines: number;
  } | null;
  machine: { display_id: string; is_primary: boolean } | null;
  token: string | null;
}

/**
 * Attempts with a key that matches no license share one counter row per day and code; attempts from machines a
 * license does not know (refused ones) share one row per license, day and code. Only what was issued can add rows.
 */
export const UNKNOWN = "";

function requestHash(body: unknown): string {
  return createHash("sha256").update(JSON.stringify(body)).digest("hex");
}

function monthStart(now: Date): string {
  return `${now.toISOString().slice(0, 7)}-01`;
}

export class LicensingService {
  readonly recorder: AttemptRecorder;

  constructor(
    private readonly db: Database,
    private readonly signer: LicenseSigner,
    readonly cache: LicenseCache,
    private readonly invalidation: LicenseInvalidation,
    onError: (error: unknown) => void,
    flushIntervalMs?: number,
  ) {
    this.recorder = new AttemptRecorder(db, onError, flushIntervalMs);
  }

  /** How long a license change may take to be seen by every instance (GET /api/license/configurations). */
  changeVisibleWithinSeconds(): number {
    return this.invalidation.maxStalenessSeconds();
  }

  /** A license changed (status, machines, key): every instance's cache forgets it. */
  changed(licenseKey: string): Promise<void> {
    return this.invalidation.changed(licenseKey);
  }

  private async read(licenseKey: string): Promise<q.LicenseState | null> {
    const generation = this.cache.generation(licenseKey);
    const state = await q.loadLicenseState(this.db, licenseKey);
    this.cache.set(licenseKey, state, generation);
    return state;
  }

  private async state(licenseKey: string): Promise<q.LicenseState | null> {
    const cached = this.cache.get(licenseKey);
    return cached !== undefined ? cached : this.read(licenseKey);
  }

  private codeFor(license: q.LicenseRow, now: Date): LicenseCode | null {
    if (license.status === "suspended") return "SUSPENDED";
    if (license.status === "expired" || (license.expiresAt && license.expiresAt <= now)) return "EXPIRED";
    return null;
  }

  async validate(input: ValidateRequest): Promise<ValidateResult> {
    const now = new Date();
    const licenseKey = normalizeLicenseKey(input.license_key);
    const machineId = input.machine_id.trim();
    const { result, knownMachine } = await this.evaluate(licenseKey, machineId, input, now);
    if (result.code === "NOT_FOUND") this.recorder.record(UNKNOWN, UNKNOWN, result.code, now);
    else this.recorder.record(licenseKey, knownMachine ? machineId : UNKNOWN, result.code, now);
    return result;
  }

  private async evaluate(
    licenseKey: string,
    machineId: string,
    input: ValidateRequest,
    now: Date,
  ): Promise<{ result: ValidateResult; knownMachine: boolean }> {
    const failure = (code: LicenseCode, license: q.LicenseRow | null, knownMachine = false) => ({
      knownMachine,
      result: {
        valid: false,
        code,
        message: LICENSE_CODE_MESSAGES[code],
        license: license ? this.describe(license) : null,
        machine: null,
        token: null,
      } satisfies ValidateResult,
    });

    const state = await this.state(licenseKey);
    if (!state) return failure("NOT_FOUND", null);
    const known = state.machines.has(machineId) || state.removed.has(machineId);
    const blocked = this.codeFor(state.license, now);
    if (blocked) return failure(blocked, state.license, known);

    let isPrimary = state.machines.get(machineId);
    if (isPrimary === undefined) {
      if (state.removed.has(machineId)) return failure("MACHINE_REMOVED", state.license, true);
      const outcome = await q.bindMachine(
        this.db,
        state.license.id,
        {
          machineId,
          displayId: displayIdFor(machineId),
          machineName: input.machine_name,
          platform: input.platform,
          appVersion: input.app_version,
        },
        now,
        (tx, isPrimary) =>
          recordEvent(tx, {
            type: "machine.bound",
            actor: { type: "service", id: "license-api" },
            target: { type: "machine", id: machineId },
            licenseId: state.license.id,
            customerId: state.license.customerId,
            before: null,
            after: {
              display_id: displayIdFor(machineId),
              machine_name: input.machine_name ?? null,
              platform: input.platform ?? null,
              is_primary: isPrimary,
            },
          }),
      );
      if (outcome.bound) await this.changed(licenseKey);
      else this.cache.invalidate(licenseKey);
      if (!outcome.bound) {
        return outcome.reason === "removed"
          ? failure("MACHINE_REMOVED", state.license, true)
          : failure("TOO_MANY_MACHINES", state.license);
      }
      isPrimary = outcome.isPrimary;
    }
    this.recorder.seenMachine(state.license.id, machineId, now);

    const license = this.describe(state.license);
    // The token never outlives the license: a license ending in an hour gets an hour offline, not a week.
    const untilEnd = state.license.expiresAt
      ? Math.floor((state.license.expiresAt.getTime() - now.getTime()) / 1000)
      : Number.POSITIVE_INFINITY;
    const token = await this.signer.sign(
      {
        lic: licenseKey,
        mid: machineId,
        tier: license.tier,
        status: license.status,
        features: license.features,
        max_machines: license.max_machines,
        // Everything the app decides from is signed: it never trusts the unsigned `license` beside the token.
        license_expires_at: license.expires_at,
      },
      state.license.id,
      Math.max(1, Math.min(CLIENT_CONFIGURATION.offlineGraceSeconds, untilEnd)),
    );
    return {
      knownMachine: true,
      result: {
        valid: true,
        code: "VALID",
        message: LICENSE_CODE_MESSAGES.VALID,
        license,
        machine: { display_id: displayIdFor(machineId), is_primary: isPrimary },
        token,
      },
    };
  }

  private describe(license: q.LicenseRow) {
    return {
      tier: license.tier,
      status: license.status,
      expires_at: license.expiresAt?.toISOString() ?? null,
      features: license.features,
      max_machines: license.maxMachines,
    };
  }

  /**
   * Records a usage report durably before answering; an unknown, blocked or unbound license is refused. With an
   * Idempotency-Key, a repeat of the same report within 24 h answers as the first did and is not counted again;
   * the key reused for a different report is a 422.
   */
  async reportUsage(
    input: UsageRequest,
    idempotencyKey: string | undefined,
  ): Promise<{ recorded: number; current_month_executions: number }> {
    const now = new Date();
    const licenseKey = normalizeLicenseKey(input.license_key);
    const machineId = input.machine_id.trim();
    const feature = input.feature ?? "";
    const state = await this.state(licenseKey);
    if (!state) throw new HttpProblem(404, LICENSE_CODE_MESSAGES.NOT_FOUND, "NOT_FOUND");
    const blocked = this.codeFor(state.license, now);
    if (blocked) throw new HttpProblem(403, LICENSE_CODE_MESSAGES[blocked], blocked);
    if (!state.machines.has(machineId)) {
      // The cache may predate a bind made by another instance: check the database before refusing.
      const fresh = await this.read(licenseKey);
      if (fresh?.removed.has(machineId)) {
        throw new HttpProblem(403, LICENSE_CODE_MESSAGES.MACHINE_REMOVED, "MACHINE_REMOVED");
      }
      if (!fresh?.machines.has(machineId)) {
        throw new HttpProblem(
          403,
          "This machine is not activated for this license. Validate the license first.",
          "MACHINE_NOT_ACTIVATED",
        );
      }
    }
    const licenseId = state.license.id;
    const scope = `usage:${licenseKey}`;
    const hash = requestHash({ ...input, license_key: licenseKey, machine_id: machineId, feature });
    const expiredBefore = new Date(now.getTime() - RETENTION.idempotencyKeyMs);

    const outcome = await this.db.transaction(async (tx) => {
      if (idempotencyKey) {
        const claimed = await q.claimIdempotencyKey(
          tx,
          { scope, key: idempotencyKey, requestHash: hash, statusCode: 200, response: {} },
          now,
          expiredBefore,
        );
        if (!claimed) return null;
      }
      await q.recordUsage(tx, { licenseId, machineId, feature, executions: input.executions, day: utcDay(now) });
      const month = await q.executionsSince(tx, [licenseId], monthStart(now));
      const answer = { recorded: input.executions, current_month_executions: month };
      if (idempotencyKey) await q.storeIdempotentResponse(tx, scope, idempotencyKey, answer);
      return answer;
    });
    if (outcome) return outcome;

    // The key is held by an earlier request: replay its answer, or refuse a different report under it.
    const stored = await q.findIdempotentAnswer(this.db, scope, idempotencyKey!, expiredBefore);
    if (!stored) {
      throw new HttpProblem(
        409,
        "A request with this Idempotency-Key is still being processed.",
        "IDEMPOTENCY_IN_PROGRESS",
      );
    }
    if (stored.requestHash !== hash) {
      throw new HttpProblem(
        422,
        "This Idempotency-Key was already used for a different request.",
        "IDEMPOTENCY_KEY_REUSED",
      );
    }
    return stored.response as { recorded: number; current_month_executions: number };
  }
}
