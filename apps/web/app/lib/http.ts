/**
 * The web app's one HTTP client (spec section 7): JSON in and out, bearer token from local storage,
 * 30 s timeout per attempt, up to 3 attempts. A 4xx is final; other failures (5xx, network errors,
 * timeouts) are retried after 1 s, then 2 s (doubling, capped at 5 s). Any non-ok response is raised
 * as `HTTP {status}: {statusText}` carrying the parsed body, so callers can show the server's `error`.
 *
 * Imports only the contracts' timings module: this file is on every public page's critical path.
 */
import { API_MAX_ATTEMPTS, API_TIMEOUT_MS, RETRY_BASE_DELAY_MS, RETRY_MAX_DELAY_MS } from "@flotilla/contracts/timings";
import { readStoredToken } from "./token-storage";

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RequestOptions {
  method?: Method;
  /** Serialised as JSON; `Content-Type: application/json` is sent whenever there is a body. */
  body?: unknown;
  /** Cancels the request (and any pending retry); an aborted request is never retried. */
  signal?: AbortSignal;
  /** Bearer token to send instead of the stored one (e.g. a token read from the address); null sends none. */
  token?: string | null;
}

/** A non-ok response. `body` is the parsed JSON body, or null when there was none. */
export class HttpError extends Error {
  override readonly name = "HttpError";
  readonly status: number;
  readonly statusText: string;
  readonly body: unknown;

  constructor(status: number, statusText: string, body: unknown) {
    super(`HTTP ${status}: ${statusText}`);
    this.status = status;
    this.statusText = statusText;
    this.body = body;
  }
}

/** One attempt took longer than API_TIMEOUT_MS (it was aborted; the attempt may be retried). */
export class TimeoutError extends Error {
  override readonly name = "TimeoutError";
  constructor() {
    super(`Request timed out after ${API_TIMEOUT_MS} ms`);
  }
}

/**
 * The browser says it has no network: nothing was sent, and nothing will be sent later by itself (decision 0055).
 * Raised at once instead of spending the attempts on a network that is not there.
 */
export class OfflineError extends Error {
  override readonly name = "OfflineError";
  constructor() {
    super("You're offline. Nothing was sent: try again when you're back online.");
  }
}

/** Whether the browser reports no network (always false outside a browser). */
export function browserOffline(): boolean {
  return typeof navigator !== "undefined" && navigator.onLine === false;
}

/** Delay before retry number `retry` (1 = the first retry): 1000, 2000, 4000, then capped at 5000 ms. */
export function retryDelay(retry: number): number {
  return Math.min(RETRY_BASE_DELAY_MS * 2 ** Math.max(0, retry - 1), RETRY_MAX_DELAY_MS);
}

/** A failure containing an HTTP 4xx is final; everything else may succeed on a later attempt. */
export function isRetryable(error: unknown): boolean {
  if (isAbortError(error) || error instanceof OfflineError) return false;
  return !(error instanceof HttpError && error.status >= 400 && error.status < 500);
}

/** The server's `error` field (`{ success: false, error }`) when the failure carries one, else the fallback. */
export function serverErrorMessage(error: unknown, fallback: string): string {
  if (error instanceof OfflineError) return error.message;
  if (error instanceof HttpError && typeof error.body === "object" && error.body !== null) {
    const message = (error.body as { error?: unknown }).error;
    if (typeof message === "string" && message.trim() !== "") return message;
  }
  return fallback;
}

export async function request<T = unknown>(path: string, options: RequestOptions = {}): Promise<T> {
  const { signal } = options;
  let lastError: unknown;
  for (let attempt = 1; attempt <= API_MAX_ATTEMPTS; attempt++) {
    signal?.throwIfAborted();
    try {
      if (browserOffline()) throw new OfflineError();
      return await attemptOnce<T>(path, options);
    } catch (error) {
      lastError = error;
      if (!isRetryable(error) || signal?.aborted || attempt === API_MAX_ATTEMPTS) throw error;
    }
    await sleep(retryDelay(attempt), signal);
  }
  throw lastError;
}

export function get<T = unknown>(path: string, options: Omit<RequestOptions, "method" | "body"> = {}): Promise<T> {
  return request<T>(path, { ...options, method: "GET" });
}

export function post<T = unknown>(
  path: string,
  body?: unknown,
  options: Omit<RequestOptions, "method" | "body"> = {},
): Promise<T> {
  return request<T>(path, { ...options, method: "POST", body });
}

export function put<T = unknown>(
  path: string,
  body?: unknown,
  options: Omit<RequestOptions, "method" | "body"> = {},
): Promise<T> {
  return request<T>(path, { ...options, method: "PUT", body });
}

export function del<T = unknown>(path: string, options: Omit<RequestOptions, "method" | "body"> = {}): Promise<T> {
  return request<T>(path, { ...options, method: "DELETE" });
}

async function attemptOnce<T>(path: string, { method = "GET", body, signal, token }: RequestOptions): Promise<T> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, API_TIMEOUT_MS);
  const forwardAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", forwardAbort, { once: true });

  try {
    const response = await fetch(path, {
      method,
      headers: buildHeaders(body !== undefined, token === undefined ? readStoredToken() : token),
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: controller.signal,
    });
    const text = await response.text();
    if (!response.ok) throw new HttpError(response.status, response.statusText, parseJson(text));
    return (text === "" ? undefined : JSON.parse(text)) as T;
  } catch (error) {
    if (timedOut) throw new TimeoutError();
    throw error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", forwardAbort);
  }
}

function buildHeaders(hasBody: boolean, token: string | null): Record<string, string> {
  // No Content-Type without a body: a JSON content type with an empty body is a 400 on most servers.
  const headers: Record<string, string> = { Accept: "application/json" };
  if (hasBody) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  return headers;
}

function parseJson(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function isAbortError(error: unknown): boolean {
  return error instanceof DOMException && error.name === "AbortError";
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
