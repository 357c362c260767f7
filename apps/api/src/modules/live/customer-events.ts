/**
 * The live dashboard (issue 26, decision 0049): one server-sent event stream per signed-in customer's tab, fed by the
 * license change channel every instance already shares (license-invalidation.ts: PostgreSQL NOTIFY and Redis).
 *
 * The stream carries notices, not data: `license` names the customer's licenses that changed (a device bound,
 * removed or suspended, a heartbeat written, an execution started or ended), and the portal re-reads them through the
 * same authorised endpoints as ever. So it can carry nothing of anyone else's, and a notice lost or doubled costs a
 * read, never a wrong screen:
 *   - `ready` on every (re)connection: re-read everything (what happened while disconnected is not replayed);
 *   - `resync` when the channel had a gap (it went down or came back): re-read everything;
 *   - `signed-out` when the session that opened it ends: as the database announces its revocation or deletion
 *     (the `signed-out` signal, migration 0014), at its expiry (a timer), and — in case a signal was missed — on
 *     re-checks after a gap in the channel and on every ping. Its data says why, when the service knows
 *     (`{"reason": "signed_out" | "expired" | "account_erased"}`, decision 0056), as a 401 would;
 *   - a comment every PING_MS keeps proxies from timing the stream out.
 * Bounded: STREAMS_PER_CUSTOMER per customer across the cluster (cluster-streams.ts: counted in Redis; the oldest is
 * `replaced`, on whichever instance holds it), or, while Redis does not answer, this instance's share of that
 * number; and STREAMS_PER_INSTANCE per instance (the route answers 503 with Retry-After beyond it).
 */
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { SessionEndReason } from "@flotilla/contracts/auth";
import { and, eq, gt } from "drizzle-orm";
import type { Database } from "../../db/client";
import { licenseKeyAliases, licenses } from "../../db/schema";
import type { RedisGate } from "../../lib/redis";
import type { LicenseInvalidation, LicenseSignal } from "../licenses/license-invalidation";
import { ClusterStreams, streamIdOf, streamMember } from "./cluster-streams";

export const PING_MS = 15_000;
/** Notices for one stream are gathered this long, so a burst of changes costs the portal one re-read. */
export const COALESCE_MS = 100;
export const STREAMS_PER_CUSTOMER = 5;
export const STREAMS_PER_INSTANCE = 5_000;
/** A stream counts against its customer's cap this long after its last renewal (each ping renews): a late ping or
 * two, not a crashed instance's streams for long. */
export const STREAM_LEASE_MS = 2 * PING_MS + 10_000;
/** Sessions checked at once on a ping round (each one query). */
const SESSION_CHECKS_AT_ONCE = 50;
/** What the browser waits before reconnecting after the stream drops (the SSE `retry` field). */
export const RECONNECT_MS = 2_000;
/** setTimeout's longest delay; a later end is re-armed from there. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

interface Stream {
  id: string;
  /** Its member in the customer's set of streams across the cluster. */
  member: string;
  customerId: string;
  owner: StreamOwner;
  /** When the session ends unless used (sliding) or at the latest (absolute); re-read on every check. */
  endsAt: number;
  expiry: NodeJS.Timeout | null;
  response: ServerResponse;
  licenseIds: Set<string>;
  /** The customer's license keys (current, and rotated ones in their grace) → license id. */
  licenseKeys: Map<string, string>;
  pending: Set<string>;
  timer: NodeJS.Timeout | null;
  sequence: number;
  /** Its session ended and the `signed-out` event is on its way (signOut). */
  ending: boolean;
}

export interface StreamOwner {
  customerId: string;
  sessionId: string;
  /** When the session ends as far as the stream's opening knew (ms since the epoch). */
  endsAt: number;
  /** When the session now ends, or null once it has ended; throws when the database does not answer. */
  check(): Promise<number | null>;
  /** Why the session ended (asked once it has), or null when unknown; throws when the database does not answer. */
  endReason?(): Promise<SessionEndReason | null>;
}

export interface HubPeers {
  /** The instance's Redis gate (its bounds and circuit breaker): the customer's streams across the cluster. */
  redis: RedisGate;
  /** Put before the Redis keys (REDIS_KEY_PREFIX). */
  redisKeyPrefix: string;
  /** Instances alive, this one included (db/instances.ts): this instance's share of a customer's cap without Redis. */
  instances: () => number;
  now?: () => number;
}

export class CustomerEventHub {
  private readonly streams = new Set<Stream>();
  private readonly ping: NodeJS.Timeout;
  private readonly cluster: ClusterStreams;
  private readonly now: () => number;
  private closed = false;
  /** A round of session checks is running (pingAll). */
  private checking = false;

