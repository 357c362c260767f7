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
import {
  type ActivationRequestFile,
  type CheckoutRequest,
  type DeactivateRequest,
  type HeartbeatRequest,
  LICENSE_ERRORS,
  type LicenseFile,
  type UsageRequest,
  type ValidateRequest,
} from "@flotilla/contracts/licensing";
import { SEAT_RULES } from "@flotilla/contracts/seats";
import { CLIENT_CONFIGURATION, LICENSE_CODE_MESSAGES, type LicenseCode } from "@flotilla/contracts/tiers";
import type { Database } from "../../db/client";
import { RETENTION } from "../../jobs/retention";
import { HttpProblem } from "../../plugins/errors";
import { recordEvent } from "../events/record";
import { AttemptRecorder, utcDay } from "./attempt-recorder";
import { displayIdFor, normalizeLicenseKey } from "./keys";
import type { LicenseCache } from "./license-cache";
import { createLicenseFile } from "./license-files";
import type { LicenseInvalidation } from "./license-invalidation";
import * as q from "./queries";
import { termsOf } from "./seats/license-terms";
import * as slots from "./seats/machine-slots";
import { Seats } from "./seats/seat-lock";
import type { LicenseSigner } from "./signing";

export interface ValidateResult {
  valid: boolean;
  code: LicenseCode;
  message: string;
  license: {
    tier: string;
    status: string;
    expires_at: string | null;
    features: ReturnType<typeof termsOf>["features"];
    max_machines: number;
  } | null;
  machine: { display_id: string; is_primary: boolean } | null;
  token: string | null;
  heartbeat_interval_seconds: number | null;
}

