/**
 * HTTP client for the licensing API (/api/license/*): JSON in and out, a timeout per attempt, bounded
 * retries for network failures, 5xx, 429 (honouring Retry-After) and an Idempotency-Key still in progress (409),
 * never for any other 4xx. POSTs carry
 * one Idempotency-Key per logical call, reused across its retries, so a retried usage report counts once.
 */
import { randomUUID } from "node:crypto";
import { ApiErrorSchema } from "@flotilla/contracts/api-errors";
import {
  EndExecutionAnswerSchema,
  ExecutionAnswerSchema,
  type ExecutionLeaseRequest,
  ExecutionLeaseRequestSchema,
  ExecutionRefusalSchema,
  RunningExecutionsAnswerSchema,
  type StartExecutionRequest,
  StartExecutionRequestSchema,
  WatchExecutionsAnswerSchema,
  type WatchExecutionsRequest,
  WatchExecutionsRequestSchema,
} from "@flotilla/contracts/execution-api";
import { EXECUTION_MESSAGES } from "@flotilla/contracts/executions";
import {
  type ActivationRequestFile,
  type CheckoutRequest,
  CheckoutRequestSchema,
  CheckoutResponseSchema,
  type DeactivateRequest,
  DeactivateRequestSchema,
  DeactivateResponseSchema,
  type FeaturesSchema,
  type HeartbeatRequest,
  HeartbeatRequestSchema,
  HeartbeatResponseSchema,
  type LicenseFile,
  LicenseValidateResponseSchema,
  OfflineActivationResponseSchema,
  type UsageRequest,
  UsageRequestSchema,
  UsageResponseSchema,
  type ValidateRequest,
  ValidateRequestSchema,
} from "@flotilla/contracts/licensing";
import {
  type Update,
  UpdateCheckAnswerSchema,
  type UpdateCheckRequest,
  UpdateCheckRequestSchema,
} from "@flotilla/contracts/releases";
import { NONCE_HEADER, SIGNATURE_HEADER } from "@flotilla/contracts/seats";
import { API_MAX_ATTEMPTS, API_TIMEOUT_MS, RETRY_BASE_DELAY_MS, RETRY_MAX_DELAY_MS } from "@flotilla/contracts/timings";
import { newNonce, verifyAnswer } from "./answers";
import {
  ExecutionLimitError,
  LicenseAnswerError,
  LicenseApiError,
  LicenseInputError,
  LicenseNetworkError,
  LicenseProtocolError,
} from "./errors";
import { checkTrustedKeys, PINNED_KEYS, type TrustedKey, type TrustedKeyInput } from "./trusted-keys";

export const DEFAULT_BASE_URL = "http://localhost:3000";
/** The longest Retry-After we are prepared to sit through; a longer one fails the call at once. */
export const DEFAULT_MAX_RETRY_AFTER_MS = 30_000;
const VERSION = "1.1.0";

export type ValidateResult = ReturnType<typeof LicenseValidateResponseSchema.parse>["data"];
export type UsageResult = ReturnType<typeof UsageResponseSchema.parse>["data"];
export type DeactivateResult = ReturnType<typeof DeactivateResponseSchema.parse>["data"];
export type OfflineActivationResult = ReturnType<typeof OfflineActivationResponseSchema.parse>["data"];
export type { ActivationRequestFile, CheckoutRequest, DeactivateRequest, HeartbeatRequest, LicenseFile };
export type LicenseFeatures = ReturnType<typeof FeaturesSchema.parse>;
export type { ExecutionLeaseRequest, StartExecutionRequest, UsageRequest, ValidateRequest };
/** A lease the server granted (or kept): the execution, the license's running count and its limit (null: none). */
export type ExecutionAnswer = ReturnType<typeof ExecutionAnswerSchema.parse>["data"];
/** How an ended execution ended (`completed`, `expired`, `ended_by_owner`, `ended_by_admin`) and when. */
export type EndExecutionResult = ReturnType<typeof EndExecutionAnswerSchema.parse>["data"];
/** The license's running executions: ids only for this machine's own. */
export type RunningExecutionsResult = ReturnType<typeof RunningExecutionsAnswerSchema.parse>["data"];
/** What a watch found: whether the license is in force, and each watched execution's state (decision 0052). */
export type WatchExecutionsResult = ReturnType<typeof WatchExecutionsAnswerSchema.parse>["data"];
export type { WatchExecutionsRequest };