  constructor(
    private readonly db: Database,
    private readonly invalidation: Pick<LicenseInvalidation, "listen" | "streamsReplaced">,
    private readonly log: { warn(details: object, message: string): void },
    private readonly peers: HubPeers,
  ) {
    this.now = peers.now ?? Date.now;
    this.cluster = new ClusterStreams(peers.redis, {
      keyPrefix: peers.redisKeyPrefix,
      cap: STREAMS_PER_CUSTOMER,
      leaseMs: STREAM_LEASE_MS,
    });
    invalidation.listen({
      signal: (signal) => this.heard(signal),
      gap: () => {
        this.broadcast("resync");
        // A session may have ended unheard meanwhile.
        void this.checkSessions([...this.streams]);
      },
    });
    this.ping = setInterval(() => void this.pingAll(), PING_MS);
    this.ping.unref();
  }

  get size(): number {
    return this.streams.size;
  }

  /** Whether another stream may open on this instance. */
  hasRoom(): boolean {
    return !this.closed && this.streams.size < STREAMS_PER_INSTANCE;
  }

  /** Starts streaming to a response whose headers the caller has written. */
  async open(owner: StreamOwner, response: ServerResponse) {
    const id = randomUUID();
    const stream: Stream = {
      id,
      member: streamMember(this.now(), id),
      customerId: owner.customerId,
      owner,
      endsAt: owner.endsAt,
      expiry: null,
      response,
      licenseIds: new Set(),
      licenseKeys: new Map(),
      pending: new Set(),
      timer: null,
      sequence: 0,
      ending: false,
    };
    this.streams.add(stream);
    response.on("close", () => this.forget(stream));
    this.armExpiry(stream);
    write(stream, `retry: ${RECONNECT_MS}\n\n`);
    const [loaded] = await Promise.all([this.loadLicenses(stream), this.admit(stream)]);
    if (!this.streams.has(stream)) return; // replaced, signed out or closed meanwhile
    // A stream that does not know the customer's licenses would look live and hear nothing: end it, and the browser
    // reconnects after its pause.
    if (!loaded) return this.end(stream, "closing");
    this.send(stream, "ready", {});
  }

  /**
   * Counts a new stream against its customer's cap: across the cluster (the oldest beyond it are replaced wherever
   * they are), or, when Redis does not answer, this instance's share of the cap (its oldest here are replaced).
   */
  private async admit(stream: Stream) {
    const beyond = await this.cluster.touch(stream.customerId, stream.member);
    const share =
      beyond === null ? Math.max(1, Math.floor(STREAMS_PER_CUSTOMER / this.peers.instances())) : STREAMS_PER_CUSTOMER;
    const mine = [...this.streams]
      .filter((other) => other.customerId === stream.customerId)
      .sort((a, b) => (a.member < b.member ? -1 : 1));
    for (const old of mine.slice(0, Math.max(0, mine.length - share))) this.end(old, "replaced");
    if (beyond) await this.replace(beyond);
    // Closed while Redis answered: it was added back; take it out again.
    if (!this.streams.has(stream)) await this.cluster.remove(stream.customerId, stream.member);
  }

  /** Ends the streams named (members of a customer's set): here, or by message on the instance that holds them. */
  private async replace(members: string[]) {
    const elsewhere: string[] = [];
    for (const member of members) {
      const held = this.find(streamIdOf(member));
      if (held) this.end(held, "replaced");
      else elsewhere.push(streamIdOf(member));
    }
    if (elsewhere.length > 0) await this.invalidation.streamsReplaced(elsewhere);
  }

  private find(id: string): Stream | undefined {
    for (const stream of this.streams) if (stream.id === id) return stream;
    return undefined;
  }

  /** Ends every stream (draining for a shutdown): browsers reconnect, to another instance. */
  closeAll() {
    this.closed = true;
    clearInterval(this.ping);
    for (const stream of [...this.streams]) this.end(stream, "closing");
  }

  /** Reads which licenses (and keys) the stream's customer has; false when the database did not answer. */
  private async loadLicenses(stream: Stream): Promise<boolean> {
    try {
      const now = new Date();
      const owned = await this.db
        .select({ id: licenses.id, key: licenses.licenseKey })
        .from(licenses)
        .where(eq(licenses.customerId, stream.customerId));
      const ids = owned.map((row) => row.id);
      const aliases =
        ids.length === 0
          ? []
          : await this.db
              .select({ key: licenseKeyAliases.licenseKey, id: licenseKeyAliases.licenseId })
              .from(licenseKeyAliases)
              .innerJoin(licenses, eq(licenses.id, licenseKeyAliases.licenseId))
              .where(and(eq(licenses.customerId, stream.customerId), gt(licenseKeyAliases.validUntil, now)));
      stream.licenseIds = new Set(ids);
      stream.licenseKeys = new Map([...owned, ...aliases].map((row) => [row.key, row.id]));
      return true;
    } catch (error) {
      this.log.warn({ err: error }, "live events: reading the customer's licenses failed");
      return false;
    }
  }

