/**
 * The counter store behind @fastify/rate-limit (its `store` option). Fixed windows per key:
 *   - in Redis when REDIS_URL is set, so every instance counts against the same budget;
 *   - in this process otherwise, and whenever Redis does not answer — within the command timeout, or at once
 *     while the circuit is open (lib/redis.ts): limits degrade to per instance, never to "no limit", never to an
 *     error and never to a wait.
 * The in-process map never evicts a live window (an LRU would let a flood of new addresses reset everyone's
 * counters); expired windows are swept as time passes. Memory is bounded by the distinct keys one window
 * sees, which the per-address limits themselves bound.
 */
import type { RedisGate } from "../lib/redis";

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

interface StoreParams {
  routeInfo?: { method?: string; url?: string };
  /** Routes with the same group share one budget (e.g. the two forms of one endpoint). */
  groupId?: string;
}

interface Window {
  count: number;
  resetAt: number;
}

const SWEEP_INTERVAL_MS = 10_000;

/** Counting lua: one round trip, the window starts with the first hit (same semantics as the plugin's own). */
const INCR_SCRIPT = `
local current = redis.call('INCR', KEYS[1])
if current == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {current, ttl}`;
const DECR_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local current = redis.call('DECR', KEYS[1])
if current < 0 then redis.call('INCR', KEYS[1]); return 0 end
return current`;
const READ_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current then return {0, 0} end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then ttl = 0 end
return {tonumber(current), ttl}`;

type RedisWithScripts = NonNullable<RedisGate["redis"]> & {
  flotillaRateLimitIncr(key: string, windowMs: number): Promise<[number, number]>;
  flotillaRateLimitRead(key: string): Promise<[number, number]>;
  flotillaRateLimitDecr(key: string): Promise<number>;
};

export class MemoryWindows {
  private readonly windows = new Map<string, Window>();
  private nextSweep = 0;

  incr(key: string, windowMs: number, now = Date.now()): { current: number; ttl: number } {
    this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return { current: window.count, ttl: window.resetAt - now };
  }

  read(key: string, now = Date.now()): { current: number; ttl: number } {
    const window = this.windows.get(key);
    if (!window || window.resetAt <= now) return { current: 0, ttl: 0 };
    return { current: window.count, ttl: window.resetAt - now };
  }

  /** Gives one unit back (never below zero) inside the current window. */
  decr(key: string, now = Date.now()): void {
    const window = this.windows.get(key);
    if (window && window.resetAt > now && window.count > 0) window.count -= 1;
  }

  get size(): number {
    return this.windows.size;
  }

  private sweep(now: number) {
    if (now < this.nextSweep) return;
    this.nextSweep = now + SWEEP_INTERVAL_MS;
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}

export interface RateLimitStoreOptions {
  redis: RedisGate;
  /** Called when Redis failed and the in-process counters answered instead. */
  onFallback?: (error: unknown) => void;
  namespace?: string;
}

/** Fixed-window counters shared by every limit of this instance: Redis when it answers, this process otherwise. */
export interface RateLimitCounters {
  incr(key: string, windowMs: number): Promise<{ current: number; ttl: number }>;
  read(key: string): Promise<{ current: number; ttl: number }>;
  /** Gives one unit back inside the current window (a failure budget refunds a success). */
  decr(key: string): Promise<void>;
}

export function createRateLimitCounters(options: RateLimitStoreOptions): RateLimitCounters {
  const memory = new MemoryWindows();
  const gate = options.redis;
  const redis = gate.redis as RedisWithScripts | null;
  if (redis && !redis.flotillaRateLimitIncr) {
    redis.defineCommand("flotillaRateLimitIncr", { numberOfKeys: 1, lua: INCR_SCRIPT });
    redis.defineCommand("flotillaRateLimitRead", { numberOfKeys: 1, lua: READ_SCRIPT });
    redis.defineCommand("flotillaRateLimitDecr", { numberOfKeys: 1, lua: DECR_SCRIPT });
  }
  const namespace = options.namespace ?? "flotilla-rl:";
  /** Redis when it answers in time; otherwise (not connected, circuit open, timeout, error) this process's counters. */
  async function either<T>(viaRedis: (r: RedisWithScripts) => Promise<T>, local: () => T): Promise<T> {
    if (!redis) return local();
    try {
      return await gate.run((connection) => viaRedis(connection as RedisWithScripts));
    } catch (error) {
      options.onFallback?.(error);
      return local();
    }
  }
  return {
    incr: (key, windowMs) =>
      either(
        async (r) => {
          const [current, ttl] = await r.flotillaRateLimitIncr(`${namespace}${key}`, windowMs);
          return { current, ttl };
        },
        () => memory.incr(key, windowMs),
      ),
    read: (key) =>
      either(
        async (r) => {
          const [current, ttl] = await r.flotillaRateLimitRead(`${namespace}${key}`);
          return { current, ttl };
        },
        () => memory.read(key),
      ),
    decr: (key) =>
      either(
        async (r) => {
          await r.flotillaRateLimitDecr(`${namespace}${key}`);
        },
        () => memory.decr(key),
      ),
  };
}

/** A store class for @fastify/rate-limit over shared counters; every child counts under its own key prefix. */
export function createRateLimitStore(counters: RateLimitCounters) {
  class RateLimitStore {
    readonly prefix: string;
    constructor(_params?: StoreParams, prefix = "") {
      this.prefix = prefix;
    }

    incr(key: string, callback: Callback, timeWindow: number) {
      counters.incr(`${this.prefix}${key}`, timeWindow).then(
        (result) => callback(null, result),
        (error: Error) => callback(error),
      );
    }

    read(key: string, callback: Callback) {
      counters.read(`${this.prefix}${key}`).then(
        (result) => callback(null, result),
        (error: Error) => callback(error),
      );
    }

    /** A route's own budget (keys prefixed with its method and URL), or its group's. */
    child(params: StoreParams) {
      const route = params.groupId
        ? `group:${params.groupId}:`
        : params.routeInfo?.method && params.routeInfo.url
          ? `${params.routeInfo.method}${params.routeInfo.url}:`
          : "";
      return new RateLimitStore(params, `${this.prefix}${route}`);
    }
  }
  return RateLimitStore;
}