export interface ClientConfiguration {
  heartbeat_interval_seconds: number;
  offline_grace_seconds: number;
  usage_report_interval_seconds: number;
  tiers: Record<string, unknown>;
}

export interface LicenseClientOptions {
  /** Origin of the licensing API, e.g. https://licensing.example.com. Default http://localhost:3000. */
  baseUrl?: string;
  /** A fetch implementation (default: the global fetch). */
  fetch?: typeof globalThis.fetch;
  /** Per-attempt timeout, covering the response body too. Default 30 000 ms. */
  timeoutMs?: number;
  /** Extra attempts after the first for retryable failures. Default 2 (3 attempts in all). */
  retries?: number;
  /** First backoff delay; doubles per attempt. Default 1 000 ms. */
  retryBaseDelayMs?: number;
  /** Backoff ceiling. Default 5 000 ms. */
  retryMaxDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the call fails with the 429/503. Default 30 000 ms. */
  maxRetryAfterMs?: number;
  /** How to wait between attempts (injectable for tests). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Sent as User-Agent. */
  userAgent?: string;
  /**
   * The keys whose signature a licensing answer must carry: your licensing server's Ed25519 public keys (their JWK
   * `x`; checked, ids computed). Default: the keys defined when the app was bundled (PINNED_KEYS), none in the npm
   * package as published. Answers to the desktop calls that are unsigned, signed by another key, made for another
   * request or stale are refused (LicenseAnswerError), so a proxy between the app and the server cannot rewrite them;
   * with no key at all, every one is.
   */
  trustedKeys?: readonly TrustedKeyInput[];
  /** The clock signed answers are checked against (injectable for tests). */
  now?: () => Date;
}

export interface CallOptions {
  /** Reuse a key to make a call you repeat yourself (e.g. after a crash) idempotent; generated otherwise. */
  idempotencyKey?: string;
  /** Cancels the call, including waits between retries. */
  signal?: AbortSignal;
}

interface RequestSpec<T> {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  idempotencyKey?: string;
  signal?: AbortSignal | undefined;
  /** A desktop call: its answer must be signed by a trusted key, for this request. */
  signed?: boolean;
  parse: (json: unknown) => T | undefined;
}

type Attempt =
  | {
      kind: "response";
      status: number;
      statusText: string;
      headers: Headers;
      json: unknown;
      text: string;
      nonce: string | null;
    }
  | { kind: "network"; error: LicenseNetworkError };

export class LicenseClient {
  readonly baseUrl: string;
  /** The keys this client trusts (checked at construction); a LicenseManager uses them unless given its own. */
  readonly trustedKeys: readonly TrustedKey[];
  readonly #fetch: typeof globalThis.fetch;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #baseDelay: number;
  readonly #maxDelay: number;
  readonly #maxRetryAfter: number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #userAgent: string;
  readonly #now: () => Date;

