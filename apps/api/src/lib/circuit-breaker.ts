/**
 * A circuit breaker for a peer that can stall (decision 0037). After `failuresToOpen` failures in a row (errors or
 * timeouts) the peer is skipped — callers get `CircuitOpenError` at once instead of waiting on it — for
 * `coolDownMs`; then one call goes through as a probe: its success closes the circuit, its failure opens it for
 * another cool-down. Calls that began before the circuit opened do not decide anything when they end late.
 *
 * Every call given to `run` must itself be bounded (a command timeout): a probe that never ended would keep the
 * circuit half-open for good.
 */
export type CircuitState = "closed" | "open" | "half-open";

export class CircuitOpenError extends Error {
  constructor(name: string) {
    super(`${name} is skipped for now (circuit open after repeated failures)`);
  }
}

export interface CircuitBreakerOptions {
  name: string;
  failuresToOpen: number;
  coolDownMs: number;
  now?: () => number;
  onChange?: (state: CircuitState) => void;
}

export class CircuitBreaker {
  private current: CircuitState = "closed";
  private failures = 0;
  private openedAt = 0;
  private probing = false;
  /** Bumped whenever the circuit opens: a call started in an older period cannot close or reopen it. */
  private period = 0;
  private readonly now: () => number;

  constructor(private readonly options: CircuitBreakerOptions) {
    this.now = options.now ?? Date.now;
  }

  get state(): CircuitState {
    if (this.current === "open" && this.now() - this.openedAt >= this.options.coolDownMs) return "half-open";
    return this.current;
  }

  async run<T>(call: () => Promise<T>): Promise<T> {
    const state = this.state;
    if (state === "open" || (state === "half-open" && this.probing)) {
      throw new CircuitOpenError(this.options.name);
    }
    const probe = state === "half-open";
    if (probe) {
      this.probing = true;
      this.set("half-open");
    }
    const period = this.period;
    try {
      const result = await call();
      if (period === this.period && (probe || this.current === "closed")) {
        this.failures = 0;
        this.set("closed");
      }
      return result;
    } catch (error) {
      if (period === this.period && (probe || this.current === "closed")) {
        this.failures += 1;
        if (probe || this.failures >= this.options.failuresToOpen) this.open();
      }
      throw error;
    } finally {
      if (probe) this.probing = false;
    }
  }

  private open() {
    this.period += 1;
    this.openedAt = this.now();
    this.set("open");
  }

  private set(state: CircuitState) {
    if (this.current === state) return;
    this.current = state;
    this.options.onChange?.(state);
  }
}
