/**
 * What the desktop app does with its license: activate a key on this machine, check it (online when the
 * server answers, else offline against the stored signed token until it expires), report usage, forget it.
 *
 * Nothing a user can write is trusted: tokens verify only with the keys the publisher gave (trusted-keys.ts); the machine id is
 * computed again at every check (a state file copied to another computer is not valid there); a token may not
 * outlast the offline grace; and a clock set back (earlier than the last check, or a token issued in the future)
 * means "go online", never "valid".
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import { dirname } from "node:path";
import { EXECUTION_MESSAGES, EXECUTION_RULES } from "@flotilla/contracts/executions";
import { FEATURE_NAME } from "@flotilla/contracts/licensing";
import type { ReleaseArch, ReleaseChannel, ReleasePlatform } from "@flotilla/contracts/releases";
import type { LicenseCode } from "@flotilla/contracts/tiers";
import { decodeJwt } from "jose";
import type {
  CallOptions,
  ExecutionAnswer,
  LicenseClient,
  LicenseFeatures,
  RunningExecutionsResult,
  UsageResult,
  ValidateResult,
} from "./client";
import {
  ExecutionLimitError,
  isConnectivityError,
  LicenseApiError,
  LicenseInputError,
  LicenseStateError,
  LicenseTokenError,
  NotActivatedError,
} from "./errors";
import { Execution, type StartExecutionOptions, WATCH_MARGIN_SECONDS } from "./executions";
import { type ActivationRequestFile, activationRequest, type LicenseFile, verifyLicenseFile } from "./files";
import {
  FileExecutionCounter,
  inProcessCounter,
  type LocalExecutionCounter,
  localExecutionsFolder,
} from "./local-executions";
import { getMachineId } from "./machine-id";
import {
  DEFAULT_CLOCK_TOLERANCE_SECONDS,
  type LicenseTokenClaims,
  type OfflineFailureReason,
  verifyLicenseToken,
} from "./offline";
import { FileStateStore, type LicenseState, type StateStore, type StoredLicense } from "./state";
import { checkTrustedKeys, NO_TRUSTED_KEYS, type TrustedKey, type TrustedKeyInput } from "./trusted-keys";
import {
  type DownloadedUpdate,
  type DownloadUpdateOptions,
  downloadUpdate,
  releaseKeys,
  type Update,
  UpdateError,
} from "./updates";

export interface LicenseManagerOptions {
  client: LicenseClient;
  store: StateStore;
  /** This machine's id, computed at every activation and check (default: getMachineId()). */
  machineId?: () => string;
  /**
   * The keys that sign license tokens (default: the client's). Left out, the client must trust at least one key,
   * else the constructor throws LicenseInputError: a manager that can verify nothing is a mistake, not a mode.
   */
  trustedKeys?: readonly TrustedKeyInput[];
  /** Sent with validations (default: "<platform>-<arch>"). */
  platform?: string;
  appVersion?: string;
  /** The clock (injectable for tests). */
  now?: () => Date;
  clockToleranceSeconds?: number;
  /**
   * Where executions run offline on a license file are counted across this machine's processes (one file per
   * running execution). Default: beside the state file of a FileStateStore; with null, or a store that is not a file,
   * they are counted in this process only.
   */
  executionsFolder?: string | null;
  /**
   * The release public keys embedded in the app (what `flotilla-license release keygen` printed): downloadUpdate
   * installs nothing whose Ed25519 and minisign signatures do not verify with one of them.
   */
  releasePublicKeys?: readonly string[];
}

export interface CheckForUpdateOptions extends CallOptions {
  currentVersion: string;
  platform: ReleasePlatform;
  arch: ReleaseArch;
  /** Default stable; beta is offered only to admitted testers. */
  channel?: ReleaseChannel;
}

export type ManagerDownloadOptions = Omit<DownloadUpdateOptions, "releasePublicKeys" | "currentVersion"> & {
  /** Default: the version the update was checked against. */
  currentVersion?: string;
};

export interface ActivateOptions {
  /** A human name for this machine, shown in the dashboard (default: the hostname). */
  machineName?: string;
  idempotencyKey?: string;
}

