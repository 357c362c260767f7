/**
 * License changes reach every instance's cache: the instance that made the change forgets its entry at once and
 * publishes the key on a Redis channel; every instance subscribed forgets it when the message arrives (well under
 * a second). While the subscription is down, messages can be missed, so entries live only a second
 * (license-cache.ts), and the whole cache is dropped when the subscription comes back.
 */
import { Redis } from "ioredis";
import type { RedisGate } from "../../lib/redis";
import type { LicenseCache } from "./license-cache";
import { LICENSE_CACHE_FALLBACK_TTL_MS, LICENSE_CACHE_LOCAL_TTL_MS, LICENSE_CACHE_TTL_MS } from "./license-cache";

export const LICENSE_CHANGED_CHANNEL = "flotilla:license-changed";

export class LicenseInvalidation {
  private subscribed = false;

  constructor(
    private readonly cache: LicenseCache,
    /** The instance's command connection (publishing), through its bounds and circuit breaker. */
    private readonly publisher: RedisGate,
    /** A dedicated connection in subscriber mode, or null without Redis. */
    private readonly subscriber: Redis | null,
    private readonly log: { warn(details: object, message: string): void },
  ) {
    if (!subscriber) return;
    subscriber.on("message", (_channel: string, licenseKey: string) => cache.invalidate(licenseKey));
    // Every (re)connection: subscribe, then forget everything cached meanwhile — a message may have been missed.
    subscriber.on("ready", () => {
      subscriber.subscribe(LICENSE_CHANGED_CHANNEL).then(
        () => {
          this.subscribed = true;
          cache.clear();
        },
        (error: unknown) => log.warn({ err: error }, "subscribing to license changes failed"),
      );
    });
    subscriber.on("close", () => {
      this.subscribed = false;
    });
  }

  /** How long a cache entry may live right now (license-cache.ts). */
  ttlMs(): number {
    if (!this.subscriber) return LICENSE_CACHE_LOCAL_TTL_MS;
    return this.subscribed ? LICENSE_CACHE_TTL_MS : LICENSE_CACHE_FALLBACK_TTL_MS;
  }

  /** How long a change can take to reach every instance: a message, or the short fallback TTL; else the local TTL. */
  maxStalenessSeconds(): number {
    return this.subscriber ? 1 : LICENSE_CACHE_LOCAL_TTL_MS / 1000;
  }

  /** Whether changes made elsewhere reach this instance by message (for readiness and metrics). */
  get connected(): boolean {
    return this.subscribed;
  }

  /** A license changed: forget it here now, everywhere else as soon as the message arrives. */
  async changed(licenseKey: string): Promise<void> {
    this.cache.invalidate(licenseKey);
    if (!this.publisher.redis) return;
    await this.publisher
      .run((redis) => redis.publish(LICENSE_CHANGED_CHANNEL, licenseKey))
      .catch((error: unknown) => {
        this.log.warn({ err: error, licenseKey }, "publishing a license change failed: other instances see it by TTL");
      });
  }
}

/** For processes that change licenses without serving (the admin CLI): one message, then disconnect. */
export async function publishLicenseChange(redisUrl: string, licenseKey: string): Promise<boolean> {
  // Bounded like the servers' connection: a frozen Redis costs the CLI a second, not forever.
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  try {
    await redis.connect();
    await redis.publish(LICENSE_CHANGED_CHANNEL, licenseKey);
    return true;
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}
