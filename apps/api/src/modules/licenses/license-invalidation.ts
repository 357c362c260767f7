/**
 * License changes reach every instance's cache (decisions 0026, 0037). The instance that made a change forgets its
 * entry at once, then sends the key on two channels: a PostgreSQL NOTIFY (every instance LISTENs on a connection of
 * its own, db/change-feed.ts) and a Redis message (every instance subscribes). Forgetting is idempotent, so hearing
 * both is harmless; each covers the other's failures.
 *
 * How long an entry may live (license-cache.ts) depends on whether a missed change is possible:
 *   - on PostgreSQL the feed decides: every change commits on that server and is announced there right after, so
 *     while this instance's LISTEN is confirmed and answering its heartbeat, no change can pass unheard — whichever
 *     instance made it, whatever Redis it can reach. Up: LICENSE_CACHE_TTL_MS (a safety net); down or stalled:
 *     LICENSE_CACHE_FALLBACK_TTL_MS. Redis alone cannot vouch for that: a change made by an instance that cannot
 *     reach Redis never enters it;
 *   - on the embedded database (one process) with Redis: the subscription decides, as before;
 *   - neither: LICENSE_CACHE_LOCAL_TTL_MS (this instance's changes invalidate at once).
 * Whenever the deciding channel goes down or comes back, the whole cache is dropped: entries cached while it was up
 * would otherwise outlive what it can vouch for, and messages may have been missed meanwhile.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import type { ChangeFeed, FeedHandlers } from "../../db/change-feed";
import type { DatabaseHandle } from "../../db/client";
import type { RedisGate } from "../../lib/redis";
import type { LicenseCache } from "./license-cache";
import { LICENSE_CACHE_FALLBACK_TTL_MS, LICENSE_CACHE_LOCAL_TTL_MS, LICENSE_CACHE_TTL_MS } from "./license-cache";

/** The channel's name, in Redis and in PostgreSQL (a quoted identifier there). */
export const LICENSE_CHANGED_CHANNEL = "flotilla:license-changed";

/**
 * What travels on the channel (keys and ids hold no spaces):
 *   - a change: "<license key>" — every cache forgets the license, every live dashboard of its owner refreshes;
 *   - activity: "seen <license id>,<license id>…" — machines' heartbeats were written; live dashboards refresh, caches
 *     keep the licenses;
 *   - "owner <customer id>" — a customer has a new license; their live dashboards start following it;
 *   - "signed-out <session id>" — a session ended (revoked or deleted); the live streams it opened end. Sent by the
 *     database itself (migration 0014's trigger, sender "db"), on PostgreSQL's channel only;
 *   - "replaced <stream id>,<stream id>…" — live streams beyond their customer's cap across the cluster
 *     (modules/live/cluster-streams.ts); whichever instance holds them ends them.
 * A PostgreSQL message is prefixed with its sender, "<sender> …": the sender ignores its own echo (it forgot the key
 * when it made the change) so that a late echo does not empty the cache a moment later.
 */
export type LicenseSignal =
  | { kind: "changed"; licenseKey: string }
  /**
   * Only a license's executions changed (started, ended, stopped, revived): dashboards and watches look again, caches
   * keep the license's state, which holds no execution (decision 0057: a start and its end cost no re-read each).
   */
  | { kind: "executions"; licenseKey: string }
  | { kind: "seen"; licenseIds: string[] }
  /** A customer's set of licenses changed (one was created): their live dashboards learn the new one. */
  | { kind: "owner"; customerId: string }
  /** A session ended: whatever it authorised and still holds open (live streams) ends. */
  | { kind: "signed-out"; sessionId: string }
  /** Live streams replaced by their customer's newer ones on another instance: their holder ends them. */
  | { kind: "replaced"; streamIds: string[] };

/** Ids per "seen" or "replaced" message: one flush's worth in a few messages, each well under NOTIFY's 8000 bytes. */
const IDS_PER_MESSAGE = 150;

const SEEN = "seen";
const EXECUTIONS = "executions";
const OWNER = "owner";
const SIGNED_OUT = "signed-out";
const REPLACED = "replaced";

function signalText(signal: LicenseSignal): string {
  switch (signal.kind) {
    case "changed":
      return signal.licenseKey;
    case "executions":
      return `${EXECUTIONS} ${signal.licenseKey}`;
    case "seen":
      return `${SEEN} ${signal.licenseIds.join(",")}`;
    case "owner":
      return `${OWNER} ${signal.customerId}`;
    case "signed-out":
      return `${SIGNED_OUT} ${signal.sessionId}`;
    case "replaced":
      return `${REPLACED} ${signal.streamIds.join(",")}`;
  }
}

