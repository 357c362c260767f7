/**
 * Background work that must run on one instance at a time (retention today; culling and deliveries later).
 * Every instance schedules every job; a run first takes a PostgreSQL advisory lock named after the job inside a
 * transaction (pg_try_advisory_xact_lock), so when several instances wake together one works and the others
 * skip that round. The lock ends with the transaction, so a killed runner never leaves it held.
 */
import { sql } from "drizzle-orm";
import type { Database, Transaction } from "../db/client";

export interface Job {
  /** Unique across jobs: it names the advisory lock. */
  name: string;
  intervalMs: number;
  /** Runs inside the transaction that holds the job's lock. */
  run(tx: Transaction, now: Date): Promise<Record<string, number> | undefined>;
  /** Runs after the run's transaction committed (e.g. tell other instances what changed). */
  afterCommit?(): Promise<void>;
}

export type JobOutcome = { ran: true; result: Record<string, number> | undefined } | { ran: false };

/** A stable 63-bit lock id per job name (FNV-1a), so every instance agrees without a registry. */
export function advisoryLockId(name: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(`flotilla-job:${name}`)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash & 0x7fffffffffffffffn;
}

/** Runs the job once if no other runner holds its lock right now. */
export async function runExclusively(db: Database, job: Job, now = new Date()): Promise<JobOutcome> {
  const outcome = await db.transaction(async (tx): Promise<JobOutcome> => {
    const lockId = advisoryLockId(job.name).toString();
    const result = (await tx.execute(
      sql`select pg_try_advisory_xact_lock(${lockId}::bigint) as locked`,
    )) as unknown as {
      rows: { locked: boolean }[];
    };
    if (!result.rows[0]?.locked) return { ran: false };
    return { ran: true, result: await job.run(tx, now) };
  });
  if (outcome.ran && job.afterCommit) await job.afterCommit();
  return outcome;
}

export class JobScheduler {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly jobs: Job[],
    private readonly log: {
      info(details: object, message: string): void;
      error(details: object, message: string): void;
    },
  ) {}

  start() {
    for (const job of this.jobs) {
      const timer = setInterval(() => void this.runNow(job), job.intervalMs);
      timer.unref();
      this.timers.push(timer);
    }
  }

  /** Runs one job now (also what the timers call); failures are logged, never thrown. */
  async runNow(job: Job): Promise<JobOutcome | undefined> {
    if (this.stopped) return undefined;
    const run = runExclusively(this.db, job).then(
      (outcome) => {
        if (outcome.ran && outcome.result && Object.values(outcome.result).some((n) => n > 0)) {
          this.log.info({ job: job.name, ...outcome.result }, "background job done");
        }
        return outcome;
      },
      (error: unknown) => {
        this.log.error({ err: error, job: job.name }, "background job failed");
        return undefined;
      },
    );
    this.running.add(run);
    try {
      return await run;
    } finally {
      this.running.delete(run);
    }
  }

  /** No new runs; waits for the ones under way (they hold database connections). */
  async stop() {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    await Promise.allSettled([...this.running]);
  }
}
