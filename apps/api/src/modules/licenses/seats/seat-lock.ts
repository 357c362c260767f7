/**
 * The one lock of a license's seats and executions (decisions 0036, 0051). Every change to who holds a machine slot or
 * an execution slot of a license — bind, revive, deactivate, remove, revoke, restore, cull, erase, a license file, a
 * status or tier change, a rotation, an execution's start, revival or stop — decides inside one transaction that
 * first takes this lock, reads the time from the database, makes its change, and announces it once it has committed.
 * Nothing outside this folder takes the lock or writes slot state: it is handed a LockedLicense and calls the
 * transitions in machine-slots.ts and execution-leases.ts, so a path that frees a slot cannot forget the executions.
 *
 * The lock, in the order every locker uses (so that no two of them each hold a row the other waits for):
 *   1. the license row, FOR NO KEY UPDATE: it excludes the other changes of this license, but not the foreign-key
 *      checks of rows that merely point at it (machine events, audit rows), which take FOR KEY SHARE;
 *   2. its machine rows, in id order: the counter flush locks machine rows in the same order (touchLastSeen);
 *   3. its open execution leases, in id order: a heartbeat extends a live lease without the license lock (one
 *      conditional write, keepAlive), so a decision that counts leases first waits for a heartbeat in flight and sees
 *      what it wrote; the clock is read only after that.
 * The culling job takes the same lock, SKIP LOCKED (culling.ts here): it never waits, and culls a license being
 * changed at its next run.
 */
import { asc, eq, sql } from "drizzle-orm";
import type { Database, Transaction } from "../../../db/client";
import { rawRowsOf } from "../../../db/raw-rows";
import { licenses } from "../../../db/schema";

export type LicenseRow = typeof licenses.$inferSelect;

/** A license under its seat lock, inside the deciding transaction. Only lockLicense makes one. */
export interface LockedLicense {
  readonly tx: Transaction;
  /** The license row as locked (its current key, tier, limits, status). */
  readonly license: LicenseRow;
  /** The database's clock once the lock is held: instances whose clocks disagree decide from one clock. */
  readonly now: Date;
  /** Tells every instance's cache and live dashboards about this license once the transaction commits. */
  announce(licenseKey?: string): void;
  /** The keys announced so far (the change's after-commit notices). */
  readonly announced: ReadonlySet<string>;
  /**
   * Tells every instance's live dashboards and watching apps that only the license's executions changed: caches keep
   * its state (decision 0057). A license also announced() gets that notice alone, which covers this one.
   */
  announceExecutions(): void;
  /** The keys whose executions alone changed so far. */
  readonly executionsAnnounced: ReadonlySet<string>;
}

const LOCKED = Symbol("locked by seat-lock.ts");

class Locked implements LockedLicense {
  readonly [LOCKED] = true;
  readonly #keys = new Set<string>();
  readonly #executionKeys = new Set<string>();

  constructor(
    readonly tx: Transaction,
    readonly license: LicenseRow,
    readonly now: Date,
  ) {}

  announce(licenseKey = this.license.licenseKey) {
    this.#keys.add(licenseKey);
  }

  get announced(): ReadonlySet<string> {
    return this.#keys;
  }

  announceExecutions() {
    this.#executionKeys.add(this.license.licenseKey);
  }

  get executionsAnnounced(): ReadonlySet<string> {
    return this.#executionKeys;
  }
}

/** The database's clock now. */
export async function databaseNow(db: Database | Transaction): Promise<Date> {
  const result = (await db.execute(sql`select clock_timestamp() as now`)) as unknown as {
    rows: { now: string | Date }[];
  };
  return new Date(result.rows[0]!.now);
}

const licenseFromRaw = rawRowsOf(licenses);

/**
 * Takes the seat lock of a license inside `tx`; null when the license is gone. One round trip: migration 0022's
 * lock_license_seats takes the license row, its machine rows and its open leases in that order, then reads the clock.
 */
