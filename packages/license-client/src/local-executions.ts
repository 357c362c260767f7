/**
 * Offline executions counted on this machine (decision 0048): a machine running on a license file, with the licensing
 * server out of reach, may run its plan's number of executions at once, and this is what counts them.
 *
 * Across processes, with one small file per running execution in a folder beside the state file
 * (`<state folder>/executions/<license and machine digest>/<execution id>.json`, mode 0600) naming its process. To
 * take a slot a process first writes its own file, then counts the files whose process is still alive (removing the
 * others: a crashed app's file is ignored); over the limit, it removes its file again and is refused. Whoever counts
 * last sees every file written before, so two processes racing can both be refused (each then retries after a short
 * random pause) but never both run past the limit. A process id reused by an unrelated process keeps a slot taken
 * until that process ends (the safe side). A store that is not a file (MemoryStateStore) counts in this process only.
 *
 * Nothing here is a security boundary: a modified app skips it. What bounds offline use is the license file's
 * lifetime and its one machine (README, "What the server cannot see offline, and what bounds it").
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";

export interface LocalExecutionRecord {
  executionId: string;
  feature: string;
  startedAt: Date;
}

export interface LocalHolder extends LocalExecutionRecord {
  pid: number;
}

export type LocalAcquisition =
  | { ok: true; release: () => Promise<void> /** Running now, this one included. */; running: number }
  | { ok: false; holders: LocalHolder[] };

export interface LocalExecutionCounter {
  /** Where the count lives, for messages ("this process" or a folder). */
  readonly location: string;
  /** Takes one of `limit` slots for this execution, or says who holds them all. */
  acquire(limit: number, record: LocalExecutionRecord): Promise<LocalAcquisition>;
  /** The executions running offline now. */
  running(): Promise<LocalHolder[]>;
}

/** The folder of one license on one machine: keys and machine ids are not written into file names. */
export function localExecutionsFolder(stateFolder: string, licenseKey: string, machineId: string): string {
  const digest = createHash("sha256")
    .update(`${licenseKey.trim().toUpperCase()}\n${machineId.trim()}`)
    .digest("hex")
    .slice(0, 24);
  return join(stateFolder, "executions", digest);
}

const ATTEMPTS = 4;
/** Executions younger than this may be racing for the same slot. */
const RACE_MS = 1_000;

/** Counts across the processes of this machine with one file per running execution (see the top of this file). */
export class FileExecutionCounter implements LocalExecutionCounter {
  readonly folder: string;
  readonly #isAlive: (pid: number) => boolean;

  constructor(folder: string, options: { isAlive?: (pid: number) => boolean } = {}) {
    this.folder = folder;
    this.#isAlive = options.isAlive ?? processIsAlive;
  }

  get location(): string {
    return this.folder;
  }

  async acquire(limit: number, record: LocalExecutionRecord): Promise<LocalAcquisition> {
    await mkdir(this.folder, { recursive: true, mode: 0o700 });
    const name = `${record.executionId}.json`;
    const path = join(this.folder, name);
    const release = async () => {
      await rm(path, { force: true });
    };
    let holders: LocalHolder[] = [];
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      await this.#write(path, record);
      holders = await this.running();
      if (holders.length <= limit) return { ok: true, release, running: holders.length };
      await release();
      holders = holders.filter((holder) => holder.executionId !== record.executionId);
      // Executions started just now may be racers about to withdraw too: look again after a short random pause,
      // unless the slots are held by ones that have run for a while.
      const now = Date.now();
      const settled = holders.filter((holder) => now - holder.startedAt.getTime() > RACE_MS);
      if (settled.length >= limit || attempt === ATTEMPTS) break;
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.floor(Math.random() * 40)));
    }
    return { ok: false, holders };
  }

  async running(): Promise<LocalHolder[]> {
    let names: string[];
    try {
      names = await readdir(this.folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const holders: LocalHolder[] = [];
    for (const name of names) {
      if (!name.endsWith(".json") || name.startsWith(".")) continue;
      const path = join(this.folder, name);
      const holder = await readHolder(path);
      if (holder === "gone") continue;
      if (holder === null || !this.#isAlive(holder.pid)) {
        // Its process is gone (or the file is not ours to read): it holds nothing.
        await rm(path, { force: true }).catch(() => {});
        continue;
      }
      holders.push(holder);
    }
    return holders.sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
  }

  /** The file appears whole or not at all: written to a temp name, then renamed (no one else uses either name). */
  async #write(path: string, record: LocalExecutionRecord): Promise<void> {
    const tmp = join(this.folder, `.${record.executionId}.${randomBytes(4).toString("hex")}.tmp`);
    const handle = await open(tmp, "wx", 0o600);
    try {
      await handle.writeFile(
        JSON.stringify({
          pid: process.pid,
          host: os.hostname(),
          execution_id: record.executionId,
          feature: record.feature,
          started_at: record.startedAt.toISOString(),
        }),
        "utf8",
      );
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  }
}

/** Counts the executions of this process only (for stores that are not files). */
export class MemoryExecutionCounter implements LocalExecutionCounter {
  readonly location = "this process";
  readonly #running = new Map<string, LocalHolder>();

  async acquire(limit: number, record: LocalExecutionRecord): Promise<LocalAcquisition> {
    if (this.#running.size >= limit) return { ok: false, holders: await this.running() };
    this.#running.set(record.executionId, { ...record, pid: process.pid });
    return {
      ok: true,
      running: this.#running.size,
      release: async () => {
        this.#running.delete(record.executionId);
      },
    };
  }

  async running(): Promise<LocalHolder[]> {
    return [...this.#running.values()].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
  }
}

async function readHolder(path: string): Promise<LocalHolder | null | "gone"> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? "gone" : null;
  }
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    const startedAt = new Date(String(json.started_at));
    if (
      typeof json.pid !== "number" ||
      typeof json.execution_id !== "string" ||
      typeof json.feature !== "string" ||
      Number.isNaN(startedAt.getTime())
    ) {
      return null;
    }
    return { pid: json.pid, executionId: json.execution_id, feature: json.feature, startedAt };
  } catch {
    return null;
  }
}

/** Whether a process with this id runs (one of another user's counts: EPERM). */
export function processIsAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const inProcess = new Map<string, MemoryExecutionCounter>();

/** The in-process count of one license on one machine, shared by every manager of this process. */
export function inProcessCounter(licenseKey: string, machineId: string): MemoryExecutionCounter {
  const key = `${licenseKey.trim().toUpperCase()}\n${machineId.trim()}`;
  let counter = inProcess.get(key);
  if (!counter) {
    counter = new MemoryExecutionCounter();
    inProcess.set(key, counter);
  }
  return counter;
}
