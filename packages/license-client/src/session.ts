/**
 * What a running desktop app embeds: one LicenseSession checks the license at start, then sends a heartbeat at the
 * interval the server gives (per tier), and tells the app when the verdict changes (`onStatusChange`). When the
 * server cannot be reached it keeps deciding from the signed token or license file (offline grace) and retries with
 * exponential backoff, never more often than `minRetryMs` nor less often than the heartbeat interval.
 *
 *   const session = new LicenseSession(manager);
 *   session.onStatusChange((status) => ui.showLicense(status));
 *   await session.start();
 *   if (session.hasFeature("sharedMemory")) …
 */
import type { LicenseFeatures } from "./client";
import { NotActivatedError } from "./errors";
import type { LicenseCheck, LicenseManager } from "./license-manager";

export interface LicenseSessionOptions {
  /** Until the server says otherwise (default 10 minutes). */
  defaultIntervalMs?: number;
  /** First retry after a failed heartbeat (default 30 s); doubles up to the heartbeat interval. */
  minRetryMs?: number;
  /** Timer functions (injectable for tests). */
  setTimeout?: (callback: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
}

export type StatusListener = (status: LicenseCheck, previous: LicenseCheck | null) => void;
export type ErrorListener = (error: unknown) => void;

const DEFAULT_INTERVAL_MS = 10 * 60 * 1000;
const DEFAULT_MIN_RETRY_MS = 30 * 1000;

export class LicenseSession {
  readonly #manager: LicenseManager;
  readonly #defaultIntervalMs: number;
  readonly #minRetryMs: number;
  readonly #setTimeout: (callback: () => void, ms: number) => unknown;
  readonly #clearTimeout: (handle: unknown) => void;
  readonly #statusListeners = new Set<StatusListener>();
  readonly #errorListeners = new Set<ErrorListener>();
  #status: LicenseCheck | null = null;
  #timer: unknown = null;
  #failures = 0;
  #running = false;
  #nextDelayMs: number | null = null;

  constructor(manager: LicenseManager, options: LicenseSessionOptions = {}) {
    this.#manager = manager;
    this.#defaultIntervalMs = options.defaultIntervalMs ?? DEFAULT_INTERVAL_MS;
    this.#minRetryMs = options.minRetryMs ?? DEFAULT_MIN_RETRY_MS;
    this.#setTimeout =
      options.setTimeout ??
      ((callback, ms) => {
        const handle = setTimeout(callback, ms);
        handle.unref?.();
        return handle;
      });
    this.#clearTimeout = options.clearTimeout ?? ((handle) => clearTimeout(handle as NodeJS.Timeout));
  }

  /** The latest verdict (null before the first check). */
  get status(): LicenseCheck | null {
    return this.#status;
  }

  /** When the next heartbeat is due, in ms from when it was scheduled (null when stopped). */
  get nextHeartbeatInMs(): number | null {
    return this.#running ? this.#nextDelayMs : null;
  }

  /** Called whenever valid, code, mode or tier changes (and once after the first check). Returns an unsubscribe. */
  onStatusChange(listener: StatusListener): () => void {
    this.#statusListeners.add(listener);
    return () => this.#statusListeners.delete(listener);
  }

  /** Errors that are not "the server could not be reached" (e.g. the state file became unreadable). */
  onError(listener: ErrorListener): () => void {
    this.#errorListeners.add(listener);
    return () => this.#errorListeners.delete(listener);
  }

  /** Entitlements from the latest verified verdict (signed data only); nothing when it is not valid. */
  hasFeature(feature: Exclude<keyof LicenseFeatures, "maxConcurrentExecutions">): boolean {
    return this.#status?.valid === true && this.#status.license?.features[feature] === true;
  }

  /** null: unlimited; 0 when the license is not valid. */
  get maxConcurrentExecutions(): number | null {
    if (!this.#status?.valid || !this.#status.license) return 0;
    return this.#status.license.features.maxConcurrentExecutions;
  }

  /** Checks now (online, else offline) and starts the heartbeat loop. */
  async start(): Promise<LicenseCheck> {
    this.#running = true;
    const status = await this.#run(() => this.#manager.check());
    return status ?? this.#notActivated();
  }

  /** Sends a heartbeat now (the loop goes on from here). */
  async beat(): Promise<LicenseCheck | null> {
    return this.#run(() => this.#manager.heartbeat());
  }

  stop(): void {
    this.#running = false;
    if (this.#timer !== null) this.#clearTimeout(this.#timer);
    this.#timer = null;
  }

  async #run(call: () => Promise<LicenseCheck>): Promise<LicenseCheck | null> {
    if (this.#timer !== null) this.#clearTimeout(this.#timer);
    this.#timer = null;
    let status: LicenseCheck | null = null;
    try {
      status = await call();
    } catch (error) {
      if (error instanceof NotActivatedError) status = this.#notActivated();
      else {
        for (const listener of this.#errorListeners) listener(error);
        // No verdict could be reached (unreadable state, an untrustworthy answer…): the last one must not stand in
        // for it — kept, it would let an app run on for ever past its token, whatever the server decides meanwhile.
        status = this.#failed(error);
      }
    }
    if (status) this.#publish(status);
    this.#schedule(status);
    return status;
  }

  #schedule(status: LicenseCheck | null) {
    if (!this.#running) return;
    const interval = (status?.heartbeatIntervalSeconds ?? 0) * 1000 || this.#defaultIntervalMs;
    let delay: number;
    if (status?.mode === "online") {
      this.#failures = 0;
      delay = interval;
    } else {
      // Offline (or failed): try again sooner, backing off, but at least once per interval.
      delay = Math.min(interval, this.#minRetryMs * 2 ** this.#failures);
      this.#failures += 1;
    }
    // A machine the server refused for good (not activated, removed) has nothing to keep alive.
    if (
      status?.mode === "online" &&
      !status.valid &&
      (status.code === "NOT_ACTIVATED" || status.code === "MACHINE_REMOVED")
    ) {
      this.#nextDelayMs = null;
      return;
    }
    this.#nextDelayMs = delay;
    this.#timer = this.#setTimeout(() => void this.beat(), delay);
  }

  #publish(status: LicenseCheck) {
    const previous = this.#status;
    this.#status = status;
    const changed =
      !previous ||
      previous.valid !== status.valid ||
      previous.code !== status.code ||
      previous.mode !== status.mode ||
      previous.license?.tier !== status.license?.tier;
    if (changed) for (const listener of this.#statusListeners) listener(status, previous);
  }

  #failed(error: unknown): LicenseCheck {
    const previous = this.#status;
    return {
      mode: "offline",
      valid: false,
      code: null,
      reason: "check_failed",
      message: `The license could not be checked: ${error instanceof Error ? error.message : String(error)}`,
      licenseKey: previous?.licenseKey ?? "",
      machineId: previous?.machineId ?? "",
      license: null,
      machine: null,
      tokenExpiresAt: null,
      lastValidatedAt: previous?.lastValidatedAt ?? null,
      heartbeatIntervalSeconds: previous?.heartbeatIntervalSeconds ?? null,
    };
  }

  #notActivated(): LicenseCheck {
    return {
      mode: "offline",
      valid: false,
      code: null,
      reason: "no_token",
      message: "This machine is not activated: activate a license key first.",
      licenseKey: "",
      machineId: "",
      license: null,
      machine: null,
      tokenExpiresAt: null,
      lastValidatedAt: null,
      heartbeatIntervalSeconds: null,
    };
  }
}
