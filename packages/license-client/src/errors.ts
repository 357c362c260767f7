/** Every failure the SDK raises on purpose derives from LicenseClientError, so callers can tell ours from bugs. */
export class LicenseClientError extends Error {
  override name = "LicenseClientError";
}

/** The server answered with a non-2xx status. `message` is the server's `error` text when it sent one. */
export class LicenseApiError extends LicenseClientError {
  override name = "LicenseApiError";
  constructor(
    message: string,
    readonly status: number,
    /** The server's stable machine-readable code (e.g. VALIDATION_ERROR, RATE_LIMITED, NOT_FOUND), when sent. */
    readonly code: string | undefined,
    /** For 429/503: how long the server asked us to wait, in milliseconds, when it said so. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  /**
   * 429, 5xx and "this Idempotency-Key is still being processed" (409) are worth trying again later; any other
   * 4xx is a definitive answer.
   */
  get retryable(): boolean {
    return (
      this.status === 429 || this.status >= 500 || (this.status === 409 && this.code === "IDEMPOTENCY_IN_PROGRESS")
    );
  }
}

/** The server could not be reached, or did not answer within the timeout. */
export class LicenseNetworkError extends LicenseClientError {
  override name = "LicenseNetworkError";
  constructor(
    message: string,
    readonly timedOut: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The server answered 2xx with something that is not the documented response (wrong server, proxy page…). */
export class LicenseProtocolError extends LicenseClientError {
  override name = "LicenseProtocolError";
}

/** The caller passed input the contract rejects; nothing was sent. */
export class LicenseInputError extends LicenseClientError {
  override name = "LicenseInputError";
  constructor(
    message: string,
    /** Dotted path of the offending field, when known. */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** The local state file is unreadable, corrupt or could not be written. */
export class LicenseStateError extends LicenseClientError {
  override name = "LicenseStateError";
  constructor(
    message: string,
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A command needs an activation and this machine has none. */
export class NotActivatedError extends LicenseClientError {
  override name = "NotActivatedError";
}

/** The server issued a token that does not verify with its published key. */
export class LicenseTokenError extends LicenseClientError {
  override name = "LicenseTokenError";
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
  }
}

/**
 * An answer that does not carry a valid signature of the licensing server (unsigned, another key, made for another
 * request, or stale): whatever it says is ignored — as if the server could not be reached.
 */
export class LicenseAnswerError extends LicenseClientError {
  override name = "LicenseAnswerError";
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message);
  }
}

/** Failures that mean "could not talk to the licensing server properly", as opposed to "the server said no". */
export function isConnectivityError(error: unknown): boolean {
  return (
    error instanceof LicenseNetworkError ||
    error instanceof LicenseAnswerError ||
    error instanceof LicenseProtocolError ||
    (error instanceof LicenseApiError && error.retryable)
  );
}

/** Someone holding a running execution, as a refusal names it (another machine's, or one of this machine's). */
export interface ExecutionHolder {
  /** The machine's short id in the dashboard (e.g. "M-0001"). */
  displayId: string;
  /** The name its owner gave the machine, when there is one. */
  machineName: string | null;
  startedAt: Date;
  /** If its app stops sending heartbeats, when it stops counting. */
  expiresAt: Date;
}

/**
 * The license already runs its plan's number of executions at once (code EXECUTION_LIMIT): the server refused to
 * start one (HTTP 409, `source: "server"`), or, offline on a license file, this machine's own count did
 * (`source: "local"`). `message` is the contract's text, for the app to show as is.
 */
export class ExecutionLimitError extends LicenseApiError {
  override name = "ExecutionLimitError";
  constructor(
    message: string,
    /** The plan's limit of concurrent executions. */
    readonly limit: number,
    /** Who holds the running executions, the oldest first (at most a few are named). */
    readonly running: readonly ExecutionHolder[],
    /** The soonest one of them frees its slot on its own, if its app has stopped. */
    readonly oldestExpiresAt: Date,
    readonly source: "server" | "local" = "server",
  ) {
    super(message, 409, "EXECUTION_LIMIT");
  }
}

/**
 * Why an execution's lease is no longer held: the server ended it or lost it (`code` is its answer —
 * EXECUTION_ENDED: ended from the dashboard or silent past its revival window; EXECUTION_NOT_FOUND; EXECUTION_LIMIT:
 * it expired and its slot was taken meanwhile; NOT_ACTIVATED, SUSPENDED, EXPIRED, NOT_FOUND: the machine or the
 * license), the license file it ran on offline expired (LICENSE_FILE_EXPIRED), or this app ended it (COMPLETED).
 * It is the reason of the execution's `signal`.
 */
export class ExecutionEndedError extends LicenseClientError {
  override name = "ExecutionEndedError";
  constructor(
    message: string,
    readonly code: string,
    readonly executionId: string,
    /** The server's HTTP status when the server said so; null otherwise. */
    readonly status: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
