/**
 * The counter store behind @fastify/rate-limit (its `store` option). Fixed windows per key:
 *   - in Redis when REDIS_URL is set, so every instance counts against the same budget;
 *   - in this process otherwise, and whenever Redis does not answer — within the command timeout, or at once
 *     while the circuit is open (lib/redis.ts): never "no limit", never an error, never a wait. Each instance then
 *     admits its share of the limit — the limit divided by the instances alive (db/instances.ts), at least one —
 *     so the cluster admits about the limit, not the limit times the instances (decision 0016 says the bound).
 *     Counts are reported on the limit's scale (a request is worth limit ÷ share), so the plugin's comparison and
 *     headers need no change.
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
  /** Instances alive, this one included (db/instances.ts); 1 when not given. */
  instances?: () => number;
}

/**
 * A count this process took alone, on the scale of a limit `max` shared by `instances`: admitted while within this
 * instance's share (max ÷ instances, at least one), refused after it.
 */
export function onSharedScale(current: number, max: number | undefined, instances: number): number {
  if (max === undefined || instances <= 1) return current;
  const share = Math.max(1, Math.floor(max / instances));
  return current <= share ? Math.ceil((current * max) / share) : max + (current - share);
}

/** Fixed-window counters shared by every limit of this instance: Redis when it answers, this process otherwise. */
export interface RateLimitCounters {
  /** `max`, the limit the count is compared with, sets this instance's share while it counts alone. */
  incr(key: string, windowMs: number, max?: number): Promise<{ current: number; ttl: number }>;
  read(key: string, max?: number): Promise<{ current: number; ttl: number }>;
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
  const instances = options.instances ?? (() => 1);
  const alone = (result: { current: number; ttl: number }, max: number | undefined) => ({
    current: onSharedScale(result.current, max, instances()),
    ttl: result.ttl,
  });
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
    incr: (key, windowMs, max) =>
      either(
        async (r) => {
          const [current, ttl] = await r.flotillaRateLimitIncr(`${namespace}${key}`, windowMs);
          return { current, ttl };
        },
        () => alone(memory.incr(key, windowMs), max),
      ),
    read: (key, max) =>
      either(
        async (r) => {
          const [current, ttl] = await r.flotillaRateLimitRead(`${namespace}${key}`);
          return { current, ttl };
        },
        () => alone(memory.read(key), max),
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

    // The plugin passes the limit after the window (its store API).
    incr(key: string, callback: Callback, timeWindow: number, max?: number) {
      counters.incr(`${this.prefix}${key}`, timeWindow, max).then(
        (result) => callback(null, result),
        (error: Error) => callback(error),
      );
    }

    read(key: string, callback: Callback, _timeWindow?: number, max?: number) {
      counters.read(`${this.prefix}${key}`, max).then(
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
