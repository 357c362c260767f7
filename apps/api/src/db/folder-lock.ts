/**
 * One process per embedded database folder (decision 0047). PGlite is PostgreSQL compiled to WebAssembly, running
 * inside the process that opened it: it has no postmaster to arbitrate between processes, so a second process that
 * opens the same folder writes over the first one's pages and WAL (the first then dies with a WebAssembly abort, and
 * the folder may not open again). This lock makes the second opener refuse instead.
 *
 * The lock is the file `<folder>/.lock`, holding JSON: the holder's pid, host, start time and what it is.
 * - Taking it is atomic: the record is written to a file of our own, then hard-linked to `.lock`; link(2) fails with
 *   EEXIST when `.lock` exists (O_EXCL semantics, and a reader never sees a half-written record).
 * - Releasing it (close, or the process exiting normally, process.exit included) removes the file if it is still ours.
 * - A lock left behind by a process that died (SIGKILL, a crash, power loss) is stale, and taken over, when:
 *   its host is this host and its pid is not alive (`process.kill(pid, 0)` throws ESRCH; EPERM means alive, another
 *   user's); or its pid is this process's own but this process does not hold it (a container's server restarted as the
 *   same pid); or the file holds no readable record (not written by this code: it is replaced).
 * - A lock from another host (a shared folder, or a container since recreated, which has a new hostname) cannot be
 *   checked from here: it is treated as held, and the message says so and which file to delete if that holder is gone.
 * - A pid reused by an unrelated live process keeps the lock held: refused, never taken over. The message names the
 *   pid and what held it, so the operator can see it is not ours and delete the file.
 * In-memory databases take no lock.
 */
import { linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { basename, join } from "node:path";

export const LOCK_FILE = ".lock";

export interface LockHolder {
  pid: number;
  host: string;
  started_at: string;
  what: string;
}

export class FolderInUseError extends Error {
  readonly code = "FOLDER_IN_USE";
  constructor(
    readonly dir: string,
    readonly holder: LockHolder,
  ) {
    const here = holder.host === hostname();
    const since = holder.started_at ? `, since ${holder.started_at}` : "";
    super(
      here
        ? `The embedded database in ${dir} is in use by process ${holder.pid} (${holder.what}${since}). ` +
            "Stop it first, or make the change through the running server (the console at /admin)."
        : `The embedded database in ${dir} is in use by process ${holder.pid} on host ${holder.host} (${holder.what}${since}). ` +
            `Stop it first. If that host or container no longer runs it, delete ${join(dir, LOCK_FILE)}.`,
    );
    this.name = "FolderInUseError";
  }
}

export interface FolderLock {
  readonly path: string;
  release(): void;
}

/** Folders this process holds: opening one of them again in this process is refused too. */
const held = new Map<string, FolderLock>();

function describeSelf(): string {
  return process.argv[1] ? `node ${basename(process.argv[1])}` : "node";
}

/** The lock file's text and the record in it (null when it holds none); throws ENOENT when there is no lock. */
function readLock(path: string): { text: string; holder: LockHolder | null } {
  const text = readFileSync(path, "utf8");
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid !== "number" || !Number.isInteger(parsed.pid) || parsed.pid <= 0)
      return { text, holder: null };
    return {
      text,
      holder: {
        pid: parsed.pid,
        host: typeof parsed.host === "string" ? parsed.host : "",
        started_at: typeof parsed.started_at === "string" ? parsed.started_at : "",
        what: typeof parsed.what === "string" ? parsed.what : "unknown",
      },
    };
  } catch {
    return { text, holder: null };
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/** True when the holder is gone and its lock may be taken over (see the rules above). */
function isStale(holder: LockHolder | null, lockPath: string): boolean {
  if (!holder) return true;
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return !held.has(lockPath);
  return !alive(holder.pid);
}

/**
 * Takes the lock on `dir` (which must exist) for this process, described as `what` in the record and in the message
 * another opener gets. Throws FolderInUseError when a live process holds it.
 */
export function lockFolder(dir: string, what = describeSelf()): FolderLock {
  const path = join(dir, LOCK_FILE);
  const record: LockHolder = {
    pid: process.pid,
    host: hostname(),
    started_at: new Date(Date.now() - process.uptime() * 1000).toISOString(),
    what,
  };
  const mine = join(dir, `${LOCK_FILE}.${process.pid}.${Date.now()}`);
  const text = `${JSON.stringify(record)}\n`;
  writeFileSync(mine, text, { mode: 0o644 });
  try {
    // Two tries: the second after removing a stale lock. If another process took it over in between, it wins.
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(mine, path);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      let found: { text: string; holder: LockHolder | null };
      try {
        found = readLock(path);
      } catch {
        continue; // released between our link and our read: try again
      }
      if (attempt >= 2 || !isStale(found.holder, path)) {
        throw new FolderInUseError(dir, found.holder ?? { pid: 0, host: "", started_at: "", what: "unknown" });
      }
      // Stale: removed only if it still holds the same record, not one a racing opener has just linked. (Two openers
      // finding the same stale lock at the same instant leave a window of microseconds between this read and the
      // unlink; nothing else can make two holders.)
      try {
        if (readLock(path).text === found.text) unlinkSync(path);
      } catch {}
    }
  } finally {
    try {
      unlinkSync(mine);
    } catch {}
  }

  let released = false;
  const onExit = () => lock.release();
  const lock: FolderLock = {
    path,
    release() {
      if (released) return;
      released = true;
      held.delete(path);
      process.removeListener("exit", onExit);
      try {
        if (readLock(path).text === text) unlinkSync(path);
      } catch {}
    },
  };
  held.set(path, lock);
  // process.exit() and a normal exit run this; a signal or a crash leaves the file, which the next opener finds stale.
  process.on("exit", onExit);
  return lock;
}
