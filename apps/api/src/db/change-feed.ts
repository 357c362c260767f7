/**
 * A PostgreSQL change feed (decision 0037): NOTIFY on a channel from the pool once a change has committed, LISTEN on a
 * dedicated connection of each instance. Every instance that can write can notify — the change itself just
 * committed on the same server — so the feed reaches every instance whichever of them made the change, wherever
 * Redis is reachable from.
 *
 * The listening connection is a peer like any other, and a silent one looks exactly like a quiet feed: a heartbeat
 * (`SELECT 1` every FEED_HEARTBEAT_MS, answered within FEED_ANSWER_MS, else the connection is destroyed) tells
 * them apart. When it fails the feed reports `down`, and reconnects with a backoff; it reports `up` once LISTEN is
 * confirmed again — messages sent meanwhile are lost, which the caller must assume (license-invalidation.ts forgets
 * its cache on both).
 */
import type pg from "pg";
import { boundedClient } from "./bounded-postgres";

export const FEED_HEARTBEAT_MS = 1_000;
export const FEED_ANSWER_MS = 1_000;

export interface FeedHandlers {
  message(payload: string): void;
  /** LISTEN is (again) confirmed: from now on, every message arrives. */
  up(): void;
  /** The connection failed or went silent: messages may be lost until `up`. */
  down(error: unknown): void;
}

export interface ChangeFeed {
  readonly up: boolean;
  /** Settles when the first connection attempt has ended, whether or not it succeeded (bounded by its timeouts). */
  readonly started: Promise<void>;
  close(): Promise<void>;
}

const ListeningClient = boundedClient(FEED_ANSWER_MS);

export function listenForChanges(
  url: string,
  channel: string,
  handlers: FeedHandlers,
  options: { connectTimeoutMs: number },
): ChangeFeed {
  let client: pg.Client | null = null;
  let up = false;
  let closed = false;
  let attempt = 0;
  let retry: NodeJS.Timeout | null = null;
  let heartbeat: NodeJS.Timeout | null = null;

  const lost = (current: pg.Client, error: unknown) => {
    if (client !== current) return; // an older connection, already replaced
    client = null;
    if (heartbeat) clearInterval(heartbeat);
    heartbeat = null;
    destroy(current);
    if (up) {
      up = false;
      handlers.down(error);
    }
    if (closed) return;
    attempt += 1;
    retry = setTimeout(connect, Math.min(attempt * 250, 2_000));
    retry.unref();
  };

  const connect = async () => {
    retry = null;
    if (closed) return;
    const current = new ListeningClient({
      connectionString: url,
      connectionTimeoutMillis: options.connectTimeoutMs,
      keepAlive: true,
    });
    client = current;
    current.on("notification", (message) => {
      if (message.channel === channel && message.payload !== undefined) handlers.message(message.payload);
    });
    current.on("error", (error) => lost(current, error));
    current.on("end", () => lost(current, new Error("the listening connection ended")));
    try {
      await current.connect();
      await current.query(`LISTEN "${channel.replaceAll('"', '""')}"`);
    } catch (error) {
      lost(current, error);
      return;
    }
    if (client !== current || closed) return;
    attempt = 0;
    up = true;
    handlers.up();
    heartbeat = setInterval(() => {
      current.query("SELECT 1").catch((error: unknown) => lost(current, error));
    }, FEED_HEARTBEAT_MS);
    heartbeat.unref();
  };

  const started = connect();
  return {
    get up() {
      return up;
    },
    started,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      if (heartbeat) clearInterval(heartbeat);
      const current = client;
      client = null;
      up = false;
      if (current) destroy(current);
    },
  };
}

/** Ends a connection at once: a polite end() would wait for a server that may not answer. */
function destroy(client: pg.Client) {
  const stream = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
  stream?.destroy();
}