/** Unknown words give null: an instance ignores what a newer one sends (a rolling deploy). */
function readSignal(text: string): LicenseSignal | null {
  const [first, second, extra] = text.split(" ");
  if (!first || extra !== undefined) return null;
  if (second === undefined) return { kind: "changed", licenseKey: first };
  if (first === EXECUTIONS) return { kind: "executions", licenseKey: second };
  if (first === SEEN) return { kind: "seen", licenseIds: second.split(",").filter(Boolean) };
  if (first === SIGNED_OUT) return { kind: "signed-out", sessionId: second };
  if (first === REPLACED) return { kind: "replaced", streamIds: second.split(",").filter(Boolean) };
  return first === OWNER ? { kind: "owner", customerId: second } : null;
}

function feedMessage(sender: string, signal: LicenseSignal): string {
  return `${sender} ${signalText(signal)}`;
}

function readFeedMessage(payload: string): { sender: string | null; signal: LicenseSignal | null } {
  const space = payload.indexOf(" ");
  return space === -1
    ? { sender: null, signal: readSignal(payload) }
    : { sender: payload.slice(0, space), signal: readSignal(payload.slice(space + 1)) };
}

/** Told of every signal, from this instance or another (possibly twice: both channels carry it), and of gaps. */
export interface SignalListener {
  signal(signal: LicenseSignal): void;
  /** Signals may have been missed (a channel went down or came back): whoever listens should re-read. */
  gap(): void;
}

export type ChannelState = "ok" | "down" | "off";

interface Log {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

export class LicenseInvalidation {
  private subscribed = false;
  private readonly feed: ChangeFeed | null;
  /** This process's name on the feed. */
  private readonly sender = randomUUID();
  private readonly listeners = new Set<SignalListener>();
  /** The embedded database's own notices (its triggers'); null on PostgreSQL, where the feed carries them. */
  private readonly hearing: Promise<(() => Promise<void>) | null>;

  constructor(
    private readonly cache: LicenseCache,
    private readonly peers: {
      /** The instance's Redis command connection (publishing), through its bounds and circuit breaker. */
      redis: RedisGate;
      /** A dedicated Redis connection in subscriber mode, or null without Redis. */
      subscriber: Redis | null;
      /** NOTIFY, and a LISTENing feed on PostgreSQL (null on the embedded database). */
      database: Pick<DatabaseHandle, "listen" | "notify" | "hear">;
    },
    private readonly log: Log,
  ) {
    const feedHandlers: FeedHandlers = {
      message: (payload) => {
        const { sender, signal } = readFeedMessage(payload);
        if (!signal || sender === this.sender) return;
        this.heard(signal);
      },
      up: () => {
        cache.clear();
        this.gap();
        log.info({}, "license change feed (PostgreSQL) listening");
      },
      down: (error) => {
        cache.clear();
        this.gap();
        log.warn({ err: error }, "license change feed (PostgreSQL) lost: cache entries live a second until it is back");
      },
    };
    this.feed = peers.database.listen(LICENSE_CHANGED_CHANNEL, feedHandlers);
    this.hearing = Promise.resolve(
      this.feed ? null : peers.database.hear(LICENSE_CHANGED_CHANNEL, feedHandlers.message),
    );
    const subscriber = peers.subscriber;
    if (!subscriber) return;
    subscriber.on("message", (_channel: string, text: string) => {
      const signal = readSignal(text);
      if (signal) this.heard(signal);
    });
    // Every (re)connection: subscribe, then (where Redis decides) forget everything cached meanwhile.
    subscriber.on("ready", () => {
      subscriber.subscribe(LICENSE_CHANGED_CHANNEL).then(
        () => {
          this.subscribed = true;
          // Where PostgreSQL's feed decides, Redis coming back closes no gap: the feed carried everything meanwhile.
          if (!this.feed) {
            cache.clear();
            this.gap();
          }
        },
        (error: unknown) => log.warn({ err: error }, "subscribing to license changes failed"),
      );
    });
    subscriber.on("close", () => {
      if (this.subscribed && !this.feed) cache.clear();
      this.subscribed = false;
    });
  }

  /** A signal from another instance (or this one's Redis echo). */
  private heard(signal: LicenseSignal) {
    if (signal.kind === "changed") this.cache.invalidate(signal.licenseKey);
    for (const listener of this.listeners) listener.signal(signal);
  }

  private gap() {
    for (const listener of this.listeners) listener.gap();
  }

