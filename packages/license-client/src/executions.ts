/**
 * Execution leases (decisions 0048, 0052): a plan caps how many executions run at once across all of a license's
 * machines. An `Execution` is one running execution: started by LicenseManager.startExecution (or runExecution), kept
 * with heartbeats in the background at the interval the server gives, ended with `end()`. Its `signal` aborts when the
 * lease is no longer held — the server stopped or lost it (ExecutionEndedError is the reason), or this app ended it.
 *
 * Online, it also holds a watch open (POST /api/license/executions/watch): when its owner or an admin ends it, its
 * machine loses its slot, the plan's limit is lowered or the license is suspended, the server answers the watch at once
 * and `signal` aborts within about a second. Stop the work, then call `end()`: a stopped execution holds its slot until
 * its app has said it stopped (or its heartbeat window has passed), so nothing else starts while it still runs.
 *
 * A heartbeat the server cannot answer (network, timeout, 5xx, 429, an answer not signed by a trusted key) ends
 * nothing: it is tried again sooner, and a lease silent for a while is revived by the server within its revival window
 * (EXECUTION_RULES). Only the server's own "no" ends the execution.
 *
 * When the process is asked to stop (SIGINT, SIGTERM) or runs out of work (beforeExit), open leases are ended, within
 * a bounded wait, then the process exits as it would have. A hard crash ends nothing here: the server expires the lease
 * once it has been silent for its interval plus the drift allowance.
 */
import { EXECUTION_MESSAGES, type ExecutionEndReason } from "@flotilla/contracts/executions";
import { LICENSE_CODE_MESSAGES, type LicenseCode } from "@flotilla/contracts/tiers";
import { EXECUTION_EXIT_WAIT_MS } from "@flotilla/contracts/timings";
import type { EndExecutionResult, ExecutionAnswer, WatchExecutionsResult } from "./client";
import { ExecutionEndedError, LicenseApiError } from "./errors";

/** How long ending the open leases may hold up a process that is exiting. */
export const EXIT_END_TIMEOUT_MS = EXECUTION_EXIT_WAIT_MS;
/** First retry after a heartbeat the server could not answer; doubles up to the heartbeat interval. */
const DEFAULT_RETRY_MS = 10_000;
/** A watch is held this much shorter than a call may take, so a quiet one is answered, not abandoned. @internal */
export const WATCH_MARGIN_SECONDS = 5;
/** Before asking again after a watch answered early with nothing changed (a busy or stopping server). */
const WATCH_PAUSE_MS = 5_000;

/** What the README and the docs state (test/readme.test.ts keeps them equal). @internal */
export const EXECUTION_TIMINGS_FOR_DOCS = { exitWaitMs: EXIT_END_TIMEOUT_MS, retryMs: DEFAULT_RETRY_MS } as const;

