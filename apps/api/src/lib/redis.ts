/**
 * The Redis connection an instance shares with the others (rate-limit counters; license-change messages), and the
 * bounds on every wait for it (decision 0037):
 *   - a command that gets no answer within `commandTimeoutMs` fails (ioredis `commandTimeout`: the promise is
 *     rejected, the connection is left as it is and the late reply, if any, is matched and dropped);
 *   - a connection that receives nothing for REDIS_SOCKET_TIMEOUT_MS while a command waits is dropped and reopened
 *     (ioredis `socketTimeout`), so a half-dead link or a failed-over server is replaced, not waited on;
 *   - commands are never queued while disconnected (`enableOfflineQueue: false`) nor re-sent after a reconnection
 *     (`autoResendUnfulfilledCommands: false`: their callers have moved on, and a counter must not count twice);
 *   - a circuit breaker (`RedisGate`) skips Redis for a cool-down after repeated failures, so a stalled Redis
 *     costs one probe per cool-down, not a timeout per request.
 * Callers fall back at once (rate limits count in this process; license changes go by the PostgreSQL feed and
 * short cache lifetimes); ioredis keeps reconnecting in the background.
 */
import { Redis } from "ioredis";
import { CircuitBreaker, type CircuitState } from "./circuit-breaker";

/** A connection that heard nothing this long while a command waited is replaced. */
export const REDIS_SOCKET_TIMEOUT_MS = 1_000;
/** Failures in a row (timeouts included) that open the circuit. */
export const REDIS_FAILURES_TO_OPEN = 3;

export interface RedisBounds {
  commandTimeoutMs: number;
  coolDownMs: number;
}

export function connectRedis(url: string, bounds: RedisBounds, onError: (error: Error) => void): Redis {
  const redis = new Redis(url, {
    connectTimeout: 2_000,
    commandTimeout: bounds.commandTimeoutMs,
    socketTimeout: Math.max(REDIS_SOCKET_TIMEOUT_MS, bounds.commandTimeoutMs * 2),
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    // Reconnect quickly at first, then at most every 2 s.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
  });
  logErrorsSparingly(redis, onError);
  return redis;
}

function logErrorsSparingly(redis: Redis, onError: (error: Error) => void) {
  let lastLog = 0;
  redis.on("error", (error) => {
    // One line per 10 s at most while Redis is down.
    if (Date.now() - lastLog < 10_000) return;
    lastLog = Date.now();
    onError(error);
  });
}

/** Closes politely (bounded by the command timeout), or drops the connection when Redis is not answering. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === "ready") {
    await redis.quit().catch(() => redis.disconnect());
  } else {
    redis.disconnect();
  }
}

/**
 * A second connection for subscriber mode (a subscribed connection runs nothing but (un)subscribe and PING). Its
 * SUBSCRIBE waits for the connection (offline queue) and is repeated by the caller on every "ready".
 */
export function connectSubscriber(redis: Redis, onError: (error: Error) => void): Redis {
  const subscriber = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
  logErrorsSparingly(subscriber, onError);
  return subscriber;
}

export class RedisUnavailableError extends Error {}

export type RedisCheck = "ok" | "down" | "off";

/**
 * The one way the hot path talks to Redis: only while connected and the circuit is closed (or this call is the
 * probe); anything else throws at once (`RedisUnavailableError`, `CircuitOpenError`) and the caller falls back.
 */
export class RedisGate {
  readonly breaker: CircuitBreaker;

  constructor(
    readonly redis: Redis | null,
    bounds: Pick<RedisBounds, "coolDownMs">,
    options: { now?: () => number; onChange?: (state: CircuitState) => void } = {},
  ) {
    this.breaker = new CircuitBreaker({
      name: "Redis",
      failuresToOpen: REDIS_FAILURES_TO_OPEN,
      coolDownMs: bounds.coolDownMs,
      ...options,
    });
  }

  run<T>(command: (redis: Redis) => Promise<T>): Promise<T> {
    const redis = this.redis;
    if (!redis) return Promise.reject(new RedisUnavailableError("Redis is not configured"));
    if (redis.status !== "ready") return Promise.reject(new RedisUnavailableError(`Redis is ${redis.status}`));
    return this.breaker.run(() => command(redis));
  }

  /** For readiness: a PING through the gate (bounded by the command timeout); `down` while the circuit is open. */
  async check(): Promise<RedisCheck> {
    if (!this.redis) return "off";
    try {
      await this.run((redis) => redis.ping());
      return "ok";
    } catch {
      return "down";
    }
  }
}
