/**
 * The desktop app's licensing API: validate (bind a machine when a slot is free, sign an offline token)
 * and usage reports. Checks run in a fixed order: NOT_FOUND, SUSPENDED, EXPIRED, TOO_MANY_MACHINES.
 */
import { createHash } from "node:crypto";
import type { UsageRequest, ValidateRequest } from "@flotilla/contracts/licensing";
import { CLIENT_CONFIGURATION, LICENSE_CODE_MESSAGES, type LicenseCode } from "@flotilla/contracts/tiers";
import type { Database } from "../../db/client";
import { HttpProblem } from "../../plugins/errors";
import { AttemptRecorder, utcDay } from "./attempt-recorder";
import { displayIdFor, normalizeLicenseKey } from "./keys";
import { LicenseCache } from "./license-cache";
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

export interface IdempotentAnswer<T> {
  statusCode: number;
  body: T;
}

function requestHash(body: unknown): string {
  return createHash("sha256").update(JSON.stringify(body)).digest("hex");
}

function monthStart(now: Date): string {
  return `${now.toISOString().slice(0, 7)}-01`;
}

export class LicensingService {
  readonly cache = new LicenseCache();
  readonly recorder: AttemptRecorder;

  constructor(
    private readonly db: Database,
    private readonly signer: LicenseSigner,
    onError: (error: unknown) => void,
  ) {
    this.recorder = new AttemptRecorder(db, onError);
  }

  private async state(licenseKey: string): Promise<q.LicenseState | null> {
    const cached = this.cache.get(licenseKey);
    if (cached !== undefined) return cached;
    const state = await q.loadLicenseState(this.db, licenseKey);
    this.cache.set(licenseKey, state);
    return state;
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
    const result = await this.evaluate(licenseKey, machineId, input, now);
    this.recorder.record(licenseKey, machineId, result.code, now);
    return result;
  }

  private async evaluate(
    licenseKey: string,
    machineId: string,
    input: ValidateRequest,
    now: Date,
  ): Promise<ValidateResult> {
    const failure = (code: LicenseCode, license: q.LicenseRow | null): ValidateResult => ({
      valid: false,
      code,
      message: LICENSE_CODE_MESSAGES[code],
      license: license ? this.describe(license) : null,
      machine: null,
      token: null,
    });

    const state = await this.state(licenseKey);
    if (!state) return failure("NOT_FOUND", null);
    const blocked = this.codeFor(state.license, now);
    if (blocked) return failure(blocked, state.license);

    let isPrimary = state.machines.get(machineId);
    if (isPrimary === undefined) {
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
      );
      this.cache.invalidate(licenseKey);
      if (!outcome.bound) return failure("TOO_MANY_MACHINES", state.license);
      isPrimary = outcome.isPrimary;
    }
    this.recorder.seenMachine(state.license.id, machineId, now);

    const license = this.describe(state.license);
    const token = await this.signer.sign(
      {
        lic: licenseKey,
        mid: machineId,
        tier: license.tier,
        status: license.status,
        features: license.features,
        max_machines: license.max_machines,
      },
      state.license.id,
      CLIENT_CONFIGURATION.offlineGraceSeconds,
    );
    return {
      valid: true,
      code: "VALID",
      message: LICENSE_CODE_MESSAGES.VALID,
      license,
      machine: { display_id: displayIdFor(machineId), is_primary: isPrimary },
      token,
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

  /** Records a usage report durably before answering; an unknown, blocked or unbound license is refused. */
  async reportUsage(input: UsageRequest, idempotencyKey: string | undefined) {
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
      const fresh = await q.loadLicenseState(this.db, licenseKey);
      this.cache.set(licenseKey, fresh);
      if (!fresh?.machines.has(machineId)) {
        throw new HttpProblem(
          403,
          "This machine is not activated for this license. Validate the license first.",
          "MACHINE_NOT_ACTIVATED",
        );
      }
    }
    const licenseId = state.license.id;
    const body = this.normalizedUsageBody(input);

    return this.db.transaction(async (tx) => {
      if (idempotencyKey) {
        const claimed = await q.claimIdempotencyKey(tx, {
          scope: `usage:${licenseKey}`,
          key: idempotencyKey,
          requestHash: requestHash(body),
          statusCode: 200,
          response: {},
        });
        if (!claimed) return { replayed: true as const };
      }
      await q.recordUsage(tx, { licenseId, machineId, feature, executions: input.executions, day: utcDay(now) });
      const month = await q.executionsSince(tx, [licenseId], monthStart(now));
      const answer = { recorded: input.executions, current_month_executions: month };
      if (idempotencyKey) {
        await q.storeIdempotentResponse(tx, `usage:${licenseKey}`, idempotencyKey, answer);
      }
      return { replayed: false as const, answer };
    });
  }

  /**
   * Validate with an Idempotency-Key: a repeat of the same request gets the stored answer and is not
   * counted again; the key reused for a different request is a 422.
   */
  async validateIdempotent(input: ValidateRequest, idempotencyKey: string): Promise<ValidateResult> {
    const scope = `validate:${normalizeLicenseKey(input.license_key)}`;
    const stored = await q.findIdempotentAnswer(this.db, scope, idempotencyKey);
    if (stored) return (await this.replayedAnswer(scope, idempotencyKey, input)) as ValidateResult;
    const result = await this.validate(input);
    await q.saveIdempotentAnswer(this.db, {
      scope,
      key: idempotencyKey,
      requestHash: requestHash(input),
      statusCode: 200,
      response: result,
    });
    return result;
  }

  /** The stored answer for a replayed Idempotency-Key, or a 422 when the key was used for another request. */
  async replayedAnswer(scope: string, key: string, body: unknown) {
    const stored = await q.findIdempotentAnswer(this.db, scope, key);
    if (!stored)
      throw new HttpProblem(
        409,
        "A request with this Idempotency-Key is still being processed.",
        "IDEMPOTENCY_IN_PROGRESS",
      );
    if (stored.requestHash !== requestHash(body)) {
      throw new HttpProblem(
        422,
        "This Idempotency-Key was already used for a different request.",
        "IDEMPOTENCY_KEY_REUSED",
      );
    }
    return stored.response;
  }

  usageScope(licenseKey: string) {
    return `usage:${normalizeLicenseKey(licenseKey)}`;
  }

  normalizedUsageBody(input: UsageRequest) {
    return {
      ...input,
      license_key: normalizeLicenseKey(input.license_key),
      machine_id: input.machine_id.trim(),
      feature: input.feature ?? "",
    };
  }
}