/**
 * Attempts with a key that matches no license share one counter row per day and code; attempts from machines a
 * license does not know (refused ones) are counted by machine id for the first few a day, then share one row per
 * license, day and code (AttemptRecorder.recordRefused). Only what was issued can add rows, and few of them.
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

  /** Every change to who holds a slot, under the license's seat lock, announced on every instance after commit. */
  readonly seats: Seats;
  /** This second's offline tokens (`tokenFor`). */
  private tokens = { second: -1, byRow: new WeakMap<q.LicenseRow, Map<string, string>>() };

  constructor(
    private readonly db: Database,
    private readonly signer: LicenseSigner,
    readonly cache: LicenseCache,
    private readonly invalidation: LicenseInvalidation,
    onError: (error: unknown) => void,
    flushIntervalMs?: number,
  ) {
    this.recorder = new AttemptRecorder(db, onError, flushIntervalMs);
    this.seats = new Seats(
      db,
      (licenseKey) => this.changed(licenseKey),
      (licenseKey) => this.invalidation.executionsChanged(licenseKey),
    );
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
    // A rotated key's state is never cached: the license's changes (removal, suspension, binding, culling) name its
    // current key, so an entry under the old key would not hear of them until it expired.
    if (!state?.keyValidUntil) this.cache.set(licenseKey, state, generation);
    return state;
  }

  /** The license a key names now: a rotated key past its grace names none, even from the cache. */
  private async state(licenseKey: string, now = new Date()): Promise<q.LicenseState | null> {
    const cached = this.cache.get(licenseKey);
    const state = cached !== undefined ? cached : await this.read(licenseKey);
    if (state?.keyValidUntil && state.keyValidUntil <= now) return null;
    return state;
  }

  /** The license a key names now (cached; a rotated key in its grace names its license), or null. */
  resolve(licenseKey: string): Promise<q.LicenseState | null> {
    return this.state(licenseKey);
  }

  /** SUSPENDED or EXPIRED when the license is not in force, else null. */
  blockedCode(license: q.LicenseRow, now: Date): LicenseCode | null {
    return this.codeFor(license, now);
  }

  private codeFor(license: q.LicenseRow, now: Date): LicenseCode | null {
    if (license.status === "suspended") return "SUSPENDED";
    if (license.status === "expired" || (license.expiresAt && license.expiresAt <= now)) return "EXPIRED";
    return null;
  }

  async validate(input: ValidateRequest): Promise<ValidateResult> {
    return this.check(input, "validate");
  }

  /**
   * A running app's heartbeat: like a validation (a fresh token, the same codes), but it never activates a new
   * machine — an unknown one answers NOT_ACTIVATED. A machine that lost its slot by silence gets it back if free.
   */
  async heartbeat(input: HeartbeatRequest): Promise<ValidateResult> {
    return this.check(input, "heartbeat");
  }

  private async check(input: ValidateRequest, mode: "validate" | "heartbeat"): Promise<ValidateResult> {
    const now = new Date();
    const licenseKey = normalizeLicenseKey(input.license_key);
    const machineId = input.machine_id.trim();
    const { result, knownMachine, license } = await this.evaluate(licenseKey, machineId, input, now, mode);
    this.record(license, machineId, result.code, knownMachine, now);
    return result;
  }

  /**
   * Decides, in the documented order (NOT_FOUND, SUSPENDED, EXPIRED, MACHINE_REMOVED, NOT_ACTIVATED for heartbeats,
   * TOO_MANY_MACHINES, ACTIVATION_LIMIT), binds or revives the machine when it may, and signs the token.
   */
  private async evaluate(
    licenseKey: string,
    machineId: string,
    input: ValidateRequest,
    now: Date,
    mode: "validate" | "heartbeat",
    /** Checkout and offline activation: refused before anything binds when the owner has not allowed files. */
    forFile = false,
  ): Promise<{
    result: ValidateResult;
    knownMachine: boolean;
    license: q.LicenseRow | null;
    tokenTtlSeconds: number;
    /** Set when the key asked with is a rotated one: it stops working then. */
    keyValidUntil: Date | null;
  }> {
    const failure = (code: LicenseCode, license: q.LicenseRow | null, knownMachine = false) => ({
      knownMachine,
      license,
      tokenTtlSeconds: 0,
      keyValidUntil: null,
      result: {
        valid: false,
        code,
        message: LICENSE_CODE_MESSAGES[code],
        license: license ? this.describe(license) : null,
        machine: null,
        token: null,
        heartbeat_interval_seconds: null,
      } satisfies ValidateResult,
    });

    const state = await this.state(licenseKey, now);
    if (!state) return failure("NOT_FOUND", null);
    const known = state.machines.has(machineId) || state.inactive.has(machineId) || state.removed.has(machineId);
    const blocked = this.codeFor(state.license, now);
    if (blocked) return failure(blocked, state.license, known);
    if (forFile && !state.license.offlineFilesAllowed) return failure("LICENSE_FILES_DISABLED", state.license, known);

    let isPrimary = state.machines.get(machineId);
    if (isPrimary === undefined) {
      if (state.removed.has(machineId)) return failure("MACHINE_REMOVED", state.license, true);
      if (mode === "heartbeat" && !state.inactive.has(machineId)) return failure("NOT_ACTIVATED", state.license);
      // A rotated key in its grace serves the machines that already hold a slot, so they can take the new key; it
      // activates nothing new (a leaked key is worth nothing more once its owner rotated it).
      if (state.keyValidUntil && !state.inactive.has(machineId)) return failure("NOT_FOUND", null);
      const machine = {
        machineId,
        displayId: displayIdFor(machineId),
        machineName: input.machine_name,
        platform: input.platform,
        appVersion: input.app_version,
      };
      const outcome = await this.seats.change(state.license.id, async (locked) => {
        const bound = await slots.bindMachine(locked, machine, (isPrimary, revived) =>
          recordEvent(locked.tx, {
            type: revived ? "machine.revived" : "machine.bound",
            actor: { type: "service", id: "license-api" },
            target: { type: "machine", id: machineId },
            licenseId: state.license.id,
            customerId: state.license.customerId,
            before: revived ? { status: "inactive" } : null,
            after: revived
              ? { status: "active" }
              : {
                  display_id: machine.displayId,
                  machine_name: input.machine_name ?? null,
                  platform: input.platform ?? null,
                  is_primary: isPrimary,
                },
          }),
        );
        if (!bound.bound && bound.reason === "full") {
          // The owner hears about it: the dashboard names the device and offers to free a slot.
          await slots.recordRefusal(locked, machine, () =>
            recordEvent(locked.tx, {
              type: "license.machine_limit_reached",
              actor: { type: "service", id: "license-api" },
              target: { type: "license", id: state.license.id },
              licenseId: state.license.id,
              customerId: state.license.customerId,
              before: null,
              after: {
                machine_name: input.machine_name ?? null,
                platform: input.platform ?? null,
                display_id: machine.displayId,
                max_machines: locked.license.maxMachines,
              },
            }),
          );
        }
        return bound;
      });
      // A refusal decided from the database: this instance's cached state was older than it.
      if (!outcome?.bound) this.cache.invalidate(licenseKey);
      if (!outcome) return failure("NOT_FOUND", null);
      if (!outcome.bound) {
        if (outcome.reason === "removed") return failure("MACHINE_REMOVED", state.license, true);
        if (outcome.reason === "activation-limit") return failure("ACTIVATION_LIMIT", state.license);
        return failure("TOO_MANY_MACHINES", state.license, state.inactive.has(machineId));
      }
      isPrimary = outcome.isPrimary;
    }
    this.recorder.seenMachine(state.license.id, machineId, now);

    const license = this.describe(state.license);
    const terms = termsOf(state.license);
    // The token never outlives the license: a license ending in an hour gets an hour offline, not a week.
    const tokenTtlSeconds = Math.max(
      1,
      Math.min(CLIENT_CONFIGURATION.offlineGraceSeconds, this.secondsLeft(state.license, now)),
    );
    const token = await this.tokenFor(licenseKey, machineId, state.license, license, tokenTtlSeconds, now);
    return {
      knownMachine: true,
      license: state.license,
      tokenTtlSeconds,
      keyValidUntil: state.keyValidUntil,
      result: {
        valid: true,
        code: "VALID",
        message: LICENSE_CODE_MESSAGES.VALID,
        license,
        machine: { display_id: displayIdFor(machineId), is_primary: isPrimary },
        token,
        heartbeat_interval_seconds: terms.heartbeatIntervalSeconds,
      },
    };
  }

  /**
   * Counts the attempt under the license it was decided for (already read: no lookup), so a rotated key's history
   * stays the license's. Unknown keys and machines a license does not know share counters (no row each).
   */
  private record(license: q.LicenseRow | null, machineId: string, code: LicenseCode, knownMachine: boolean, now: Date) {
    if (code === "NOT_FOUND" || !license) this.recorder.record(null, UNKNOWN, code, now);
    else if (knownMachine) this.recorder.record(license.id, machineId, code, now);
    // A refused device: the owner sees it in analytics (the first few a day by id, the rest together).
    else this.recorder.recordRefused(license.id, machineId, code, now);
  }

  /**
   * The offline token for this machine. Within one second, a machine validating again with the same license row (the
   * cache's object: any change to the license loads a new one), key and lifetime gets the token already made: the
   * signer would build the same claims and the same iat, and return the same bytes (Ed25519 is deterministic, and
   * `compactJwtSigner` keeps this second's signatures). Only the claims' JSON and encoding are saved; every decision
   * above was made fresh. Bounded: tokens are made only for machines that hold a slot, and the memo is dropped each
   * second.
   */
  private async tokenFor(
    licenseKey: string,
    machineId: string,
    row: q.LicenseRow,
    license: ReturnType<LicensingService["describe"]>,
    ttlSeconds: number,
    now: Date,
  ): Promise<string> {
    const second = Math.floor(now.getTime() / 1000);
    if (second !== this.tokens.second) this.tokens = { second, byRow: new WeakMap() };
    let forRow = this.tokens.byRow.get(row);
    if (!forRow) {
      forRow = new Map();
      this.tokens.byRow.set(row, forRow);
    }
    const key = `${licenseKey}\n${machineId}\n${ttlSeconds}`;
    let token = forRow.get(key);
    if (token === undefined) {
      token = await this.signer.sign(this.claims(licenseKey, machineId, license), row.id, ttlSeconds);
      forRow.set(key, token);
    }
    return token;
  }

  private secondsLeft(license: q.LicenseRow, now: Date): number {
    return license.expiresAt
      ? Math.floor((license.expiresAt.getTime() - now.getTime()) / 1000)
      : Number.POSITIVE_INFINITY;
  }

  /** Everything the app decides from is signed: it never trusts the unsigned `license` beside the token. */
  private claims(licenseKey: string, machineId: string, license: ReturnType<LicensingService["describe"]>) {
    return {
      lic: licenseKey,
      mid: machineId,
      tier: license.tier,
      status: license.status,
      features: license.features,
      max_machines: license.max_machines,
      license_expires_at: license.expires_at,
    };
  }

  /**
   * A license file for a machine that will be offline: the same checks as a heartbeat (the machine must hold a slot),
   * then a signed, encrypted file lasting `ttlSeconds` (default 30 days, at most 90, never past the license's end).
   */
  async checkout(input: CheckoutRequest): Promise<{ result: ValidateResult; file: LicenseFile | null }> {
    return this.issueFile(input, "heartbeat", input.ttl_seconds);
  }

  /** Activation by files, for a machine with no network: binds it like a validation, answers with its license file. */
  async offlineActivation(
    request: ActivationRequestFile,
    ttlSeconds: number | undefined,
  ): Promise<{ result: ValidateResult; file: LicenseFile | null }> {
    return this.issueFile(
      {
        license_key: request.license_key,
        machine_id: request.machine_id,
        ...(request.machine_name ? { machine_name: request.machine_name } : {}),
        ...(request.platform ? { platform: request.platform } : {}),
      },
      "validate",
      ttlSeconds,
    );
  }

  private async issueFile(input: ValidateRequest, mode: "validate" | "heartbeat", ttlSeconds: number | undefined) {
    const now = new Date();
    const licenseKey = normalizeLicenseKey(input.license_key);
    const machineId = input.machine_id.trim();
    const evaluated = await this.evaluate(licenseKey, machineId, input, now, mode, true);
    const { result } = evaluated;
    this.record(evaluated.license, machineId, result.code, evaluated.knownMachine, now);
    if (!result.valid || !result.license || !evaluated.license) return { result, file: null };
    const license = evaluated.license;
    const ttl = Math.max(
      1,
      Math.min(
        ttlSeconds ?? SEAT_RULES.licenseFileDefaultTtlSeconds,
        SEAT_RULES.licenseFileMaxTtlSeconds,
        this.secondsLeft(evaluated.license, now),
        // A rotated key (in its grace) cannot mint a file that outlives it: a leaked key is not worth 90 days.
        evaluated.keyValidUntil
          ? Math.floor((evaluated.keyValidUntil.getTime() - now.getTime()) / 1000)
          : Number.POSITIVE_INFINITY,
      ),
    );
    // The slot is held for as long as the file works offline (never culled, not removable till then). Decided by the
    // database, not the cache: a file is only issued to a machine that holds a slot of a license in force right now.
    const until = new Date(now.getTime() + ttl * 1000);
    const leased =
      (await this.seats.change(license.id, (locked) =>
        slots.leaseSlotForFile(locked, machineId, until, () =>
          recordEvent(locked.tx, {
            type: "machine.license_file_issued",
            actor: { type: "service", id: "license-api" },
            target: { type: "machine", id: machineId },
            licenseId: license.id,
            customerId: license.customerId,
            before: null,
            after: { valid_until: until.toISOString() },
          }),
        ),
      )) ?? "refused";
    if (leased !== "leased") {
      this.cache.invalidate(licenseKey);
      const code: LicenseCode = leased === "files-disabled" ? "LICENSE_FILES_DISABLED" : "NOT_ACTIVATED";
      return {
        result: {
          ...result,
          valid: false,
          code,
          message: LICENSE_CODE_MESSAGES[code],
          machine: null,
          token: null,
          heartbeat_interval_seconds: null,
        },
        file: null,
      };
    }
    const file = await createLicenseFile(this.signer, {
      claims: this.claims(licenseKey, machineId, result.license),
      subject: evaluated.license.id,
      licenseKey,
      machineId,
      ttlSeconds: ttl,
      now,
    });
    return { result: { ...result, token: null }, file };
  }

  /** The app frees its own slot (capped per license per 24 hours). */
  async deactivate(input: DeactivateRequest): Promise<{ deactivated: true; deactivations_left: number }> {
    const licenseKey = normalizeLicenseKey(input.license_key);
    const state = await this.state(licenseKey);
    if (!state) throw new HttpProblem(404, LICENSE_CODE_MESSAGES.NOT_FOUND, "NOT_FOUND");
    const deactivation = await this.seats.change(state.license.id, (locked) =>
      slots.deactivateMachine(locked, input.machine_id.trim(), (machine) =>
        recordEvent(locked.tx, {
          type: "machine.deactivated",
          actor: { type: "service", id: "license-api" },
          target: { type: "machine", id: machine.machineId },
          licenseId: state.license.id,
          customerId: state.license.customerId,
          before: { display_id: machine.displayId, machine_name: machine.machineName, is_primary: machine.isPrimary },
          after: null,
        }),
      ),
    );
    if (!deactivation) throw new HttpProblem(404, LICENSE_CODE_MESSAGES.NOT_FOUND, "NOT_FOUND");
    const { outcome, left, leaseUntil, retryAfterSeconds } = deactivation;
    if (outcome === "not-found") throw new HttpProblem(404, LICENSE_ERRORS.machineNotActivated, "NOT_ACTIVATED");
    if (outcome === "leased") {
      throw new HttpProblem(409, LICENSE_ERRORS.licenseFileActive(leaseUntil!), "LICENSE_FILE_ACTIVE");
    }
    if (outcome === "limit") {
      throw new HttpProblem(429, LICENSE_ERRORS.deactivationLimit, "DEACTIVATION_LIMIT", retryAfterSeconds);
    }
    if (state.license.licenseKey !== licenseKey) await this.changed(licenseKey);
    return { deactivated: true, deactivations_left: left };
  }

  private describe(license: q.LicenseRow) {
    return {
      tier: license.tier,
      status: license.status,
      expires_at: license.expiresAt?.toISOString() ?? null,
      features: termsOf(license).features,
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
        throw new HttpProblem(403, LICENSE_CODE_MESSAGES.NOT_ACTIVATED, "NOT_ACTIVATED");
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
