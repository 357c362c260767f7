/**
 * What the desktop app does with its license: activate a key on this machine, check it (online when the
 * server answers, else offline against the stored signed token until it expires), report usage, forget it.
 */
import os from "node:os";
import type { LicenseCode } from "@flotilla/contracts/tiers";
import { decodeJwt, decodeProtectedHeader } from "jose";
import type { CallOptions, LicenseClient, UsageResult, ValidateResult } from "./client";
import { isConnectivityError, LicenseTokenError, NotActivatedError } from "./errors";
import { getMachineId } from "./machine-id";
import { type OfflineFailureReason, verifyLicenseToken } from "./offline";
import type { LicenseState, StateStore, StoredLicense, StoredPublicKey } from "./state";

export interface LicenseManagerOptions {
  client: LicenseClient;
  store: StateStore;
  /** The id to activate with when activate() is not given one (default: getMachineId()). */
  machineId?: () => string;
  /** Sent with validations (default: "<platform>-<arch>"). */
  platform?: string;
  appVersion?: string;
  /** The clock (injectable for tests). */
  now?: () => Date;
}

export interface ActivateOptions {
  machineId?: string;
  /** A human name for this machine, shown in the dashboard (default: the hostname). */
  machineName?: string;
  idempotencyKey?: string;
}

export type ActivationResult =
  | { activated: true; result: ValidateResult; state: LicenseState; tokenExpiresAt: Date }
  | { activated: false; result: ValidateResult };

export interface LicenseCheck {
  /** "online": the server answered; "offline": it could not be reached and the stored token decided. */
  mode: "online" | "offline";
  valid: boolean;
  /** The server's code online; "VALID" for a good offline token; null when an offline check failed. */
  code: LicenseCode | null;
  /** Why an offline check failed. */
  reason: OfflineFailureReason | "no_token" | null;
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
  /** Something worth knowing that did not change the verdict (e.g. the new token could not be verified). */
  warning?: string;
}

export class LicenseManager {
  readonly client: LicenseClient;
  readonly store: StateStore;
  readonly #machineId: () => string;
  readonly #platform: string;
  readonly #appVersion: string | undefined;
  readonly #now: () => Date;

  constructor(options: LicenseManagerOptions) {
    this.client = options.client;
    this.store = options.store;
    this.#machineId = options.machineId ?? (() => getMachineId());
    this.#platform = options.platform ?? `${process.platform}-${process.arch}`;
    this.#appVersion = options.appVersion;
    this.#now = options.now ?? (() => new Date());
  }

  /** The stored activation, or null. */
  state(): Promise<LicenseState | null> {
    return this.store.read();
  }

