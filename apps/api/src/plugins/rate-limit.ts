/**
 * Rate limits per client address. Counters live in Redis when REDIS_URL is set (shared by every instance),
 * otherwise in this process. Routes opt in with `config.rateLimit`.
 */
import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import type { Config } from "../config";

export async function registerRateLimit(app: FastifyInstance, config: Config) {
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, {
        connectTimeout: 2_000,
        maxRetriesPerRequest: 1,
        enableOfflineQueue: false,
        lazyConnect: false,
      })
    : undefined;
  if (redis) {
    redis.on("error", (error) => app.log.warn({ err: error }, "redis error"));
    app.addHook("onClose", async () => {
      redis.disconnect();
    });
  }
  await app.register(rateLimit, {
    global: false,
    max: config.rateLimits.perMinute,
    timeWindow: "1 minute",
    ...(redis ? { redis, nameSpace: "flotilla-rl:", skipOnError: true } : {}),
    keyGenerator: (request) => request.ip,
    errorResponseBuilder: (_request, context) => {
      const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
      const error = new Error(`Too many requests. Please try again in ${seconds} second${seconds === 1 ? "" : "s"}.`);
      return Object.assign(error, { statusCode: 429 });
    },
  });
}