  private heard(signal: LicenseSignal) {
    for (const stream of [...this.streams]) {
      if (signal.kind === "signed-out") {
        // A revocation is final: no need to ask the database.
        if (stream.owner.sessionId === signal.sessionId) void this.signOut(stream);
      } else if (signal.kind === "replaced") {
        if (signal.streamIds.includes(stream.id)) this.end(stream, "replaced");
      } else if (signal.kind === "owner") {
        if (stream.customerId !== signal.customerId) continue;
        void this.loadLicenses(stream).then(() => {
          for (const id of stream.licenseIds) this.notice(stream, id);
        });
      } else if (signal.kind === "seen") {
        for (const id of signal.licenseIds) if (stream.licenseIds.has(id)) this.notice(stream, id);
      } else if (signal.kind === "executions") {
        const id = stream.licenseKeys.get(signal.licenseKey);
        if (id) this.notice(stream, id);
      } else if (signal.kind === "changed") {
        const id = stream.licenseKeys.get(signal.licenseKey);
        if (!id) continue;
        this.notice(stream, id);
        // A rotation names the old key: learn the new one.
        void this.loadLicenses(stream);
      }
    }
  }

  private notice(stream: Stream, licenseId: string) {
    stream.pending.add(licenseId);
    stream.timer ??= setTimeout(() => {
      stream.timer = null;
      const ids = [...stream.pending];
      stream.pending.clear();
      if (ids.length > 0) this.send(stream, "license", { license_ids: ids });
    }, COALESCE_MS);
  }

  private broadcast(event: string) {
    for (const stream of this.streams) this.send(stream, event, {});
  }

  /**
   * Pings every stream, then renews them in their customers' sets and re-checks their sessions (every PING_MS; tests
   * call it directly): the pings go out first, whatever Redis and the database do.
   */
  async pingAll() {
    const streams = [...this.streams];
    for (const stream of streams) write(stream, ": ping\n\n");
    await Promise.all([this.renew(streams), this.checkSessions(streams)]);
  }

  /**
   * Renews each stream's lease in its customer's set — and adds those opened while Redis did not answer, so that the
   * cap holds again once it does: whoever is then beyond it is replaced.
   */
  private async renew(streams: Stream[]) {
    const beyond = await Promise.all(streams.map((stream) => this.cluster.touch(stream.customerId, stream.member)));
    await this.replace(beyond.flatMap((members) => members ?? []));
    for (const stream of streams) {
      if (!this.streams.has(stream)) await this.cluster.remove(stream.customerId, stream.member);
    }
  }

  /**
   * Ends the streams whose session has ended, and learns when the others' end now (a sliding expiry moves). A batch
   * at a time; a round still checking when the next is due lets that one skip its checks.
   */
  private async checkSessions(streams: Stream[]) {
    if (this.checking) return;
    this.checking = true;
    try {
      for (let at = 0; at < streams.length; at += SESSION_CHECKS_AT_ONCE) {
        await Promise.all(streams.slice(at, at + SESSION_CHECKS_AT_ONCE).map((stream) => this.checkSession(stream)));
      }
    } finally {
      this.checking = false;
    }
  }

  private async checkSession(stream: Stream) {
    // A database that does not answer is not a signed-out customer: keep the stream, check again later.
    const endsAt = await stream.owner.check().catch(() => undefined);
    if (endsAt === undefined || !this.streams.has(stream)) return;
    if (endsAt === null) return this.signOut(stream);
    stream.endsAt = endsAt;
    this.armExpiry(stream);
  }

  /** A timer at the session's end: then the stream ends, unless the session was used meanwhile (it slid on). */
  private armExpiry(stream: Stream) {
    if (stream.expiry) clearTimeout(stream.expiry);
    const delay = Math.min(Math.max(0, stream.endsAt - this.now()), LONGEST_TIMER_MS);
    stream.expiry = setTimeout(() => {
      stream.expiry = null;
      void this.checkSession(stream);
    }, delay);
    stream.expiry.unref();
  }

  private send(stream: Stream, event: string, data: object) {
    stream.sequence += 1;
    write(stream, `id: ${stream.sequence}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /**
   * Ends a stream whose session ended, saying why when the service can tell (one bounded read, as a 401 would
   * answer); a database that does not answer ends it without a reason. Once: a second signal finds it ending.
   */
  private async signOut(stream: Stream): Promise<void> {
    if (stream.ending) return;
    stream.ending = true;
    const reason = await (stream.owner.endReason?.() ?? Promise.resolve(null)).catch(() => null);
    // Replaced or closed meanwhile: that ending stands.
    if (!this.streams.has(stream)) return;
    this.end(stream, "signed-out", reason ? { reason } : {});
  }

  private end(stream: Stream, event: string, data: object = {}): void {
    this.send(stream, event, data);
    this.forget(stream);
    stream.response.end();
  }

  private forget(stream: Stream) {
    if (stream.timer) clearTimeout(stream.timer);
    stream.timer = null;
    if (stream.expiry) clearTimeout(stream.expiry);
    stream.expiry = null;
    if (this.streams.delete(stream)) void this.cluster.remove(stream.customerId, stream.member);
  }
}

function write(stream: Stream, text: string) {
  if (!stream.response.writableEnded && !stream.response.destroyed) stream.response.write(text);
}