  constructor(options: LicenseClientOptions = {}) {
    this.baseUrl = normaliseBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL);
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#timeoutMs = positive(options.timeoutMs, API_TIMEOUT_MS);
    this.#retries = Math.max(0, Math.floor(options.retries ?? API_MAX_ATTEMPTS - 1));
    this.#baseDelay = Math.max(0, options.retryBaseDelayMs ?? RETRY_BASE_DELAY_MS);
    this.#maxDelay = Math.max(0, options.retryMaxDelayMs ?? RETRY_MAX_DELAY_MS);
    this.#maxRetryAfter = Math.max(0, options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS);
    this.#sleep = options.sleep ?? sleep;
    this.#userAgent = options.userAgent ?? `flotilla-license-client/${VERSION}`;
    this.trustedKeys = options.trustedKeys === undefined ? PINNED_KEYS : checkTrustedKeys(options.trustedKeys);
    this.#now = options.now ?? (() => new Date());
  }

  /** POST /api/license/validate: checks the key and binds this machine if a slot is free. */
  async validate(input: ValidateRequest, options: CallOptions = {}): Promise<ValidateResult> {
    const body = checkInput(ValidateRequestSchema, input);
    return this.#request({
      method: "POST",
      path: "/api/license/validate",
      body,
      idempotencyKey: options.idempotencyKey ?? randomUUID(),
      signal: options.signal,
      signed: true,
      parse: (json) => {
        const parsed = LicenseValidateResponseSchema.safeParse(json);
        return parsed.success ? parsed.data.data : undefined;
      },
    });
  }

  /** POST /api/license/usage: adds executions to this month's count for the bound machine. */
  async reportUsage(input: UsageRequest, options: CallOptions = {}): Promise<UsageResult> {
    const body = checkInput(UsageRequestSchema, input);
    return this.#request({
      method: "POST",
      path: "/api/license/usage",
      body,
      idempotencyKey: options.idempotencyKey ?? randomUUID(),
      signal: options.signal,
      signed: true,
      parse: (json) => {
        const parsed = UsageResponseSchema.safeParse(json);
        return parsed.success ? parsed.data.data : undefined;
      },
    });
  }

  /** POST /api/license/heartbeat: keeps this machine's slot and refreshes its token (never activates). */
  async heartbeat(input: HeartbeatRequest, options: CallOptions = {}): Promise<ValidateResult> {
    return this.#signedPost("/api/license/heartbeat", checkInput(HeartbeatRequestSchema, input), options, (json) => {
      const parsed = HeartbeatResponseSchema.safeParse(json);
      return parsed.success ? parsed.data.data : undefined;
    });
  }

  /** POST /api/license/deactivate: frees this machine's slot on the server. */
  async deactivate(input: DeactivateRequest, options: CallOptions = {}): Promise<DeactivateResult> {
    return this.#signedPost("/api/license/deactivate", checkInput(DeactivateRequestSchema, input), options, (json) => {
      const parsed = DeactivateResponseSchema.safeParse(json);
      return parsed.success ? parsed.data.data : undefined;
    });
  }

  /** POST /api/license/checkout: a license file for this (activated) machine, for working offline. */
  async checkout(input: CheckoutRequest, options: CallOptions = {}): Promise<LicenseFile> {
    return this.#signedPost("/api/license/checkout", checkInput(CheckoutRequestSchema, input), options, (json) => {
      const parsed = CheckoutResponseSchema.safeParse(json);
      return parsed.success ? parsed.data.data.license_file : undefined;
    });
  }

  /** POST /api/license/offline-activations: an offline machine's request file in, its license file out. */
  async exchangeActivationRequest(
    request: ActivationRequestFile,
    options: CallOptions & { ttlSeconds?: number } = {},
  ): Promise<OfflineActivationResult> {
    const body = { request, ...(options.ttlSeconds ? { ttl_seconds: options.ttlSeconds } : {}) };
    return this.#signedPost("/api/license/offline-activations", body, options, (json) => {
      const parsed = OfflineActivationResponseSchema.safeParse(json);
      return parsed.success ? parsed.data.data : undefined;
    });
  }

  /**
   * POST /api/license/executions: a lease on one of the license's concurrent executions, for an activated machine.
   * At the plan's limit: ExecutionLimitError, naming who holds the running ones. Keep it with executionHeartbeat
   * every `heartbeat_interval_seconds`; LicenseManager.startExecution does all of it.
   */
  async startExecution(input: StartExecutionRequest, options: CallOptions = {}): Promise<ExecutionAnswer> {
    return this.#signedPost(
      "/api/license/executions",
      checkInput(StartExecutionRequestSchema, input),
      options,
      (json) => {
        const parsed = ExecutionAnswerSchema.safeParse(json);
        return parsed.success ? parsed.data.data : undefined;
      },
    );
  }

  /**
   * POST /api/license/executions/{id}/heartbeat: keeps the lease (or revives it after a silence, while a slot is
   * free). 410 EXECUTION_ENDED, 404 EXECUTION_NOT_FOUND and 403 are LicenseApiError; a revival refused is
   * ExecutionLimitError.
   */
  async executionHeartbeat(
    executionId: string,
    input: ExecutionLeaseRequest,
    options: CallOptions = {},
  ): Promise<ExecutionAnswer> {
    return this.#signedPost(
      executionPath(executionId, "heartbeat"),
      checkInput(ExecutionLeaseRequestSchema, input),
      options,
      (json) => {
        const parsed = ExecutionAnswerSchema.safeParse(json);
        return parsed.success ? parsed.data.data : undefined;
      },
    );
  }

  /** POST /api/license/executions/{id}/end: frees the slot; the server counts the execution once. Idempotent. */
  async endExecution(
    executionId: string,
    input: ExecutionLeaseRequest,
    options: CallOptions = {},
  ): Promise<EndExecutionResult> {
    return this.#signedPost(
      executionPath(executionId, "end"),
      checkInput(ExecutionLeaseRequestSchema, input),
      options,
      (json) => {
        const parsed = EndExecutionAnswerSchema.safeParse(json);
        return parsed.success ? parsed.data.data : undefined;
      },
    );
  }

  /**
   * POST /api/license/executions/watch: answered as soon as one of these executions is stopped or ended, or the
   * license is no longer in force (within about a second of the change), else after `wait_seconds` unchanged.
   * Execution holds one while it runs; its heartbeat is the fallback.
   */
  async watchExecutions(input: WatchExecutionsRequest, options: CallOptions = {}): Promise<WatchExecutionsResult> {
    return this.#signedPost(
      "/api/license/executions/watch",
      checkInput(WatchExecutionsRequestSchema, input),
      options,
      (json) => {
        const parsed = WatchExecutionsAnswerSchema.safeParse(json);
        return parsed.success ? parsed.data.data : undefined;
      },
    );
  }

  /**
   * POST /api/license/updates/check: the newest build this license may have for the platform and arch, strictly
   * newer than `current_version`, with its checksums, signatures and a download link (5 minutes); null when there
   * is none or downloads for the platform are closed. The answer must be signed by a trusted key.
   */
  async checkForUpdate(input: UpdateCheckRequest, options: CallOptions = {}): Promise<Update | null> {
    return this.#signedPost(
      "/api/license/updates/check",
      checkInput(UpdateCheckRequestSchema, input),
      options,
      (json) => {
        const parsed = UpdateCheckAnswerSchema.safeParse(json);
        return parsed.success ? parsed.data.data.update : undefined;
      },
    );
  }

  /** How long one call may take before it is abandoned (a watch must be held for less). */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** POST /api/license/executions/running: what runs on the license now, on every machine. */
  async runningExecutions(input: ExecutionLeaseRequest, options: CallOptions = {}): Promise<RunningExecutionsResult> {
    return this.#signedPost(
      "/api/license/executions/running",
      checkInput(ExecutionLeaseRequestSchema, input),
      options,
      (json) => {
        const parsed = RunningExecutionsAnswerSchema.safeParse(json);
        return parsed.success ? parsed.data.data : undefined;
      },
    );
  }

  #signedPost<T>(path: string, body: unknown, options: CallOptions, parse: (json: unknown) => T | undefined) {
    return this.#request({
      method: "POST",
      path,
      body,
      idempotencyKey: options.idempotencyKey ?? randomUUID(),
      signal: options.signal,
      signed: true,
      parse,
    });
  }

  /** GET /api/license/configurations: heartbeat, offline grace and usage-report intervals, and the tier table. */
  async getConfiguration(options: CallOptions = {}): Promise<ClientConfiguration> {
    return this.#request({
      method: "GET",
      path: "/api/license/configurations",
      signal: options.signal,
      parse: (json) => {
        const data = envelopeData(json);
        if (
          !isRecord(data) ||
          typeof data.heartbeat_interval_seconds !== "number" ||
          typeof data.offline_grace_seconds !== "number" ||
          typeof data.usage_report_interval_seconds !== "number"
        ) {
          return undefined;
        }
        return {
          heartbeat_interval_seconds: data.heartbeat_interval_seconds,
          offline_grace_seconds: data.offline_grace_seconds,
          usage_report_interval_seconds: data.usage_report_interval_seconds,
          tiers: isRecord(data.tiers) ? data.tiers : {},
        };
      },
    });
  }

  /** GET /api/license/tiers: the tier table as the server publishes it. */
  async getTiers(options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.#request({
      method: "GET",
      path: "/api/license/tiers",
      signal: options.signal,
      parse: (json) => {
        const data = envelopeData(json);
        return isRecord(data) ? data : undefined;
      },
    });
  }

  /** GET /api/license/health. */
  async health(options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.#request({
      method: "GET",
      path: "/api/license/health",
      signal: options.signal,
      parse: (json) => {
        if (!isRecord(json)) return undefined;
        if (json.success === true && isRecord(json.data)) return json.data;
        if (json.success === false) return undefined;
        const { success: _success, ...rest } = json;
        return rest;
      },
    });
  }

  async #request<T>(spec: RequestSpec<T>): Promise<T> {
    const attempts = this.#retries + 1;
    for (let attempt = 1; ; attempt++) {
      spec.signal?.throwIfAborted();
      const outcome = await this.#attempt(spec);
      let failure: LicenseApiError | LicenseNetworkError;
      let waitMs = Math.min(this.#maxDelay, this.#baseDelay * 2 ** (attempt - 1));
      if (outcome.kind === "network") {
        failure = outcome.error;
      } else {
        const { status, json } = outcome;
        // Whatever a desktop answer decides — valid, refused, a definitive error — counts only when the server
        // signed it. (A 5xx or 429 decides nothing: it is retried, then treated as "could not reach the server".)
        if (spec.signed && !isRetryableStatus(status)) this.#checkSignature(spec, outcome);
        if (status >= 200 && status < 300) {
          const value = spec.parse(json);
          if (value === undefined) {
            throw new LicenseProtocolError(
              `Unexpected response from ${spec.method} ${this.baseUrl}${spec.path}: not a licensing API answer`,
            );
          }
          return value;
        }
        const retryAfterMs = parseRetryAfter(outcome.headers.get("retry-after"));
        failure = apiError(outcome, retryAfterMs);
        if (!failure.retryable) throw failure;
        if (retryAfterMs !== undefined) {
          // Retrying sooner than the server asked would only be refused again.
          if (retryAfterMs > this.#maxRetryAfter) throw failure;
          waitMs = retryAfterMs;
        }
      }
      if (attempt >= attempts) throw failure;
      await this.#sleep(waitMs, spec.signal);
    }
  }

  #checkSignature(spec: RequestSpec<unknown>, outcome: Extract<Attempt, { kind: "response" }>) {
    const verification = verifyAnswer(
      {
        method: spec.method,
        path: spec.path,
        nonce: outcome.nonce ?? "",
        body: outcome.text,
        header: outcome.headers.get(SIGNATURE_HEADER),
      },
      this.trustedKeys,
      { now: this.#now() },
    );
    if (!verification.ok) {
      throw new LicenseAnswerError(
        `Ignored an answer from ${this.baseUrl}${spec.path} (HTTP ${outcome.status}): ${verification.message}`,
        verification.reason,
      );
    }
  }

  async #attempt(spec: RequestSpec<unknown>): Promise<Attempt> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.#timeoutMs);
    const onAbort = () => controller.abort();
    spec.signal?.addEventListener("abort", onAbort, { once: true });
    const headers: Record<string, string> = { accept: "application/json", "user-agent": this.#userAgent };
    if (spec.body !== undefined) headers["content-type"] = "application/json";
    if (spec.idempotencyKey) headers["idempotency-key"] = spec.idempotencyKey;
    const nonce = spec.signed ? newNonce() : null;
    if (nonce) headers[NONCE_HEADER] = nonce;
    const url = `${this.baseUrl}${spec.path}`;
    try {
      const response = await this.#fetch(url, {
        method: spec.method,
        headers,
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        signal: controller.signal,
      });
      const text = await response.text();
      return {
        kind: "response",
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
        json: parseJson(text),
        text,
        nonce,
      };
    } catch (cause) {
      if (spec.signal?.aborted) throw spec.signal.reason;
      const message = timedOut
        ? `${spec.method} ${url} timed out after ${this.#timeoutMs} ms`
        : `Cannot reach the licensing server at ${this.baseUrl}: ${describeCause(cause)}`;
      return { kind: "network", error: new LicenseNetworkError(message, timedOut, { cause }) };
    } finally {
      clearTimeout(timer);
      spec.signal?.removeEventListener("abort", onAbort);
    }
  }
}

