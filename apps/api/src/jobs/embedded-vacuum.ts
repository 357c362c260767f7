/**
 * The embedded database's VACUUM and ANALYZE (decision 0057). PGlite runs one backend without autovacuum, so a row
 * updated by every heartbeat (execution_leases), every counter flush (machines, rollups) or every session leaves its
 * old versions behind for good: the table and its indexes grew by about 80 KB per 1,000 heartbeats and never shrank,
 * and the planner's statistics were never refreshed as tables grew. A plain VACUUM makes that space reusable (the
 * files stop growing); it reads only the pages changed since the last one (the visibility map), so its cost follows
 * the writes, not the data. ANALYZE samples every table: less often. PostgreSQL's autovacuum does both there.
 */
import type { DatabaseHandle } from "../db/client";

/** How often the embedded database is vacuumed. */
export const EMBEDDED_VACUUM_EVERY_MS = 10 * 60_000;
/** Every this many vacuums also ANALYZE (hourly with the interval above). */
export const EMBEDDED_ANALYZE_EVERY = 6;

interface Log {
  debug(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface EmbeddedVacuum {
  /** One round now (the timer's, and tests'). */
  run(): Promise<void>;
  stop(): Promise<void>;
}

export function startEmbeddedVacuum(
  database: Pick<DatabaseHandle, "kind" | "vacuum">,
  log: Log,
  options: { everyMs?: number; analyzeEvery?: number; timer?: boolean } = {},
): EmbeddedVacuum {
  const analyzeEvery = options.analyzeEvery ?? EMBEDDED_ANALYZE_EVERY;
  let rounds = 0;
  let running: Promise<void> | null = null;
  const run = () => {
    if (database.kind !== "pglite") return Promise.resolve();
    // A round still under way is not started twice.
    running ??= (async () => {
      const analyze = rounds % analyzeEvery === 0;
      rounds += 1;
      const started = performance.now();
      try {
        await database.vacuum({ analyze });
        log.debug({ analyze, ms: Math.round(performance.now() - started) }, "embedded database vacuumed");
      } catch (error) {
        log.warn({ err: error }, "vacuuming the embedded database failed");
      } finally {
        running = null;
      }
    })();
    return running;
  };
  const timer =
    database.kind === "pglite" && options.timer !== false
      ? setInterval(() => void run(), options.everyMs ?? EMBEDDED_VACUUM_EVERY_MS)
      : null;
  timer?.unref();
  return {
    run,
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