  /** Hears every signal, from this instance and the others (the live dashboard's stream). Returns the unsubscribe. */
  listen(listener: SignalListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether changes made by other instances reach this one by message: the deciding channel's state. */
  changeFeedState(): ChannelState {
    if (this.feed) return this.feed.up ? "ok" : "down";
    if (this.peers.subscriber) return this.subscribed ? "ok" : "down";
    return "off";
  }

  /** Each channel's state (metrics). */
  channels(): { postgres: ChannelState; redis: ChannelState } {
    return {
      postgres: this.feed ? (this.feed.up ? "ok" : "down") : "off",
      redis: this.peers.subscriber ? (this.subscribed ? "ok" : "down") : "off",
    };
  }

  /** How long a cache entry may live right now (license-cache.ts). */
  ttlMs(): number {
    const state = this.changeFeedState();
    if (state === "off") return LICENSE_CACHE_LOCAL_TTL_MS;
    return state === "ok" ? LICENSE_CACHE_TTL_MS : LICENSE_CACHE_FALLBACK_TTL_MS;
  }

  /** How long a change can take to reach every instance: a message, or the short fallback TTL; else the local TTL. */
  maxStalenessSeconds(): number {
    return this.changeFeedState() === "off" ? LICENSE_CACHE_LOCAL_TTL_MS / 1000 : LICENSE_CACHE_FALLBACK_TTL_MS / 1000;
  }

  /** A license changed (call after the change committed): forget it here now, everywhere else by message. */
  async changed(licenseKey: string): Promise<void> {
    await this.announce({ kind: "changed", licenseKey });
  }

  /** Only this license's executions changed (call after the change committed): caches keep its state. */
  async executionsChanged(licenseKey: string): Promise<void> {
    await this.announce({ kind: "executions", licenseKey });
  }

  /** These licenses' machines were seen (their last-seen times are written): live dashboards refresh, caches keep them. */
  async seen(licenseIds: string[]): Promise<void> {
    for (let at = 0; at < licenseIds.length; at += IDS_PER_MESSAGE) {
      await this.announce({ kind: "seen", licenseIds: licenseIds.slice(at, at + IDS_PER_MESSAGE) });
    }
  }

  /** Live streams another instance may hold were replaced (their customer's cap): whoever holds them ends them. */
  async streamsReplaced(streamIds: string[]): Promise<void> {
    for (let at = 0; at < streamIds.length; at += IDS_PER_MESSAGE) {
      await this.announce({ kind: "replaced", streamIds: streamIds.slice(at, at + IDS_PER_MESSAGE) });
    }
  }

  /** A customer has a new license: their live dashboards start following it. */
  async ownerChanged(customerId: string): Promise<void> {
    await this.announce({ kind: "owner", customerId });
  }

  private async announce(signal: LicenseSignal): Promise<void> {
    this.heard(signal);
    const text = signalText(signal);
    await Promise.all([
      this.peers.database.notify(LICENSE_CHANGED_CHANNEL, feedMessage(this.sender, signal)).catch((error: unknown) => {
        this.log.warn({ err: error, signal: signal.kind }, "announcing a license change in PostgreSQL failed");
      }),
      this.peers.redis.redis
        ? this.peers.redis
            .run((redis) => redis.publish(LICENSE_CHANGED_CHANNEL, text))
            .catch((error: unknown) => {
              this.log.warn({ err: error, signal: signal.kind }, "publishing a license change in Redis failed");
            })
        : undefined,
    ]);
  }

  /** Resolves once the feed's first connection attempt has ended (so an instance starts with its real TTL). */
  async started(): Promise<void> {
    await Promise.all([this.feed?.started, this.hearing]);
  }

  async close(): Promise<void> {
    await this.feed?.close();
    const unsubscribe = await this.hearing.catch(() => null);
    await unsubscribe?.().catch(() => undefined);
  }
}

/**
 * For processes that change licenses without serving (the admin CLI): the same two messages, each bounded (a
 * frozen Redis costs the CLI a few seconds — about 3 in the cluster suite: the handshake's command timeout, then
 * closing the socket — not forever). True when at least one was sent.
 */
export async function announceLicenseChange(
  database: Pick<DatabaseHandle, "notify" | "kind">,
  redisUrl: string | null,
  licenseKey: string,
): Promise<boolean> {
  const notified =
    database.kind === "postgres" &&
    (await database.notify(LICENSE_CHANGED_CHANNEL, feedMessage("admin-cli", { kind: "changed", licenseKey })).then(
      () => true,
      () => false,
    ));
  if (!redisUrl) return notified;
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: 1_000,
    commandTimeout: 1_000,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    await redis.publish(LICENSE_CHANGED_CHANNEL, licenseKey);
    return true;
  } catch {
    return notified;
  } finally {
    redis.disconnect();
  }
}
