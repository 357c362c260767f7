/**
 * A customer's open live streams across the cluster (decision 0049), so that the cap per customer holds whichever
 * instances their tabs reach: a sorted set per customer in Redis, one member per stream — "<opened at, ms, padded>:
 * <stream id>", so that members sort oldest first — scored by when it lapses unless renewed (every ping renews, by
 * Redis's clock). Adding or renewing a stream drops the lapsed ones (a crashed instance's) and returns, and removes,
 * those beyond the cap, oldest first: their holders end them with `replaced`.
 *
 * Every call goes through the instance's Redis gate (its command timeout and circuit breaker): when Redis does not
 * answer, `touch` says so (null) at once and the caller keeps its per-instance share instead.
 */
import type { RedisGate } from "../../lib/redis";

const TOUCH_SCRIPT = `
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], now + lease, ARGV[1])
redis.call('PEXPIRE', KEYS[1], lease)
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[2])
if excess <= 0 then return {} end
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
table.sort(members)
local evicted = {}
for i = 1, excess do evicted[i] = members[i] end
redis.call('ZREM', KEYS[1], unpack(evicted))
return evicted`;

type RedisWithScript = NonNullable<RedisGate["redis"]> & {
  flotillaLiveStreamTouch(key: string, member: string, cap: number, leaseMs: number): Promise<string[]>;
};

/** A stream's member: sorts by opening time, then id. */
export function streamMember(openedAt: number, streamId: string): string {
  return `${String(openedAt).padStart(15, "0")}:${streamId}`;
}

/** The stream id a member names. */
export function streamIdOf(member: string): string {
  return member.slice(member.indexOf(":") + 1);
}

export class ClusterStreams {
  constructor(
    private readonly gate: RedisGate,
    private readonly options: { keyPrefix: string; cap: number; leaseMs: number },
  ) {
    const redis = gate.redis as RedisWithScript | null;
    if (redis && !redis.flotillaLiveStreamTouch) {
      redis.defineCommand("flotillaLiveStreamTouch", { numberOfKeys: 1, lua: TOUCH_SCRIPT });
    }
  }

  private key(customerId: string) {
    return `${this.options.keyPrefix}flotilla:live-streams:${customerId}`;
  }

  /**
   * Adds or renews the stream; the customer's streams beyond the cap (members, oldest first), now removed, which their
   * holders must end — or null when Redis did not answer in time (nothing is known).
   */
  async touch(customerId: string, member: string): Promise<string[] | null> {
    try {
      return await this.gate.run((redis) =>
        (redis as RedisWithScript).flotillaLiveStreamTouch(
          this.key(customerId),
          member,
          this.options.cap,
          this.options.leaseMs,
        ),
      );
    } catch {
      return null;
    }
  }

  /** Forgets a stream that ended; when Redis does not answer, its lease lapses instead. */
  async remove(customerId: string, member: string): Promise<void> {
    await this.gate.run((redis) => redis.zrem(this.key(customerId), member)).catch(() => undefined);
  }
}
