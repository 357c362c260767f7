// In-process pieces of `npm run bench:scale` (bench/scale.mjs), bundled with esbuild from the TypeScript sources:
// the app's migrations on a new database, and the background jobs' batches timed one transaction each.
import { openDatabase } from "../../apps/api/src/db/client";
import { cullingJob } from "../../apps/api/src/jobs/culling";
import { retentionJob } from "../../apps/api/src/jobs/retention";
import { runBatches } from "../../apps/api/src/jobs/scheduler";
import { Seats } from "../../apps/api/src/modules/licenses/seats/seat-lock";

/** Runs the app's migrations on `url` (what the service does when it starts). */
export async function migrate(url: string): Promise<void> {
  const handle = await openDatabase({ kind: "postgres", url });
  await handle.close();
}

/**
 * One run of a job as the scheduler runs it (batches, each its own transaction), as if it were `now`: each batch's
 * duration and what the run did.
 */
export async function jobRun(url: string, name: "culling" | "retention", now: Date) {
  const handle = await openDatabase({ kind: "postgres", url, statementTimeoutMs: 60_000 });
  try {
    const job = name === "culling" ? cullingJob(new Seats(handle.db, async () => {})) : retentionJob;
    const outcome = await runBatches(handle.db, job, now);
    return { batches: outcome.batches, result: outcome.ran ? (outcome.result ?? {}) : {} };
  } finally {
    await handle.close();
  }
}