export type ActivationResult =
  | { activated: true; result: ValidateResult; state: LicenseState; tokenExpiresAt: Date }
  | { activated: false; result: ValidateResult };

/** "check_failed": no verdict could be reached (e.g. the state file is unreadable); see LicenseSession.onError. */
export type CheckFailureReason = OfflineFailureReason | "no_token" | "check_failed";

export interface LicenseCheck {
  /** "online": the server answered; "offline": it could not be reached (or not trusted) and the stored token decided. */
  mode: "online" | "offline";
  valid: boolean;
  /** The server's code online; "VALID" for a good offline token; null when an offline check failed. */
  code: LicenseCode | null;
  /** Why an offline check failed. */
  reason: CheckFailureReason | null;
  message: string;
  licenseKey: string;
  machineId: string;
  license: StoredLicense | null;
  machine: { display_id: string; is_primary: boolean } | null;
  /** When the stored token, and so offline use, runs out. */
  tokenExpiresAt: Date | null;
  lastValidatedAt: Date | null;
  /** Offline mode: why the server could not be used. */
  offlineCause?: string;
  /** Something worth knowing that did not change the verdict. */
  warning?: string;
  /** When to send the next heartbeat (the server's answer, per tier); null offline. */
  heartbeatIntervalSeconds: number | null;
  /** Offline, when the verdict came from a license file rather than the token. */
  source?: "token" | "license-file";
}

export interface DeactivationResult {
  /** The server freed the slot. */
  released: boolean;
  /** Deactivations the license may still make in the current 24 hours (when the server answered). */
  deactivationsLeft: number | null;
  /** A local activation was forgotten. */
  forgotten: boolean;
}

export class LicenseManager {
  readonly client: LicenseClient;
  readonly store: StateStore;
  readonly #machineId: () => string;
  readonly #trustedKeys: readonly TrustedKey[];
  readonly #platform: string;
  readonly #appVersion: string | undefined;
  readonly #now: () => Date;
  readonly #tolerance: number;
  readonly #executionsFolder: string | null;
  readonly #releasePublicKeys: readonly string[];
  /** The version each update was checked against (to refuse a downgrade and to ask again for a fresh link). */
  readonly #checkedFrom = new WeakMap<Update, CheckForUpdateOptions>();