export interface StartExecutionOptions {
  /** What runs, in lower-case words joined by hyphens (counted under it in the usage figures). */
  feature?: string;
  /** Cancels the start; aborted once the execution runs, it ends the execution (and aborts its `signal`). */
  signal?: AbortSignal;
  /** End the lease when the process is asked to stop or runs out of work (default true). */
  endOnExit?: boolean;
  /** A heartbeat the server could not answer (the execution goes on; the heartbeat is tried again sooner). */
  onHeartbeatError?: (error: unknown) => void;
  /** First retry after such a heartbeat, in ms (default 10 000); doubles up to the heartbeat interval. */
  retryMs?: number;
  /** Timer functions (injectable for tests). */
  setTimeout?: (callback: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
}

/** What `end()` found. */
export interface ExecutionEnd {
  /**
   * The server no longer counts the execution: it said how it ended, or that it holds no such lease. False when it
   * could not be told (the lease then expires on its own) and for an execution that ran offline.
   */
  confirmed: boolean;
  /** How the server says it ended (`completed`, `expired`, `ended_by_owner`, `ended_by_admin`), when it said. */
  endReason: ExecutionEndReason | null;
  endedAt: Date | null;
  /**
   * It ran offline on a license file: the server never saw it. Report it as usage (LicenseManager.report) once the
   * server answers again; an online execution is counted by the server and must not be reported.
   */
  reportAsUsage: boolean;
  /** Why the server could not be told, when it could not. */
  error: unknown;
}

/** How an Execution talks to the server (or, offline, to the local count). Built by LicenseManager. */
export type ExecutionDriver =
  | {
      mode: "online";
      heartbeat(signal: AbortSignal): Promise<ExecutionAnswer>;
      end(signal: AbortSignal | undefined): Promise<EndExecutionResult>;
      /** Held until this execution is stopped or ended or the license is no longer in force (absent: no watch). */
      watch?(signal: AbortSignal): Promise<WatchExecutionsResult>;
    }
  | {
      mode: "offline";
      /** The license file's expiry: the execution may run until then. */
      expiresAt: Date;
      release(): Promise<void>;
    };

export interface ExecutionInit {
  id: string;
  feature: string;
  startedAt: Date;
  expiresAt: Date;
  heartbeatIntervalSeconds: number;
  running: number;
  limit: number | null;
  driver: ExecutionDriver;
  options: StartExecutionOptions;
  now: () => Date;
}

/**
 * Codes after which the server holds no lease to end (the license or the lease is gone). A stopped execution, or one
 * of a suspended or expired license, is ended: that is how the server learns it has stopped.
 */
const NOTHING_TO_END = new Set(["EXECUTION_NOT_FOUND", "NOT_ACTIVATED", "NOT_FOUND"]);

/** One running execution. Made by LicenseManager.startExecution. */
export class Execution {
  /** The server's lease id (a UUID); offline, a local one. */
  readonly id: string;
  readonly feature: string;
  /** "online": a lease on the server; "offline": counted on this machine while running on a license file. */
  readonly mode: "online" | "offline";
  readonly startedAt: Date;
  /** Aborts when the lease is no longer held; its reason says why (ExecutionEndedError, or the caller's reason). */
  readonly signal: AbortSignal;
  readonly #driver: ExecutionDriver;
  readonly #controller = new AbortController();
  readonly #intervalMs: number;
  readonly #retryMs: number;
  readonly #setTimeout: (callback: () => void, ms: number) => unknown;
  readonly #clearTimeout: (handle: unknown) => void;
  readonly #onHeartbeatError: ((error: unknown) => void) | undefined;
  readonly #now: () => Date;
  readonly #callerSignal: AbortSignal | undefined;
  #expiresAt: Date;
  #running: number;
  #limit: number | null;
  #state: "running" | "lost" | "ended" = "running";
  #lostCode: string | null = null;
  #timer: unknown = null;
  #inFlight: AbortController | null = null;
  #watching: AbortController | null = null;
  #failures = 0;
  #ending: Promise<ExecutionEnd> | null = null;
  readonly #onCallerAbort = () => {
    this.#abort(this.#callerSignal?.reason);
    void this.end();
  };

