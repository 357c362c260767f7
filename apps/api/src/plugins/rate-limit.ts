/**
 * Rate limits (@fastify/rate-limit). Counters live in Redis when REDIS_URL is set (shared by every instance)
 * and fall back to this process, at its share of each limit, when Redis does not answer in time
 * (rate-limit-store.ts, lib/redis.ts).
 *
 * - Per client address: routes opt in with `config.rateLimit` (the plugin's onRequest hook). Addresses come from
 *   `request.ip` (TRUST_PROXY decides which hop that is); IPv6 clients share one budget per /64, since anyone
 *   with one IPv6 address has billions more in the same network.
 * - Anything else — a license key, a customer, failed sign-ins — uses `keyedLimit` / `failureLimit`, built on
 *   the plugin's `createRateLimit`. That API does not share the per-request "already ran" flag of the route
 *   hook, so a route can enforce both limits; the headers then show whichever limit binds.
 */
import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config";
import type { RedisGate } from "../lib/redis";
import { createRateLimitCounters, createRateLimitStore, type RateLimitCounters } from "./rate-limit-store";

declare module "fastify" {
  interface FastifyInstance {
    rateLimitCounters: RateLimitCounters;
  }
}

export const RATE_LIMIT_WINDOW_MS = 60_000;
const HEADERS = {
  limit: "x-ratelimit-limit",
  remaining: "x-ratelimit-remaining",
  reset: "x-ratelimit-reset",
  retryAfter: "retry-after",
} as const;

function tooManyRequests(ttlMs: number): Error {
  const seconds = Math.max(1, Math.ceil(ttlMs / 1000));
  const error = new Error(`Too many requests. Please try again in ${seconds} second${seconds === 1 ? "" : "s"}.`);
  return Object.assign(error, { statusCode: 429 });
}

export async function registerRateLimit(
  app: FastifyInstance,
  config: Config,
  redis: RedisGate,
  options: { instances: () => number; onFallback?: (error: unknown) => void },
) {
  const counters = createRateLimitCounters({
    redis,
    namespace: `${config.redisKeyPrefix}flotilla-rl:`,
    ...options,
  });
  app.decorate("rateLimitCounters", counters);
  const Store = createRateLimitStore(counters);
  await app.register(rateLimit, {
    global: false,
    max: config.rateLimits.perMinute,
    timeWindow: RATE_LIMIT_WINDOW_MS,
    store: Store as never,
    ipv6Subnet: 64,
    errorResponseBuilder: (_request, context) => tooManyRequests(context.ttl),
  });
}

type KeyOf = (request: FastifyRequest) => string | null;

/** Sets the rate-limit headers when this limit leaves fewer requests than the one already reported. */
function reportIfBinding(reply: FastifyReply, max: number, remaining: number, ttlMs: number) {
  const reported = Number(reply.getHeader(HEADERS.remaining));
  if (Number.isFinite(reported) && reported <= remaining) return;
  reply.header(HEADERS.limit, max);
  reply.header(HEADERS.remaining, remaining);
  reply.header(HEADERS.reset, Math.ceil(ttlMs / 1000));
}

/**
 * A limit on something other than the address (e.g. a license key), counted on every request that reaches it.
 * Use as a preHandler when the key is in the body. Requests whose key is null are not counted.
 */
export function keyedLimit(app: FastifyInstance, options: { name: string; max: number; keyOf: KeyOf }) {
  const limiter = app.createRateLimit({
    max: options.max,
    timeWindow: RATE_LIMIT_WINDOW_MS,
    keyGenerator: (request) => `${options.name}:${options.keyOf(request)}`,
  });
  return async function keyedRateLimit(request: FastifyRequest, reply: FastifyReply) {
    if (options.keyOf(request) === null) return;
    const result = await limiter(request);
    if (result.isAllowed) return;
    if (result.isExceeded) {
      reply.header(HEADERS.limit, result.max);
      reply.header(HEADERS.remaining, 0);
      reply.header(HEADERS.reset, result.ttlInSeconds);
      reply.header(HEADERS.retryAfter, result.ttlInSeconds);
      throw tooManyRequests(result.ttl);
    }
    reportIfBinding(reply, result.max, result.remaining, result.ttl);
  };
}

/**
 * A budget of failures (e.g. sign-ins with a bad state or token) per key: successes cost nothing, so honest
 * traffic behind one address is never refused, while guessing is. Each request is charged when it arrives — an
 * atomic check-and-count, so a burst of concurrent failures cannot overrun the budget — and refunded when it
 * succeeds. `guard` (onRequest) charges and refuses; `settle` (onResponse) refunds a success.
 */
export function failureLimit(app: FastifyInstance, options: { name: string; max: number; keyOf: KeyOf }) {
  const counters = app.rateLimitCounters;
  const charged = new WeakSet<FastifyRequest>();
  const keyFor = (request: FastifyRequest) => {
    const key = options.keyOf(request);
    return key === null ? null : `${options.name}:${key}`;
  };
  return {
    async guard(request: FastifyRequest, reply: FastifyReply) {
      const key = keyFor(request);
      if (key === null) return;
      const { current, ttl } = await counters.incr(key, RATE_LIMIT_WINDOW_MS, options.max);
      charged.add(request);
      if (current > options.max) {
        reply.header(HEADERS.retryAfter, Math.max(1, Math.ceil(ttl / 1000)));
        throw tooManyRequests(ttl);
      }
    },
    async settle(request: FastifyRequest, reply: FastifyReply) {
      const key = keyFor(request);
      if (key === null || !charged.has(request)) return;
      if (reply.statusCode < 400) await counters.decr(key);
    },
  };
}