  /**
   * Validates `licenseKey` for this machine (binding it when a slot is free). When valid, fetches the public
   * key, makes sure the token verifies with it, and stores both. When not, returns the server's answer and
   * leaves any previous activation untouched.
   */
  async activate(licenseKey: string, options: ActivateOptions = {}): Promise<ActivationResult> {
    const machineId = options.machineId ?? this.#machineId();
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

    const publicKey = await this.client.getPublicKey();
    const verification = await verifyLicenseToken(result.token, publicKey.jwk, {
      machineId,
      licenseKey,
      now: this.#now(),
    });
    if (!verification.ok) {
      throw new LicenseTokenError(
        `The server's token does not verify with its public key: ${verification.message}`,
        verification.reason,
      );
    }
    const now = this.#now().toISOString();
    const state: LicenseState = {
      version: 1,
      server_url: this.client.baseUrl,
      // The server compares keys upper-case; keep the canonical form.
      license_key: licenseKey.trim().toUpperCase(),
      machine_id: machineId,
      machine_name: machineName || null,
      token: result.token,
      public_key: publicKey,
      license: result.license,
      machine: result.machine,
      activated_at: now,
      last_validated_at: now,
      last_code: result.code,
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
    try {
      return await this.#online(state);
    } catch (error) {
      if (!isConnectivityError(error)) throw error;
      return this.#offline(state, (error as Error).message);
    }
  }

  /** Online only: throws when the server cannot be reached. */
  async validate(): Promise<LicenseCheck> {
    return this.#online(await this.#requireState());
  }

  /** Offline only: verifies the stored token against the stored public key. */
  async verifyOffline(): Promise<LicenseCheck> {
    return this.#offline(await this.#requireState());
  }

  /** Reports executions for the activated license and machine. */
  async report(executions: number, feature?: string, options: CallOptions = {}): Promise<UsageResult> {
    const state = await this.#requireState();
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
   * Forgets the local activation. The machine keeps its slot on the server until it is removed in the
   * dashboard. True when there was an activation to forget.
   */
  deactivate(): Promise<boolean> {
    return this.store.clear();
  }

  async #requireState(): Promise<LicenseState> {
    const state = await this.store.read();
    if (!state) throw new NotActivatedError("This machine is not activated: run activate <license key> first.");
    return state;
  }

  async #online(state: LicenseState): Promise<LicenseCheck> {
    const result = await this.client.validate({
      license_key: state.license_key,
      machine_id: state.machine_id,
      ...(state.machine_name ? { machine_name: state.machine_name.slice(0, 128) } : {}),
      platform: this.#platform,
      ...(this.#appVersion ? { app_version: this.#appVersion } : {}),
    });
    let token = state.token;
    let publicKey = state.public_key;
    let warning: string | undefined;
    if (result.valid && result.token) {
      const accepted = await this.#acceptToken(result.token, state);
      if (accepted.ok) {
        token = result.token;
        publicKey = accepted.publicKey;
      } else {
        warning = accepted.warning;
      }
    } else {
      // The server has said no: the old token must not keep the app running offline.
      token = null;
    }
    const now = this.#now();
    const next: LicenseState = {
      ...state,
      token,
      public_key: publicKey,
      license: result.license ?? (result.valid ? state.license : null),
      machine: result.machine,
      last_validated_at: now.toISOString(),
      last_code: result.code,
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
      ...(warning ? { warning } : {}),
    };
  }

  /** Verifies a freshly issued token, fetching the public key when we have none or the token names another. */
  async #acceptToken(
    token: string,
    state: LicenseState,
  ): Promise<{ ok: true; publicKey: StoredPublicKey } | { ok: false; warning: string }> {
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return { ok: false, warning: "The server sent a token that is not a JWT; keeping the previous one." };
    }
    const stored = state.public_key && (!kid || state.public_key.kid === kid) ? state.public_key : null;
    const candidates: Array<() => Promise<StoredPublicKey>> = [];
    if (stored) candidates.push(async () => stored);
    candidates.push(() => this.client.getPublicKey());
    let lastMessage = "no public key";
    for (const candidate of candidates) {
      let key: StoredPublicKey;
      try {
        key = await candidate();
      } catch (error) {
        if (!isConnectivityError(error)) throw error;
        return { ok: false, warning: `Cannot fetch the public key (${(error as Error).message}); kept the old token.` };
      }
      const verification = await verifyLicenseToken(token, key.jwk, {
        machineId: state.machine_id,
        licenseKey: state.license_key,
        now: this.#now(),
      });
      if (verification.ok) return { ok: true, publicKey: key };
      lastMessage = verification.message;
      if (verification.reason !== "bad_signature") break;
    }
    return { ok: false, warning: `The server's new token does not verify (${lastMessage}); kept the old token.` };
  }

  async #offline(state: LicenseState, offlineCause?: string): Promise<LicenseCheck> {
    const base = {
      mode: "offline" as const,
      licenseKey: state.license_key,
      machineId: state.machine_id,
      machine: state.machine,
      lastValidatedAt: state.last_validated_at ? new Date(state.last_validated_at) : null,
      ...(offlineCause ? { offlineCause } : {}),
    };
    if (!state.token || !state.public_key) {
      return {
        ...base,
        valid: false,
        code: null,
        reason: "no_token",
        message:
          state.last_code && state.last_code !== "VALID"
            ? `The server last answered ${state.last_code}; no offline token is held.`
            : "No offline token is stored: connect to the licensing server to validate.",
        license: state.license,
        tokenExpiresAt: null,
      };
    }
    const verification = await verifyLicenseToken(state.token, state.public_key.jwk, {
      machineId: state.machine_id,
      licenseKey: state.license_key,
      now: this.#now(),
    });
    if (!verification.ok) {
      return {
        ...base,
        valid: false,
        code: null,
        reason: verification.reason,
        message: verification.message,
        license: state.license,
        tokenExpiresAt: tokenExpiry(state.token),
      };
    }
    const { claims } = verification;
    return {
      ...base,
      valid: true,
      code: "VALID",
      reason: null,
      message: `Valid offline until ${verification.expiresAt.toISOString()}.`,
      license: {
        tier: claims.tier,
        status: claims.status,
        expires_at: state.license?.expires_at ?? null,
        features: claims.features,
        max_machines: claims.max_machines,
      },
      tokenExpiresAt: verification.expiresAt,
    };
  }
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
