/**
 * Background work that must run on one instance at a time (retention today; culling and deliveries later).
 * Every instance schedules every job; a run first takes a PostgreSQL advisory lock named after the job inside a
 * transaction (pg_try_advisory_xact_lock), so when several instances wake together one works and the others
 * skip that round. The lock ends with the transaction, so a killed runner never leaves it held.
 *
 * A job that works in batches (decision 0058) does one bounded batch per transaction, the lock taken again for each:
 * no transaction of a job outlives a batch, so the rows a batch locks are held back from the hot paths for one batch,
 * never for a whole backlog; a run repeats batches while the last one was full, up to `batches.max`.
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
  /** run() is one bounded batch: a run repeats it, each in its own transaction, while `more` says the last was full. */
  batches?: { max: number; more(result: Record<string, number> | undefined): boolean };
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

/** What a batched run did: the batches' results summed, and how long each batch's transaction took (ms). */
export interface BatchedOutcome {
  ran: boolean;
  result: Record<string, number> | undefined;
  batches: number[];
}

/**
 * Runs a job's batches one transaction each (the job's lock taken for each), until a batch finds less than a full
 * batch, another runner holds the lock, or `batches.max` batches ran. A job without batches runs once.
 */
export async function runBatches(db: Database, job: Job, now?: Date): Promise<BatchedOutcome> {
  const max = job.batches?.max ?? 1;
  const durations: number[] = [];
  let summed: Record<string, number> | undefined;
  let ran = false;
  for (let batch = 0; batch < max; batch++) {
    const started = performance.now();
    const outcome = await runExclusively(db, job, now ?? new Date());
    if (!outcome.ran) break;
    durations.push(performance.now() - started);
    ran = true;
    if (outcome.result) {
      summed ??= {};
      for (const [key, value] of Object.entries(outcome.result)) summed[key] = (summed[key] ?? 0) + value;
    }
    if (!job.batches?.more(outcome.result)) break;
  }
  return { ran, result: summed, batches: durations };
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
  async runNow(job: Job): Promise<BatchedOutcome | undefined> {
    if (this.stopped) return undefined;
    const run = runBatches(this.db, job).then(
      (outcome) => {
        if (outcome.ran && outcome.result && Object.values(outcome.result).some((n) => n > 0)) {
          const slowest = Math.round(Math.max(...outcome.batches));
          this.log.info(
            { job: job.name, ...outcome.result, batches: outcome.batches.length, slowestBatchMs: slowest },
            "background job done",
          );
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