export async function lockLicense(tx: Transaction, licenseId: string): Promise<LockedLicense | null> {
  const { rows } = (await tx.execute(
    sql`select (seats.license).*, seats.now as locked_at from lock_license_seats(${licenseId}::uuid) as seats`,
  )) as unknown as { rows: Array<Record<string, unknown>> };
  const [row] = rows;
  if (!row) return null;
  return new Locked(tx, licenseFromRaw(row), new Date(row.locked_at as string | Date));
}

/**
 * Takes the lock, SKIP LOCKED, on every license matching `licenseWhere` that has a machine matching `machineWhere`
 * (SQL aliases l and m), at most `limit` of them: the licenses, their machines, their open leases, in id order. Returns
 * the locked licenses (the culling job's batches).
 */
export async function lockLicensesSkippingBusy(
  tx: Transaction,
  where: { licenseWhere: ReturnType<typeof sql>; machineWhere: ReturnType<typeof sql> },
  limit: number,
): Promise<LockedLicense[]> {
  const locked = await tx.execute(sql`
    select l.* from licenses l
    where ${where.licenseWhere} and exists (select 1 from machines m where m.license_id = l.id and ${where.machineWhere})
    order by l.id limit ${limit} for no key update skip locked`);
  const ids = (locked as unknown as { rows: { id: string }[] }).rows.map((row) => row.id);
  if (ids.length === 0) return [];
  const list = sql.join(
    ids.map((id) => sql`${id}::uuid`),
    sql`, `,
  );
  await tx.execute(sql`select m.id from machines m where m.license_id in (${list}) order by m.id for update`);
  await tx.execute(sql`
    select e.id from execution_leases e where e.license_id in (${list}) and e.ended_at is null order by e.id for update`);
  const now = await databaseNow(tx);
  const rows = await tx.select().from(licenses).where(sql`${licenses.id} in (${list})`).orderBy(asc(licenses.id));
  return rows.map((row) => new Locked(tx, row, now));
}

/**
 * Runs `decide` in one transaction under the license's seat lock, then sends the notices it announced. Null when the
 * license is gone. A refusal that must still be announced (a cache that read a stale state) calls announce() too.
 */
export class Seats {
  constructor(
    private readonly db: Database,
    /** Tells every instance (caches, live dashboards, watching apps) that a license changed. */
    private readonly changed: (licenseKey: string) => Promise<void>,
    /** Only the license's executions changed (caches keep its state); by default announced as a change. */
    private readonly executionsChanged: (licenseKey: string) => Promise<void> = changed,
  ) {}

  async change<T>(licenseId: string, decide: (locked: LockedLicense) => Promise<T>): Promise<T | null> {
    const outcome = await this.db.transaction(async (tx) => {
      const locked = await lockLicense(tx, licenseId);
      if (!locked) return null;
      return {
        value: await decide(locked),
        keys: [...locked.announced],
        executionKeys: [...locked.executionsAnnounced].filter((key) => !locked.announced.has(key)),
      };
    });
    if (!outcome) return null;
    await Promise.all([this.announce(outcome.keys), this.announceExecutions(outcome.executionKeys)]);
    return outcome.value;
  }

  /** change() for the license a key names now (a rotated key names none). */
  async changeByKey<T>(licenseKey: string, decide: (locked: LockedLicense) => Promise<T>): Promise<T | null> {
    const [found] = await this.db.select({ id: licenses.id }).from(licenses).where(eq(licenses.licenseKey, licenseKey));
    return found ? this.change(found.id, decide) : null;
  }

  /** Sends the notices of committed changes to executions alone (caches keep the licenses' state). */
  async announceExecutions(keys: Iterable<string>): Promise<void> {
    await Promise.all([...new Set(keys)].map((key) => this.executionsChanged(key)));
  }

  /** Sends a committed change's notices (also for changes made in a caller's transaction, such as an erasure). */
  async announce(keys: Iterable<string>): Promise<void> {
    await Promise.all([...new Set(keys)].map((key) => this.changed(key)));
  }
}
