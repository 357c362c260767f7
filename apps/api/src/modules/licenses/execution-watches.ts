/**
 * Desktop watches (decision 0052): an app holds one request open per machine for its running executions, and it is
 * answered the moment one of them is stopped or ended, or its license is no longer in force — within about a second of
 * the change, on whichever instance the app's request landed: every change is announced after it commits on the
 * license change channel every instance hears (license-invalidation.ts: PostgreSQL NOTIFY and Redis), and a watch
 * re-reads the database when its license is named. Nothing changes: it is answered after its hold (at most
 * EXECUTION_RULES.watchHoldSeconds), and the app asks again. The heartbeat stays the fallback.
 *
 * Bounded: at most WATCHES_PER_INSTANCE held at once (more are answered at once, unchanged, and the app pauses before
 * asking again); on shutdown every held watch is answered (releaseAll), and the apps ask another instance.
 */
import type { LicenseInvalidation } from "./license-invalidation";

/** Watches one instance holds at once. */
export const WATCHES_PER_INSTANCE = 20_000;

interface Waiter {
  keys: string[];
  recheck(): void;
  release(): void;
}

export class ExecutionWatches {
  /** License key → the watches that care about it. */
  private readonly byKey = new Map<string, Set<Waiter>>();
  private count = 0;
  private closed = false;

  constructor(invalidation: Pick<LicenseInvalidation, "listen">) {
    invalidation.listen({
      signal: (signal) => {
        if (signal.kind === "changed" || signal.kind === "executions")
          for (const waiter of this.byKey.get(signal.licenseKey) ?? []) waiter.recheck();
      },
      // Signals may have been missed: every watch looks again.
      gap: () => {
        for (const waiters of this.byKey.values()) for (const waiter of waiters) waiter.recheck();
      },
    });
  }

  /** Watches held now (metrics). */
  get size(): number {
    return this.count;
  }

  /**
   * Answers with `check()`'s first answer that `changed`, or its latest when `holdMs` passes, the client goes away
   * (`aborted`) or the instance shuts down. `keys` are the license keys whose changes make it look again.
   */
  async hold<T extends { changed: boolean }>(
    keys: string[],
    holdMs: number,
    check: () => Promise<T>,
    aborted: AbortSignal,
  ): Promise<T> {
    let latest = await check();
    if (latest.changed || holdMs <= 0 || this.closed || this.count >= WATCHES_PER_INSTANCE || aborted.aborted) {
      return latest;
    }
    return new Promise<T>((resolve, reject) => {
      let checking = false;
      let again = false;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        aborted.removeEventListener("abort", finish);
        this.remove(waiter);
        resolve(latest);
      };
      const recheck = () => {
        if (done) return;
        if (checking) {
          again = true;
          return;
        }
        checking = true;
        check().then(
          (answer) => {
            checking = false;
            latest = answer;
            if (answer.changed) return finish();
            if (again) {
              again = false;
              recheck();
            }
          },
          (error: unknown) => {
            // The database did not answer: the app hears it as a failed watch and asks again later.
            checking = false;
            if (done) return;
            done = true;
            clearTimeout(timer);
            aborted.removeEventListener("abort", finish);
            this.remove(waiter);
            reject(error);
          },
        );
      };
      const waiter: Waiter = { keys, recheck, release: finish };
      const timer = setTimeout(finish, holdMs);
      aborted.addEventListener("abort", finish, { once: true });
      this.add(waiter);
    });
  }

  /** Answers every held watch now (shutdown): their apps ask again, and reach another instance. */
  releaseAll() {
    this.closed = true;
    for (const waiters of [...this.byKey.values()]) for (const waiter of [...waiters]) waiter.release();
  }

  private add(waiter: Waiter) {
    this.count += 1;
    for (const key of waiter.keys) {
      const set = this.byKey.get(key) ?? new Set<Waiter>();
      set.add(waiter);
      this.byKey.set(key, set);
    }
  }

  private remove(waiter: Waiter) {
    let removed = false;
    for (const key of waiter.keys) {
      const set = this.byKey.get(key);
      if (set?.delete(waiter)) removed = true;
      if (set?.size === 0) this.byKey.delete(key);
    }
    if (removed) this.count -= 1;
  }
}