  constructor(init: ExecutionInit) {
    this.id = init.id;
    this.feature = init.feature;
    this.mode = init.driver.mode;
    this.startedAt = init.startedAt;
    this.#expiresAt = init.expiresAt;
    this.#running = init.running;
    this.#limit = init.limit;
    this.#driver = init.driver;
    this.#now = init.now;
    this.signal = this.#controller.signal;
    this.#intervalMs = Math.max(1, init.heartbeatIntervalSeconds) * 1000;
    this.#retryMs = Math.max(1, init.options.retryMs ?? DEFAULT_RETRY_MS);
    this.#onHeartbeatError = init.options.onHeartbeatError;
    this.#setTimeout =
      init.options.setTimeout ??
      ((callback, ms) => {
        const handle = setTimeout(callback, ms);
        // Heartbeats never keep a process alive on their own: a process with nothing else to do exits (beforeExit).
        handle.unref?.();
        return handle;
      });
    this.#clearTimeout = init.options.clearTimeout ?? ((handle) => clearTimeout(handle as NodeJS.Timeout));
    this.#callerSignal = init.options.signal;
    if (init.options.endOnExit !== false) track(this);
    this.#schedule(this.#intervalMs);
    // From the next turn: an execution ended at once (its work failed to start) never opens a watch. The watch keeps
    // its own (real, unref'd) timers: the injectable ones pace the heartbeats.
    const { watch } = this.#driver.mode === "online" ? this.#driver : {};
    if (watch) later(() => void this.#watch(watch), 0);
    if (this.#callerSignal?.aborted) this.#onCallerAbort();
    else this.#callerSignal?.addEventListener("abort", this.#onCallerAbort, { once: true });
  }

  /** When the lease stops counting if no heartbeat arrives (offline: when the license file expires). */
  get expiresAt(): Date {
    return this.#expiresAt;
  }

  /** The license's running executions at the last answer, this one included (offline: on this machine). */
  get running(): number {
    return this.#running;
  }

  /** The plan's limit at the last answer (null: unlimited). */
  get limit(): number | null {
    return this.#limit;
  }

  /** The lease is no longer held (ended here, or ended or lost by the server). */
  get ended(): boolean {
    return this.#state !== "running";
  }

  /**
   * Sends a heartbeat now (the background ones go on from here). Rejects with what went wrong: ExecutionEndedError
   * when the lease is no longer held, or the connectivity error (the execution goes on).
   */
  async heartbeat(): Promise<void> {
    if (this.#state !== "running") throw this.#endedError();
    if (this.#timer !== null) this.#clearTimeout(this.#timer);
    this.#timer = null;
    const error = await this.#beat();
    if (error !== null) throw error;
  }

  /**
   * Ends the execution: the heartbeats stop, `signal` aborts, and the server frees the slot and counts the execution
   * once. Never rejects; idempotent (every call answers the first one's outcome). `signal` bounds the wait.
   */
  end(options: { signal?: AbortSignal } = {}): Promise<ExecutionEnd> {
    this.#ending ??= this.#end(options.signal);
    return this.#ending;
  }

  async #end(signal: AbortSignal | undefined): Promise<ExecutionEnd> {
    const lostCode = this.#lostCode;
    this.#stop();
    this.#abort(new ExecutionEndedError("This execution was ended by this app.", "COMPLETED", this.id, null), "ended");
    try {
      if (this.#driver.mode === "offline") {
        await this.#driver.release().catch(() => {});
        return { confirmed: false, endReason: null, endedAt: this.#now(), reportAsUsage: true, error: null };
      }
      if (lostCode !== null && NOTHING_TO_END.has(lostCode)) {
        return { confirmed: true, endReason: null, endedAt: null, reportAsUsage: false, error: null };
      }
      try {
        const answer = await this.#driver.end(signal);
        return {
          confirmed: true,
          endReason: answer.end_reason,
          endedAt: new Date(answer.ended_at),
          reportAsUsage: false,
          error: null,
        };
      } catch (error) {
        if (error instanceof LicenseApiError && !error.retryable && NOTHING_TO_END.has(error.code ?? "")) {
          return { confirmed: true, endReason: null, endedAt: null, reportAsUsage: false, error: null };
        }
        // The lease expires on its own, and is counted then.
        return { confirmed: false, endReason: null, endedAt: null, reportAsUsage: false, error };
      }
    } finally {
      untrack(this);
    }
  }

  #schedule(ms: number) {
    if (this.#state !== "running") return;
    // One timer at a time, whichever heartbeat (background or heartbeat()) answered last.
    if (this.#timer !== null) this.#clearTimeout(this.#timer);
    this.#timer = this.#setTimeout(() => {
      this.#timer = null;
      void this.#beat();
    }, ms);
  }

  /** One heartbeat; schedules the next. Resolves to the error that happened, or null. */
  async #beat(): Promise<unknown> {
    if (this.#state !== "running") return this.#endedError();
    if (this.#driver.mode === "offline") {
      if (this.#now().getTime() >= this.#driver.expiresAt.getTime()) {
        const error = new ExecutionEndedError(
          "The license file this execution ran on offline has expired: connect to the licensing server.",
          "LICENSE_FILE_EXPIRED",
          this.id,
        );
        this.#lose(error);
        return error;
      }
      this.#schedule(this.#intervalMs);
      return null;
    }
    const controller = new AbortController();
    this.#inFlight = controller;
    try {
      const answer = await this.#driver.heartbeat(controller.signal);
      if (this.#state !== "running") return this.#endedError();
      this.#failures = 0;
      this.#expiresAt = new Date(answer.execution.expires_at);
      this.#running = answer.running;
      this.#limit = answer.limit;
      this.#schedule(Math.max(1, answer.execution.heartbeat_interval_seconds) * 1000);
      return null;
    } catch (error) {
      if (this.#state !== "running") return this.#endedError();
      if (error instanceof LicenseApiError && !error.retryable) {
        const ended = endedBy(error, this.id);
        this.#lose(ended);
        return ended;
      }
      // Could not talk to the server (isConnectivityError), or something unexpected: the execution goes on, and the
      // server revives the lease if it expired meanwhile.
      this.#failures += 1;
      this.#onHeartbeatError?.(error);
      this.#schedule(Math.min(this.#intervalMs, this.#retryMs * 2 ** (this.#failures - 1)));
      return error;
    } finally {
      if (this.#inFlight === controller) this.#inFlight = null;
    }
  }

  /**
   * Watches, one request after another, while the execution runs: an answer that says it no longer runs (or the
   * license is not in force) takes the lease away at once. A watch the server cannot answer is tried again later; one
   * it refuses (an older server without watches) stops watching: the heartbeat still tells.
   */
  async #watch(watch: (signal: AbortSignal) => Promise<WatchExecutionsResult>) {
    let failures = 0;
    while (this.#state === "running") {
      const controller = new AbortController();
      this.#watching = controller;
      const askedAt = Date.now();
      let pauseMs = 0;
      try {
        const answer = await watch(controller.signal);
        if (this.#state !== "running") return;
        failures = 0;
        const mine = answer.executions.find((execution) => execution.id === this.id);
        if (answer.code !== "VALID") {
          this.#lose(new ExecutionEndedError(LICENSE_NOT_IN_FORCE(answer.code), answer.code, this.id, null));
          return;
        }
        if (mine && mine.status !== "running") {
          const code = mine.status === "unknown" ? "EXECUTION_NOT_FOUND" : "EXECUTION_ENDED";
          this.#lose(new ExecutionEndedError(mine.message ?? EXECUTION_MESSAGES.ended, code, this.id, null));
          return;
        }
        if (!answer.changed && Date.now() - askedAt < 1_000) pauseMs = WATCH_PAUSE_MS;
      } catch (error) {
        if (this.#state !== "running") return;
        if (error instanceof LicenseApiError && !error.retryable) return;
        failures += 1;
        pauseMs = Math.min(this.#intervalMs, this.#retryMs * 2 ** (failures - 1));
      } finally {
        if (this.#watching === controller) this.#watching = null;
      }
      if (pauseMs > 0) await this.#pause(pauseMs);
    }
  }

  /** Waits `ms` unless the execution stops meanwhile. */
  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const handle = later(() => {
        this.signal.removeEventListener("abort", done);
        resolve();
      }, ms);
      const done = () => {
        clearTimeout(handle);
        resolve();
      };
      this.signal.addEventListener("abort", done, { once: true });
    });
  }

  /** The server (or the license file's end) took the lease away. */
  #lose(error: ExecutionEndedError) {
    this.#lostCode = error.code;
    this.#stop();
    this.#abort(error, "lost");
    // A lease that expired while its slot was taken is still on the server until its revival window passes: end it
    // now. A stopped one (EXECUTION_ENDED, a license not in force) holds its slot until this app says it has stopped:
    // the app calls end() once its work has stopped, or the exit handler does. After the others, the server holds
    // nothing and no exit handler is needed any more.
    if (error.code === "EXECUTION_LIMIT") void this.end();
    else if (NOTHING_TO_END.has(error.code)) untrack(this);
  }

  #stop() {
    if (this.#timer !== null) this.#clearTimeout(this.#timer);
    this.#timer = null;
    this.#inFlight?.abort();
    this.#inFlight = null;
    this.#watching?.abort();
    this.#watching = null;
    this.#callerSignal?.removeEventListener("abort", this.#onCallerAbort);
  }

  #abort(reason: unknown, state: "lost" | "ended" = "ended") {
    if (this.#state === "running") this.#state = state;
    if (!this.#controller.signal.aborted) this.#controller.abort(reason);
  }

  #endedError(): ExecutionEndedError {
    const reason = this.signal.reason;
    return reason instanceof ExecutionEndedError
      ? reason
      : new ExecutionEndedError("This execution has ended.", "COMPLETED", this.id, null, { cause: reason });
  }
}

/** A timer that never keeps a process alive on its own. */
function later(callback: () => void, ms: number): NodeJS.Timeout {
  const handle = setTimeout(callback, ms);
  handle.unref?.();
  return handle;
}

/** Why a license not in force ends its executions (a watch's `code`), in the server's own words. */
const LICENSE_NOT_IN_FORCE = (code: LicenseCode) => LICENSE_CODE_MESSAGES[code];

/** The server's "no" to a heartbeat, as the reason the lease is no longer held. */
function endedBy(error: LicenseApiError, executionId: string): ExecutionEndedError {
  const code = error.code ?? `HTTP_${error.status}`;
  const message =
    code === "EXECUTION_ENDED"
      ? EXECUTION_MESSAGES.ended
      : code === "EXECUTION_LIMIT"
        ? `This execution was silent too long and its slot was taken meanwhile. ${error.message}`
        : error.message;
  return new ExecutionEndedError(message, code, executionId, error.status, { cause: error });
}

// ── Ending open leases when the process exits ──

const open = new Set<Execution>();
const SIGNALS = ["SIGINT", "SIGTERM"] as const;
let installed = false;
let stopping = false;

/**
 * Ends every execution of this process that is still open, waiting at most `timeoutMs`. The SDK calls it when the
 * process is asked to stop (SIGINT, SIGTERM) or runs out of work (beforeExit); an app that handles those signals
 * itself and exits from its handler should await it first.
 */
export async function endOpenExecutions(timeoutMs: number = EXIT_END_TIMEOUT_MS): Promise<void> {
  if (open.size === 0) return;
  const signal = AbortSignal.timeout(timeoutMs);
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref?.();
  });
  await Promise.race([Promise.all([...open].map((execution) => execution.end({ signal }))), bound]);
  clearTimeout(timer);
}

/** How many executions of this process are open and would be ended at exit. */
export function openExecutionCount(): number {
  return open.size;
}

function track(execution: Execution) {
  open.add(execution);
  if (installed) return;
  installed = true;
  process.on("beforeExit", onBeforeExit);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

function untrack(execution: Execution) {
  open.delete(execution);
  if (open.size === 0 && !stopping) uninstall();
}

function uninstall() {
  if (!installed) return;
  installed = false;
  process.off("beforeExit", onBeforeExit);
  for (const signal of SIGNALS) process.off(signal, onSignal);
}

function onBeforeExit() {
  // Heartbeat timers do not keep the process alive: it ran out of work with leases open. End them; the process then
  // runs out of work again and exits with the code it had.
  if (open.size > 0) void endOpenExecutions();
}

function onSignal(signal: NodeJS.Signals) {
  if (stopping) {
    // Asked twice: stop waiting.
    uninstall();
    reraise(signal);
    return;
  }
  stopping = true;
  void endOpenExecutions().finally(() => {
    stopping = false;
    uninstall();
    reraise(signal);
  });
}

/**
 * Our listener replaced Node's default for this signal; with no other listener, the default is what the process
 * would have done: terminate by the signal. An app with its own listener decides for itself.
 */
function reraise(signal: NodeJS.Signals) {
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}
