/**
 * Validation attempts are counted in memory and written as rolled-up increments in one batch at least
 * once a second and on shutdown, together with last-seen times. A crash can lose at most the last
 * second of these counters — never a binding, a usage report or a license, which are written before
 * the response.
 */
import { SEAT_RULES } from "@flotilla/contracts/seats";
import type { Database } from "../../db/client";
import { type AttemptIncrement, addValidationAttempts, PartlyWritten, touchLastSeen } from "./queries";

export const ATTEMPT_FLUSH_INTERVAL_MS = 1_000;
/**
 * Distinct counters held in memory at most. Past it (a database outage that lasts, or a flood of machine ids),
 * new counters are folded into their license's day-and-code total (machine "") instead of growing the map.
 */
export const MAX_PENDING_COUNTERS = 50_000;
/**
 * Refused machines (ones the license does not hold) counted under their own id, per license per UTC day on each
 * instance; later ones share the license's machine "" counter. The owner sees the devices that were refused, yet a
 * leaked key passed around a crowd adds at most this many rows a day (as many as the refusal notice keeps).
 */
export const REFUSED_MACHINES_NAMED_PER_DAY = SEAT_RULES.refusalsKept;

const DAY_MS = 86_400_000;
/** The last day formatted: every validation asks, and almost all of them fall on the same day. */
let lastDay = { start: 0, end: 0, text: "" };

export function utcDay(date: Date): string {
  const time = date.getTime();
  if (time >= lastDay.start && time < lastDay.end) return lastDay.text;
  const start = Math.floor(time / DAY_MS) * DAY_MS;
  const text = date.toISOString().slice(0, 10);
  // An invalid date has no day to remember (toISOString has thrown already).
  lastDay = { start, end: start + DAY_MS, text };
  return text;
}

/** What made a write fail: a flush that failed part-way reports the statement's own error. */
function whyNotWritten(error: unknown): unknown {
  return error instanceof PartlyWritten ? error.cause : error;
}

export class AttemptRecorder {
  private attempts = new Map<string, AttemptIncrement>();
  private seen = new Map<string, { licenseId: string; machineId: string; at: Date }>();
  /** The refused machines named today, per license (recordRefused); forgotten when the day changes. */
  private namedRefused = new Map<string, Set<string>>();
  private namedDay = "";
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  /** When the oldest counter still in memory was counted (what a crash now would lose), or null. */
  private oldestPendingAt: number | null = null;
  /** Told how long each flush took and whether it worked (metrics). */
  onFlush: ((seconds: number, ok: boolean) => void) | null = null;
  /** Told which licenses' machines were seen, once their last-seen times are written (the live dashboard). */
  onSeen: ((licenseIds: string[]) => void) | null = null;

  constructor(
    private readonly db: Database,
    private readonly onError: (error: unknown) => void,
    private readonly intervalMs = ATTEMPT_FLUSH_INTERVAL_MS,
    private readonly maxPending = MAX_PENDING_COUNTERS,
  ) {}

  start() {
    this.timer ??= setInterval(() => void this.flush(), this.intervalMs);
    this.timer.unref();
  }

  /**
   * Counts one attempt of a license (null: the key named none). The caller names the license it has already read:
   * counting never looks anything up.
   */
  record(licenseId: string | null, machineId: string, code: string, now: Date) {
    this.add({ day: utcDay(now), licenseId, machineId, code, attempts: 1 });
  }

  /**
   * Counts a refused attempt from a machine the license does not hold: under its machine id while fewer than
   * REFUSED_MACHINES_NAMED_PER_DAY refused machines of this license were named today, else under machine "".
   */
  recordRefused(licenseId: string, machineId: string, code: string, now: Date) {
    const day = utcDay(now);
    if (this.namedDay !== day) {
      this.namedDay = day;
      this.namedRefused = new Map();
    }
    let named = this.namedRefused.get(licenseId);
    if (!named) {
      named = new Set();
      this.namedRefused.set(licenseId, named);
    }
    if (!named.has(machineId)) {
      if (named.size >= REFUSED_MACHINES_NAMED_PER_DAY) machineId = "";
      else named.add(machineId);
    }
    this.add({ day, licenseId, machineId, code, attempts: 1 });
  }

  /** Age of the oldest counter not yet written, in ms. */
  lagMs(now = Date.now()): number {
    return this.oldestPendingAt === null ? 0 : now - this.oldestPendingAt;
  }

  private add(increment: AttemptIncrement) {
    this.oldestPendingAt ??= Date.now();
    const key = (machineId: string) =>
      `${increment.day}\u0000${increment.licenseId ?? ""}\u0000${machineId}\u0000${increment.code}`;
    let id = key(increment.machineId);
    let current = this.attempts.get(id);
    if (!current && this.attempts.size >= this.maxPending) {
      id = key("");
      current = this.attempts.get(id);
      increment = { ...increment, machineId: "" };
    }
    if (current) current.attempts += increment.attempts;
    else this.attempts.set(id, { ...increment });
  }

  seenMachine(licenseId: string, machineId: string, now: Date) {
    const id = `${licenseId}\u0000${machineId}`;
    // Past the cap only known entries move forward: a last-seen time is a convenience, not a count.
    if (this.seen.size >= this.maxPending && !this.seen.has(id)) return;
    this.seen.set(id, { licenseId, machineId, at: now });
  }

  /** How many distinct counters wait to be written (for metrics and tests). */
  get pending(): number {
    return this.attempts.size;
  }

  /** Writes what has been counted so far; concurrent calls are serialised. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      if (this.attempts.size === 0 && this.seen.size === 0) return;
      const started = performance.now();
      const pendingSince = this.oldestPendingAt;
      const attempts = [...this.attempts.values()];
      const seen = [...this.seen.values()];
      this.attempts = new Map();
      this.seen = new Map();
      this.oldestPendingAt = null;
      let ok = true;
      try {
        await addValidationAttempts(this.db, attempts);
      } catch (error) {
        ok = false;
        // Retried by the next flush: the rows not written, never the statements that committed before the failure.
        const unwritten = error instanceof PartlyWritten ? (error.unwritten as AttemptIncrement[]) : attempts;
        for (const row of unwritten) this.add(row);
        this.oldestPendingAt = pendingSince;
        this.onError(whyNotWritten(error));
      }
      try {
        await touchLastSeen(this.db, seen);
        if (seen.length > 0) this.onSeen?.([...new Set(seen.map((row) => row.licenseId))]);
      } catch (error) {
        ok = false;
        // Writing a last-seen time again is harmless (the later time wins), so all of them are kept.
        for (const row of seen)
          if (!this.seen.has(`${row.licenseId}\u0000${row.machineId}`))
            this.seen.set(`${row.licenseId}\u0000${row.machineId}`, row);
        this.onError(whyNotWritten(error));
      }
      this.onFlush?.((performance.now() - started) / 1000, ok);
    });
    return this.flushing;
  }

  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }
}
