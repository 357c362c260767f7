/**
 * The Redis connection an instance shares with the others (rate-limit counters; cache invalidation). Commands
 * fail fast instead of queueing while Redis is away, so callers can fall back at once; ioredis keeps
 * reconnecting in the background.
 */
import { Redis } from "ioredis";

export function connectRedis(url: string, onError: (error: Error) => void): Redis {
  const redis = new Redis(url, {
    connectTimeout: 2_000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    // Reconnect quickly at first, then at most every 2 s.
    retryStrategy: (attempt) => Math.min(attempt * 100, 2_000),
  });
  let lastLog = 0;
  redis.on("error", (error) => {
    // One line per 10 s at most while Redis is down.
    if (Date.now() - lastLog < 10_000) return;
    lastLog = Date.now();
    onError(error);
  });
  return redis;
}

/** Closes politely, or drops the connection when Redis is not answering. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === "ready") {
    await redis.quit().catch(() => redis.disconnect());
  } else {
    redis.disconnect();
  }
}

/** A second connection for subscriber mode (a subscribed connection can run no other command). */
export function connectSubscriber(redis: Redis, onError: (error: Error) => void): Redis {
  const subscriber = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null });
  let lastLog = 0;
  subscriber.on("error", (error) => {
    if (Date.now() - lastLog < 10_000) return;
    lastLog = Date.now();
    onError(error);
  });
  return subscriber;
}