/** The lease's path: the id must be a UUID, as the server's are (anything else could not name one). */
function executionPath(executionId: string, action: "heartbeat" | "end"): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(executionId)) {
    throw new LicenseInputError(`Not an execution id: "${executionId}"`, "executionId");
  }
  return `/api/license/executions/${executionId.toLowerCase()}/${action}`;
}

/** Retry-After as delta-seconds or an HTTP date, in milliseconds; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function apiError(outcome: Extract<Attempt, { kind: "response" }>, retryAfterMs: number | undefined): LicenseApiError {
  const refusal = outcome.status === 409 ? ExecutionRefusalSchema.safeParse(outcome.json) : null;
  if (refusal?.success) {
    const { limit, running, oldest_expires_at } = refusal.data;
    return new ExecutionLimitError(
      EXECUTION_MESSAGES.limit(limit),
      limit,
      running.map((holder) => ({
        displayId: holder.display_id,
        machineName: holder.machine_name,
        startedAt: new Date(holder.started_at),
        expiresAt: new Date(holder.expires_at),
      })),
      new Date(oldest_expires_at),
    );
  }
  const parsed = ApiErrorSchema.safeParse(outcome.json);
  const message = parsed.success
    ? parsed.data.error
    : `HTTP ${outcome.status}${outcome.statusText ? `: ${outcome.statusText}` : ""}`;
  return new LicenseApiError(message, outcome.status, parsed.success ? parsed.data.code : undefined, retryAfterMs);
}

function checkInput<T>(
  schema: {
    safeParse(input: unknown): { success: true; data: T } | { success: false; error: { issues: Issue[] } };
  },
  input: unknown,
): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join(".") || undefined;
  const message = issue?.message ?? "Invalid input";
  throw new LicenseInputError(field && !message.includes(field) ? `${field}: ${message}` : message, field);
}

interface Issue {
  path: PropertyKey[];
  message: string;
}

function envelopeData(json: unknown): unknown {
  return isRecord(json) && json.success === true ? json.data : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describeCause(cause: unknown): string {
  if (cause instanceof Error) {
    const inner = cause.cause;
    if (inner instanceof Error && inner.message) return inner.message;
    return cause.message;
  }
  return String(cause);
}

function normaliseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new LicenseInputError(`Invalid server URL: ${value}`, "baseUrl");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new LicenseInputError(`The server URL must start with http:// or https:// (got ${value})`, "baseUrl");
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "");
}

function positive(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Statuses that decide nothing and are retried (a proxy's 502 during a deploy is not signed, and need not be). */
function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}
