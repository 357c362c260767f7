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
