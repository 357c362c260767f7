/**
 * How many instances of the service are alive (decision 0016): while Redis is out, each instance counts rate limits
 * alone at its share of the limit, and keeps its share of a customer's live streams, so the cluster as a whole stays
 * near the limit instead of the limit times the instances.
 *
 * Each instance writes its row in `service_instances` every INSTANCE_BEAT_MS and reads how many others wrote within
 * INSTANCE_ALIVE_MS, all by the database's clock (instances' clocks may differ). An instance that stops deletes its
 * row; one that crashed is counted out after INSTANCE_ALIVE_MS and its row deleted later. A beat that fails (the
 * database does not answer) keeps the last count: a stale count is still a count. On the embedded database there is
 * one instance.
 */
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import type { DatabaseHandle } from "./client";

export const INSTANCE_BEAT_MS = 2_000;
/** Not seen for this long, an instance is counted out: a few beats missed, not one. */
export const INSTANCE_ALIVE_MS = 10_000;
/** Rows this old are deleted (a crashed instance's). */
const INSTANCE_FORGET_MS = 60_000;

export class InstanceRegistry {
  private readonly id = randomUUID();
  private alive = 1;
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;
  private failing = false;

  constructor(
    private readonly database: Pick<DatabaseHandle, "db" | "kind">,
    private readonly name: string,
    private readonly log: { warn(details: object, message: string): void },
  ) {}

  /** Instances alive, this one included (at least 1). */
  get count(): number {
    return this.alive;
  }

  /** Registers this instance and learns the others, then keeps doing so. */
  async start(): Promise<void> {
    if (this.database.kind === "pglite") return;
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), INSTANCE_BEAT_MS);
    this.timer.unref();
  }

  /** One beat now (tests call it; a beat still running is joined, not doubled). */
  refresh(): Promise<void> {
    if (this.database.kind === "pglite") return Promise.resolve();
    this.beating ??= this.beat().finally(() => {
      this.beating = null;
    });
    return this.beating;
  }

  private async beat() {
    try {
      // One round trip: the data-modifying parts run whatever the SELECT reads (it sees the rows as they were).
      const result = (await this.database.db.execute(sql`
        WITH beat AS (
          INSERT INTO service_instances (id, name, seen_at) VALUES (${this.id}, ${this.name}, now())
          ON CONFLICT (id) DO UPDATE SET seen_at = now(), name = excluded.name
        ), forgotten AS (
          DELETE FROM service_instances WHERE seen_at < now() - make_interval(secs => ${INSTANCE_FORGET_MS / 1000})
        )
        SELECT count(*)::int AS others FROM service_instances
        WHERE id <> ${this.id} AND seen_at > now() - make_interval(secs => ${INSTANCE_ALIVE_MS / 1000})`)) as unknown as {
        rows: { others: number }[];
      };
      this.alive = 1 + Number(result.rows[0]?.others ?? 0);
      this.failing = false;
    } catch (error) {
      // Once per outage: the database's own failures are logged elsewhere.
      if (!this.failing)
        this.log.warn({ err: error, instances: this.alive }, "instance beat failed: keeping the last count");
      this.failing = true;
    }
  }

  /** Leaves the count at once (a drain), so the others' shares grow without waiting INSTANCE_ALIVE_MS. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.database.kind === "pglite") return;
    await this.beating;
    await this.database.db.execute(sql`DELETE FROM service_instances WHERE id = ${this.id}`).catch(() => undefined);
  }
}