  constructor(options: LicenseManagerOptions) {
    this.client = options.client;
    this.store = options.store;
    this.#machineId = options.machineId ?? (() => getMachineId());
    if (options.trustedKeys === undefined && options.client.trustedKeys.length === 0) {
      throw new LicenseInputError(NO_TRUSTED_KEYS, "trustedKeys");
    }
    this.#trustedKeys =
      options.trustedKeys === undefined ? options.client.trustedKeys : checkTrustedKeys(options.trustedKeys);
    this.#platform = options.platform ?? `${process.platform}-${process.arch}`;
    this.#appVersion = options.appVersion;
    this.#now = options.now ?? (() => new Date());
    this.#tolerance = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
    this.#releasePublicKeys = options.releasePublicKeys ?? [];
    if (this.#releasePublicKeys.length > 0) releaseKeys(this.#releasePublicKeys);
    this.#executionsFolder =
      options.executionsFolder !== undefined
        ? options.executionsFolder
        : options.store instanceof FileStateStore
          ? dirname(options.store.path)
          : null;
  }

  /** The stored activation, or null. */
  state(): Promise<LicenseState | null> {
    return this.store.read();
  }

  /**
   * Validates `licenseKey` for this machine (binding it when a slot is free). A valid answer must carry a token
   * signed by a trusted key for this license and machine; then it is stored. When the server says no, its
   * answer is returned and any previous activation is left untouched.
   */
  async activate(licenseKey: string, options: ActivateOptions = {}): Promise<ActivationResult> {
    const machineId = this.#machineId();
    const machineName = (options.machineName ?? os.hostname()).trim().slice(0, 128);
    const result = await this.client.validate(
      {
        license_key: licenseKey,
        machine_id: machineId,
        ...(machineName ? { machine_name: machineName } : {}),
        platform: this.#platform,
        ...(this.#appVersion ? { app_version: this.#appVersion } : {}),
      },
      { ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}) },
    );
    if (!result.valid) return { activated: false, result };
    if (!result.token) throw new LicenseTokenError("The server validated the key but sent no token.", "malformed");
    const now = this.#now();
    const verification = await verifyLicenseToken(result.token, this.#trustedKeys, {
      machineId,
      licenseKey,
      now,
      clockToleranceSeconds: this.#tolerance,
    });
    if (!verification.ok) {
      throw new LicenseTokenError(
        `The server's answer cannot be trusted: ${verification.message}`,
        verification.reason,
      );
    }
    const at = now.toISOString();
    const state: LicenseState = {
      version: 2,
      server_url: this.client.baseUrl,
      // The server compares keys upper-case; keep the canonical form.
      license_key: licenseKey.trim().toUpperCase(),
      machine_id: machineId,
      machine_name: machineName || null,
      token: result.token,
      license: licenseFromClaims(verification.claims),
      machine: result.machine,
      activated_at: at,
      last_validated_at: at,
      last_code: result.code,
      last_checked_at: at,
      license_file: null,
    };
    await this.store.write(state);
    return { activated: true, result, state, tokenExpiresAt: verification.expiresAt };
  }

  /**
   * Online when possible, offline otherwise: validates with the server and refreshes the stored token; if the
   * server cannot be reached (network, timeout, 5xx, 429, not an API answer), verifies the stored token.
   * A definitive refusal from the server (4xx) is thrown, not papered over by the offline token.
   */
  async check(): Promise<LicenseCheck> {
    const state = await this.#requireState();
    const foreign = this.#foreignMachine(state);
    if (foreign) return foreign;
    try {
      return await this.#online(state);
    } catch (error) {
      if (!isConnectivityError(error)) throw error;
      return this.#offline(state, (error as Error).message);
    }
  }

  /**
   * A running app's heartbeat: like check(), but online it calls the heartbeat endpoint, which keeps this machine's
   * slot (or wins it back after a silence) and never activates a machine the license does not know.
   */
  async heartbeat(): Promise<LicenseCheck> {
    const state = await this.#requireState();
    const foreign = this.#foreignMachine(state);
    if (foreign) return foreign;
    try {
      return await this.#online(state, "heartbeat");
    } catch (error) {
      if (!isConnectivityError(error)) throw error;
      return this.#offline(state, (error as Error).message);
    }
  }

  /**
   * The entitlements this app may use now, from a signed token or license file verified offline (never from the
   * unsigned copy in the state file); null when nothing valid is held.
   */
  async entitlements(): Promise<LicenseFeatures | null> {
    const state = await this.store.read();
    if (!state || this.#foreignMachine(state)) return null;
    const check = await this.#offline(state);
    return check.valid ? (check.license?.features ?? null) : null;
  }

  /** Whether a feature (e.g. "sharedMemory") is licensed, from signed data only. */
  async hasFeature(feature: Exclude<keyof LicenseFeatures, "maxConcurrentExecutions">): Promise<boolean> {
    return (await this.entitlements())?.[feature] === true;
  }

  /** How many executions may run at once (null: unlimited; 0 when nothing valid is held). */
  async maxConcurrentExecutions(): Promise<number | null> {
    const features = await this.entitlements();
    return features ? features.maxConcurrentExecutions : 0;
  }

  /**
   * A license file for working offline longer than the token allows (up to 90 days): fetched for this activated
   * machine, verified with the pinned keys, kept in the state and returned (to copy elsewhere if wanted).
   */
  async checkout(ttlSeconds?: number): Promise<{ file: LicenseFile; expiresAt: Date }> {
    const state = await this.#requireState();
    if (this.#foreignMachine(state)) {
      throw new NotActivatedError("This activation was made on another machine: activate the license on this one.");
    }
    const file = await this.client.checkout({
      license_key: state.license_key,
      machine_id: state.machine_id,
      ...(ttlSeconds ? { ttl_seconds: ttlSeconds } : {}),
    });
    const verification = await this.#verifyFile(file, state.license_key, state.machine_id, state.last_checked_at);
    if (!verification.ok) {
      throw new LicenseTokenError(`The license file cannot be trusted: ${verification.message}`, verification.reason);
    }
    await this.store.write({ ...state, license_file: file, license: licenseFromClaims(verification.claims) });
    return { file, expiresAt: verification.expiresAt };
  }

  /** For a machine with no network: what to carry to a computer that has one (`flotilla-license exchange`). */
  activationRequest(licenseKey: string, machineName: string = os.hostname()): ActivationRequestFile {
    return activationRequest({
      licenseKey,
      machineId: this.#machineId(),
      machineName: machineName.trim(),
      platform: this.#platform,
      now: this.#now(),
    });
  }

  /**
   * Installs the license file that answered this machine's activation request (or a checkout made elsewhere): it
   * must open with this license key on this machine and verify with the pinned keys.
   */
  async importLicenseFile(file: LicenseFile, licenseKey: string): Promise<LicenseCheck> {
    const machineId = this.#machineId();
    const previous = await this.store.read();
    const verification = await this.#verifyFile(file, licenseKey, machineId, previous?.last_checked_at ?? null);
    if (!verification.ok) {
      throw new LicenseTokenError(`The license file cannot be used here: ${verification.message}`, verification.reason);
    }
    const at = this.#now().toISOString();
    const state: LicenseState = {
      version: 2,
      server_url: previous?.server_url ?? this.client.baseUrl,
      license_key: licenseKey.trim().toUpperCase(),
      machine_id: machineId,
      machine_name: previous?.machine_name ?? null,
      token: previous?.machine_id === machineId ? previous.token : null,
      license: licenseFromClaims(verification.claims),
      machine: previous?.machine ?? null,
      activated_at: previous?.activated_at ?? at,
      last_validated_at: previous?.last_validated_at ?? null,
      last_code: previous?.last_code ?? null,
      last_checked_at: latest(previous?.last_checked_at ?? null, this.#now()),
      license_file: file,
    };
    await this.store.write(state);
    return this.#offline(state);
  }

  #verifyFile(file: LicenseFile, licenseKey: string, machineId: string, lastCheckedAt: string | null) {
    const last = lastCheckedAt ? new Date(lastCheckedAt) : null;
    return verifyLicenseFile(file, this.#trustedKeys, {
      licenseKey,
      machineId,
      now: this.#now(),
      lastCheckedAt: last && !Number.isNaN(last.getTime()) ? last : null,
      clockToleranceSeconds: this.#tolerance,
    });
  }

  /** Online only: throws when the server cannot be reached. */
  async validate(): Promise<LicenseCheck> {
    const state = await this.#requireState();
    return this.#foreignMachine(state) ?? this.#online(state);
  }

  /** Offline only: verifies the stored token against the pinned keys. */
  async verifyOffline(): Promise<LicenseCheck> {
    const state = await this.#requireState();
    return this.#foreignMachine(state) ?? this.#offline(state);
  }

  /** Reports executions for the activated license, from the machine it was activated on. */
  async report(executions: number, feature?: string, options: CallOptions = {}): Promise<UsageResult> {
    const state = await this.#requireState();
    if (this.#foreignMachine(state)) {
      throw new NotActivatedError("This activation was made on another machine: activate the license on this one.");
    }
    return this.client.reportUsage(
      {
        license_key: state.license_key,
        machine_id: state.machine_id,
        executions,
        ...(feature ? { feature } : {}),
      },
      options,
    );
  }

  /**
   * Starts an execution: a lease on one of the license's concurrent executions (its plan caps them across all of its
   * machines), kept with heartbeats in the background until `end()`. At the limit: ExecutionLimitError, whose message
   * the app can show as is. The server counts the execution once when it ends: do not also report it as usage.
   *
   * When the server cannot be reached and this machine holds a valid license file, the execution runs offline,
   * counted on this machine against the file's limit (`mode: "offline"`); report those as usage once back online.
   * Without a license file, the connectivity error is thrown.
   */
  async startExecution(options: StartExecutionOptions = {}): Promise<Execution> {
    options.signal?.throwIfAborted();
    const feature = checkFeature(options.feature);
    const state = await this.#activeState();
    const identity = { license_key: state.license_key, machine_id: state.machine_id };
    let answer: ExecutionAnswer;
    try {
      answer = await this.client.startExecution(
        { ...identity, ...(feature ? { feature } : {}) },
        { ...(options.signal ? { signal: options.signal } : {}) },
      );
    } catch (error) {
      if (!isConnectivityError(error)) throw error;
      const offline = await this.#startOffline(state, feature, options);
      if (offline) return offline;
      throw error;
    }
    const { execution } = answer;
    return new Execution({
      id: execution.id,
      feature: execution.feature,
      startedAt: new Date(execution.started_at),
      expiresAt: new Date(execution.expires_at),
      heartbeatIntervalSeconds: execution.heartbeat_interval_seconds,
      running: answer.running,
      limit: answer.limit,
      options,
      now: this.#now,
      driver: {
        mode: "online",
        heartbeat: (signal) => this.client.executionHeartbeat(execution.id, identity, { signal }),
        end: (signal) => this.client.endExecution(execution.id, identity, { ...(signal ? { signal } : {}) }),
        // Held for less than a call may take, so a quiet watch is answered rather than abandoned.
        watch: (signal) =>
          this.client.watchExecutions(
            {
              ...identity,
              execution_ids: [execution.id],
              wait_seconds: Math.max(
                0,
                Math.min(
                  EXECUTION_RULES.watchHoldSeconds,
                  Math.floor(this.client.timeoutMs / 1000) - WATCH_MARGIN_SECONDS,
                ),
              ),
            },
            { signal },
          ),
      },
    });
  }

  /**
   * Runs `fn` under an execution lease: starts it (ExecutionLimitError at the limit: `fn` is not called), passes it to
   * `fn` (watch `execution.signal`: it aborts if the lease is lost), and ends it when `fn` settles, resolved or
   * rejected. Resolves to what `fn` resolves to; rejects with what it rejects with.
   */
  async runExecution<T>(
    fn: (execution: Execution) => T | PromiseLike<T>,
    options: StartExecutionOptions = {},
  ): Promise<T> {
    const execution = await this.startExecution(options);
    try {
      return await fn(execution);
    } finally {
      await execution.end();
    }
  }

  /** What runs on the license now, on every machine (ids only for this machine's own). Online only. */
  async runningExecutions(options: CallOptions = {}): Promise<RunningExecutionsResult> {
    const state = await this.#activeState();
    return this.client.runningExecutions({ license_key: state.license_key, machine_id: state.machine_id }, options);
  }

  /**
   * Is there a newer build for this machine? The activated license asks (online, signed answer); null when there is
   * none, or when the publisher has not opened downloads for the platform.
   */
  async checkForUpdate(options: CheckForUpdateOptions): Promise<Update | null> {
    const state = await this.#activeState();
    const { currentVersion, platform, arch, channel, ...call } = options;
    const update = await this.client.checkForUpdate(
      {
        license_key: state.license_key,
        machine_id: state.machine_id,
        current_version: currentVersion,
        platform,
        arch,
        ...(channel ? { channel } : {}),
      },
      call,
    );
    if (update) this.#checkedFrom.set(update, options);
    return update;
  }

  /**
   * Downloads `update` to `destPath` (resuming, verified against releasePublicKeys, renamed into place only once
   * verified). A link that stopped working is asked for again once: if the release is no longer offered, it was
   * yanked (UpdateError "yanked"); a downgrade is refused unless `allowDowngrade`.
   */
  async downloadUpdate(
    update: Update,
    destPath: string,
    options: ManagerDownloadOptions = {},
  ): Promise<DownloadedUpdate> {
    const checked = this.#checkedFrom.get(update);
    const currentVersion = options.currentVersion ?? checked?.currentVersion;
    const run = (offer: Update) =>
      downloadUpdate(offer, destPath, {
        ...options,
        releasePublicKeys: this.#releasePublicKeys,
        ...(currentVersion !== undefined ? { currentVersion } : {}),
      });
    try {
      return await run(update);
    } catch (error) {
      if (!(error instanceof UpdateError) || error.reason !== "link_expired" || !checked) throw error;
      const again = await this.checkForUpdate(checked);
      if (!again || again.release_id !== update.release_id) {
        throw new UpdateError(
          `${update.version} was withdrawn by the publisher (yanked): it is no longer offered and will not be installed.${again ? ` ${again.version} is offered instead.` : ""}`,
          "yanked",
        );
      }
      return run(again);
    }
  }

  /** Offline on a license file: the file's limit, counted on this machine. Null when no valid file is held. */
  async #startOffline(
    state: LicenseState,
    feature: string | undefined,
    options: StartExecutionOptions,
  ): Promise<Execution | null> {
    if (!state.license_file) return null;
    // As for any offline verdict: no record of the last check is as suspicious as a clock set back.
    if (!state.last_checked_at || Number.isNaN(Date.parse(state.last_checked_at))) return null;
    const verification = await this.#verifyFile(
      state.license_file,
      state.license_key,
      state.machine_id,
      state.last_checked_at,
    );
    if (!verification.ok) return null;
    const now = this.#now();
    await this.store.write({ ...state, last_checked_at: latest(state.last_checked_at, now) });
    const planned = verification.claims.features.maxConcurrentExecutions;
    const limit = planned ?? EXECUTION_RULES.maxPerMachineUnlimited;
    const id = randomUUID();
    const counter = this.#executionCounter(state);
    let taken: Awaited<ReturnType<LocalExecutionCounter["acquire"]>>;
    try {
      taken = await counter.acquire(limit, { executionId: id, feature: feature ?? "", startedAt: now });
    } catch (error) {
      throw new LicenseStateError(
        `Cannot count offline executions in ${counter.location}: ${(error as Error).message}`,
        counter.location,
        { cause: error },
      );
    }
    const expiresAt = verification.expiresAt;
    if (!taken.ok) {
      const running = taken.holders.map((holder) => ({
        displayId: state.machine?.display_id ?? "this machine",
        machineName: state.machine_name,
        startedAt: holder.startedAt,
        expiresAt,
      }));
      throw new ExecutionLimitError(EXECUTION_MESSAGES.limit(limit), limit, running, expiresAt, "local");
    }
    return new Execution({
      id,
      feature: feature ?? "",
      startedAt: now,
      expiresAt,
      heartbeatIntervalSeconds: EXECUTION_RULES.heartbeatIntervalSeconds,
      running: taken.running,
      limit: planned,
      options,
      now: this.#now,
      driver: { mode: "offline", expiresAt, release: taken.release },
    });
  }

  #executionCounter(state: LicenseState): LocalExecutionCounter {
    return this.#executionsFolder === null
      ? inProcessCounter(state.license_key, state.machine_id)
      : new FileExecutionCounter(localExecutionsFolder(this.#executionsFolder, state.license_key, state.machine_id));
  }

  /** The stored activation, made on this machine. */
  async #activeState(): Promise<LicenseState> {
    const state = await this.#requireState();
    if (this.#foreignMachine(state)) {
      throw new NotActivatedError("This activation was made on another machine: activate the license on this one.");
    }
    return state;
  }

  /**
   * Frees this machine's slot on the server (license key and machine id), then forgets the local activation. A
   * machine the server no longer counts is simply forgotten. With `{ localOnly: true }` nothing is sent: the slot
   * stays taken until the machine goes silent or is removed in the dashboard. Deactivations are capped per license
   * per day (DEACTIVATION_LIMIT is thrown; the activation is then kept).
   */
  async deactivate(options: { localOnly?: boolean } & CallOptions = {}): Promise<DeactivationResult> {
    let state: LicenseState | null;
    try {
      state = await this.store.read();
    } catch (error) {
      // An unreadable state names no slot to free: it can only be forgotten.
      if (!(error instanceof LicenseStateError)) throw error;
      return { released: false, deactivationsLeft: null, forgotten: await this.store.clear() };
    }
    if (!state) return { released: false, deactivationsLeft: null, forgotten: false };
    let released = false;
    let deactivationsLeft: number | null = null;
    if (!options.localOnly && !this.#foreignMachine(state)) {
      try {
        const answer = await this.client.deactivate(
          { license_key: state.license_key, machine_id: state.machine_id },
          { ...(options.signal ? { signal: options.signal } : {}) },
        );
        released = true;
        deactivationsLeft = answer.deactivations_left;
      } catch (error) {
        const gone = error instanceof LicenseApiError && error.status === 404;
        if (!gone) throw error;
      }
    }
    return { released, deactivationsLeft, forgotten: await this.store.clear() };
  }

  async #requireState(): Promise<LicenseState> {
    const state = await this.store.read();
    if (!state) throw new NotActivatedError("This machine is not activated: run activate <license key> first.");
    return state;
  }

  /** A failed check when the state was activated under another machine id than this machine's (a copied file). */
  #foreignMachine(state: LicenseState): LicenseCheck | null {
    const machineId = this.#machineId();
    if (machineId === state.machine_id) return null;
    return {
      mode: "offline",
      valid: false,
      code: null,
      reason: "wrong_machine",
      message: "This activation was made on another machine: activate the license on this one.",
      licenseKey: state.license_key,
      machineId,
      license: state.license,
      machine: null,
      tokenExpiresAt: null,
      lastValidatedAt: state.last_validated_at ? new Date(state.last_validated_at) : null,
      heartbeatIntervalSeconds: null,
    };
  }

  async #online(state: LicenseState, call: "validate" | "heartbeat" = "validate"): Promise<LicenseCheck> {
    const result =
      call === "heartbeat"
        ? await this.client.heartbeat({ license_key: state.license_key, machine_id: state.machine_id })
        : await this.client.validate({
            license_key: state.license_key,
            machine_id: state.machine_id,
            ...(state.machine_name ? { machine_name: state.machine_name.slice(0, 128) } : {}),
            platform: this.#platform,
            ...(this.#appVersion ? { app_version: this.#appVersion } : {}),
          });
    const now = this.#now();
    let signed: StoredLicense | null = null;
    if (result.valid) {
      const verification = result.token
        ? await verifyLicenseToken(result.token, this.#trustedKeys, {
            machineId: state.machine_id,
            licenseKey: state.license_key,
            now,
            clockToleranceSeconds: this.#tolerance,
          })
        : null;
      if (!verification?.ok) {
        // "Valid" without a token this app can verify is no answer at all: whoever sent it cannot sign for the
        // licensing server. Decide as if offline, from the token we hold.
        const why = verification ? verification.message : "the answer carries no token";
        const check = await this.#offline(state, `the server's answer is not signed by a trusted key (${why})`);
        return { ...check, warning: `Ignored an unverifiable "valid" answer: ${why}` };
      }
      // Entitlements come from the signed token, never from the unsigned `license` beside it.
      signed = licenseFromClaims(verification.claims);
    }
    // The server has said no: the old token (and any license file) must not keep the app running offline.
    const token = result.valid ? result.token : null;
    const next: LicenseState = {
      ...state,
      token,
      license_file: result.valid ? (state.license_file ?? null) : null,
      // A refusal's license details are for display only (valid is false); a "valid" one's come from the token.
      license: signed ?? result.license,
      machine: result.machine,
      last_validated_at: now.toISOString(),
      last_code: result.code,
      last_checked_at: latest(state.last_checked_at, now),
    };
    await this.store.write(next);
    return {
      mode: "online",
      valid: result.valid,
      code: result.code,
      reason: null,
      message: result.message,
      licenseKey: next.license_key,
      machineId: next.machine_id,
      license: next.license,
      machine: next.machine,
      tokenExpiresAt: tokenExpiry(token),
      lastValidatedAt: now,
      heartbeatIntervalSeconds: result.heartbeat_interval_seconds ?? null,
    };
  }

  async #offline(state: LicenseState, offlineCause?: string): Promise<LicenseCheck> {
    const now = this.#now();
    const base = {
      mode: "offline" as const,
      heartbeatIntervalSeconds: null,
      licenseKey: state.license_key,
      machineId: state.machine_id,
      machine: state.machine,
      lastValidatedAt: state.last_validated_at ? new Date(state.last_validated_at) : null,
      ...(offlineCause ? { offlineCause } : {}),
    };
    // A failed check shows nothing the state file claims: it is unsigned (only an expired token's date is news).
    const failed = (reason: CheckFailureReason, message: string): LicenseCheck => ({
      ...base,
      valid: false,
      code: null,
      reason,
      message,
      license: null,
      tokenExpiresAt: reason === "expired" ? tokenExpiry(state.token) : null,
    });
    if (!state.token && !state.license_file) {
      return failed(
        "no_token",
        state.last_code && state.last_code !== "VALID"
          ? `The server last answered ${state.last_code}; no offline token is held.`
          : "No offline token is stored: connect to the licensing server to validate.",
      );
    }
    // Fail closed, for the token and the license file alike: a missing or unreadable record of the last check is as
    // suspicious as a clock set back (deleting it must not let an expired file verify again).
    const lastChecked = state.last_checked_at ? Date.parse(state.last_checked_at) : Number.NaN;
    if (Number.isNaN(lastChecked) || lastChecked - now.getTime() > this.#tolerance * 1000) {
      return failed(
        "clock_rollback",
        Number.isNaN(lastChecked)
          ? "The time of the last check is missing from the state: go online to check."
          : `This machine's clock (${now.toISOString()}) is earlier than the last check (${state.last_checked_at}): go online to check.`,
      );
    }
    const fromFile = async (file: NonNullable<LicenseState["license_file"]>): Promise<LicenseCheck> => {
      const verification = await this.#verifyFile(file, state.license_key, state.machine_id, state.last_checked_at);
      if (!verification.ok) return failed(verification.reason, `The license file: ${verification.message}`);
      await this.store.write({ ...state, last_checked_at: latest(state.last_checked_at, now) });
      return {
        ...base,
        valid: true,
        code: "VALID",
        reason: null,
        message: `Valid offline from the license file until ${verification.expiresAt.toISOString()}.`,
        license: licenseFromClaims(verification.claims),
        tokenExpiresAt: verification.expiresAt,
        source: "license-file",
      };
    };
    if (!state.token) return fromFile(state.license_file!);
    const verification = await verifyLicenseToken(state.token, this.#trustedKeys, {
      machineId: state.machine_id,
      licenseKey: state.license_key,
      now,
      clockToleranceSeconds: this.#tolerance,
    });
    if (!verification.ok) {
      // An expired token is not the end while a license file (checked the same way) still holds.
      if (verification.reason === "expired" && state.license_file) {
        const file = await fromFile(state.license_file);
        if (file.valid) return file;
      }
      return failed(verification.reason, verification.message);
    }
    await this.store.write({ ...state, last_checked_at: latest(state.last_checked_at, now) });
    const { claims } = verification;
    return {
      ...base,
      valid: true,
      code: "VALID",
      reason: null,
      message: `Valid offline until ${verification.expiresAt.toISOString()}.`,
      // Entitlements come from the signed claims, never from the unsigned copy in the state file.
      license: licenseFromClaims(claims),
      tokenExpiresAt: verification.expiresAt,
      source: "token",
    };
  }
}

/** The feature as the server stores it (trimmed, lower case), or a LicenseInputError before anything is sent. */
function checkFeature(feature: string | undefined): string | undefined {
  if (feature === undefined) return undefined;
  const normalised = feature.trim().toLowerCase();
  if (!FEATURE_NAME.test(normalised)) {
    throw new LicenseInputError(`feature must be lower-case words joined by hyphens (got "${feature}")`, "feature");
  }
  return normalised;
}

function licenseFromClaims(claims: LicenseTokenClaims): StoredLicense {
  return {
    tier: claims.tier,
    status: claims.status,
    expires_at: claims.license_expires_at ?? null,
    features: claims.features,
    max_machines: claims.max_machines,
  };
}

function latest(previous: string | null, now: Date): string {
  return previous && Date.parse(previous) > now.getTime() ? previous : now.toISOString();
}

/** The token's exp as a Date, without verifying it (for display). */
export function tokenExpiry(token: string | null): Date | null {
  if (!token) return null;
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === "number" ? new Date(exp * 1000) : null;
  } catch {
    return null;
  }
}
