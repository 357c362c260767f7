/**
 * Waits on peers (decision 0037: every wait on a peer is bounded): a deadline for a wait, and the one test of
 * whether an error means "a peer did not answer in time or is unreachable" — a request that meets one is answered
 * 503 with Retry-After (plugins/errors.ts), not 500: nothing is wrong with the request, try again shortly.
 */

/** A wait on a peer that did not end in time. */
export class PeerTimeoutError extends Error {
  constructor(
    readonly peer: string,
    readonly ms: number,
  ) {
    super(`${peer} did not answer within ${ms} ms`);
  }
}

/**
 * `work`, or a PeerTimeoutError after `ms`. The work itself is not cancelled: use this where the work is bounded
 * anyway and the caller must not wait as long (readiness), or together with something that tears it down.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, peer: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new PeerTimeoutError(peer, ms)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** PostgreSQL codes of a server that ended the statement or the session (timeouts, shutdown, lost connection). */
const UNAVAILABLE_SQLSTATES = new Set([
  "57014",
  "25P03",
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08001",
  "08003",
  "08006",
]);
const UNREACHABLE = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH"]);
/** node-postgres and pg-pool say these in words only. */
const UNAVAILABLE_MESSAGES = [
  "timeout exceeded when trying to connect",
  "Connection terminated",
  "Client has encountered a connection error and is not queryable",
];

/** Whether `error` (or what caused it: drizzle wraps driver errors) is a peer that did not answer or is unreachable. */
export function isPeerUnavailable(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; depth++) {
    if (cause instanceof PeerTimeoutError) return true;
    const code = (cause as { code?: unknown }).code;
    if (typeof code === "string" && (UNAVAILABLE_SQLSTATES.has(code) || UNREACHABLE.has(code))) return true;
    if (UNAVAILABLE_MESSAGES.some((message) => cause instanceof Error && cause.message.includes(message))) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
