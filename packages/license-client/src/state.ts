/**
 * What an activated machine remembers: license key, machine id, the last token, the last validation and the
 * latest time any check saw (clock rollback detection). No key: the keys that verify tokens are pinned in the
 * build, never read from this user-writable file. One JSON file (default ~/.config/flotilla/license.json), replaced
 * atomically (temp file in the same folder, fsync, rename) with mode 0600, so a crash never leaves half a file
 * and other users cannot read the key.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, open, readFile, rename, rm } from "node:fs/promises";
import os from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { type LicenseFile, LicenseFileSchema } from "@flotilla/contracts/licensing";
import { LICENSE_CODES, type LicenseCode } from "@flotilla/contracts/tiers";
import type { LicenseFeatures } from "./client";
import { LicenseStateError } from "./errors";

export const STATE_VERSION = 2;

export interface StoredLicense {
  tier: string;
  status: string;
  expires_at: string | null;
  features: LicenseFeatures;
  max_machines: number;
}

export interface LicenseState {
  version: typeof STATE_VERSION;
  /** The licensing server this activation talks to. */
  server_url: string;
  license_key: string;
  machine_id: string;
  machine_name: string | null;
  /** The last token the server issued (null once the server has said the license is not valid). */
  token: string | null;
  license: StoredLicense | null;
  machine: { display_id: string; is_primary: boolean } | null;
  activated_at: string;
  last_validated_at: string | null;
  last_code: LicenseCode | null;
  /** The latest clock reading of any check: a clock earlier than this was set back. */
  last_checked_at: string | null;
  /** A license file (checkout, or an offline activation's answer): lets the app work offline past the token. */
  license_file?: LicenseFile | null;
}

export interface StateStore {
  /** Where the state lives, for messages. */
  readonly location: string;
  read(): Promise<LicenseState | null>;
  write(state: LicenseState): Promise<void>;
  /** Forgets the state; true when there was something to forget. */
  clear(): Promise<boolean>;
}

/** FLOTILLA_LICENSE_STATE, else $XDG_CONFIG_HOME/flotilla/license.json, else ~/.config/flotilla/license.json. */
export function defaultStatePath(env: Record<string, string | undefined> = process.env): string {
  if (env.FLOTILLA_LICENSE_STATE) return resolve(env.FLOTILLA_LICENSE_STATE);
  const configHome = env.XDG_CONFIG_HOME || join(env.HOME || os.homedir(), ".config");
  return join(configHome, "flotilla", "license.json");
}

export class FileStateStore implements StateStore {
  readonly path: string;

  constructor(path: string = defaultStatePath()) {
    this.path = resolve(path);
  }

  get location(): string {
    return this.path;
  }

  async read(): Promise<LicenseState | null> {
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw new LicenseStateError(`Cannot read ${this.path}: ${(error as Error).message}`, this.path, {
        cause: error,
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new LicenseStateError(`${this.path} is not valid JSON; delete it and activate again.`, this.path, {
        cause: error,
      });
    }
    const state = parseState(json);
    if (!state) {
      throw new LicenseStateError(`${this.path} is not a license state file; delete it and activate again.`, this.path);
    }
    return state;
  }

  async write(state: LicenseState): Promise<void> {
    await writeFileAtomic(this.path, `${JSON.stringify(state, null, 2)}\n`);
  }

  async clear(): Promise<boolean> {
    try {
      await rm(this.path);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw new LicenseStateError(`Cannot remove ${this.path}: ${(error as Error).message}`, this.path, {
        cause: error,
      });
    }
  }
}

/** Keeps the state in memory: for tests and for apps that persist it elsewhere. */
export class MemoryStateStore implements StateStore {
  readonly location = "memory";
  #state: LicenseState | null;

  constructor(initial: LicenseState | null = null) {
    this.#state = initial ? structuredClone(initial) : null;
  }

  async read(): Promise<LicenseState | null> {
    return this.#state ? structuredClone(this.#state) : null;
  }

  async write(state: LicenseState): Promise<void> {
    this.#state = structuredClone(state);
  }

  async clear(): Promise<boolean> {
    const had = this.#state !== null;
    this.#state = null;
    return had;
  }
}

/**
 * Writes `data` to `path` so that readers see either the old file or the complete new one: a temp file in
 * the same folder (created 0600, exclusive), flushed to disk, then renamed over the target.
 */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const handle = await open(tmp, "wx", 0o600);
    try {
      await handle.writeFile(data, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await chmod(tmp, 0o600);
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true }).catch(() => {});
    throw new LicenseStateError(`Cannot write ${path}: ${(error as Error).message}`, path, { cause: error });
  }
  await syncDirectory(dir);
}

/** Makes the rename itself durable where the platform allows it (not on Windows). */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort only.
  }
}

/**
 * The state if `json` has its shape, else undefined. A version 1 file (which kept a public key beside the token)
 * is read as version 2: its key is dropped, never used.
 */
export function parseState(json: unknown): LicenseState | undefined {
  if (!isRecord(json)) return undefined;
  let s = json;
  if (s.version === 1) {
    const { public_key: _ignored, ...rest } = s;
    s = { ...rest, version: STATE_VERSION, last_checked_at: rest.last_validated_at ?? rest.activated_at ?? null };
  }
  if (s.version !== STATE_VERSION) return undefined;
  const ok =
    typeof s.server_url === "string" &&
    typeof s.license_key === "string" &&
    typeof s.machine_id === "string" &&
    (s.machine_name === null || typeof s.machine_name === "string") &&
    (s.token === null || typeof s.token === "string") &&
    (s.license === null || isLicense(s.license)) &&
    (s.machine === null || isMachine(s.machine)) &&
    typeof s.activated_at === "string" &&
    (s.last_validated_at === null || typeof s.last_validated_at === "string") &&
    (s.last_code === null || (LICENSE_CODES as readonly unknown[]).includes(s.last_code)) &&
    (s.last_checked_at === null || typeof s.last_checked_at === "string") &&
    (s.license_file === undefined || s.license_file === null || LicenseFileSchema.safeParse(s.license_file).success);
  return ok ? (s as unknown as LicenseState) : undefined;
}

function isLicense(value: unknown): value is StoredLicense {
  return (
    isRecord(value) &&
    typeof value.tier === "string" &&
    typeof value.status === "string" &&
    (value.expires_at === null || typeof value.expires_at === "string") &&
    isRecord(value.features) &&
    typeof value.max_machines === "number"
  );
}

function isMachine(value: unknown): value is LicenseState["machine"] {
  return isRecord(value) && typeof value.display_id === "string" && typeof value.is_primary === "boolean";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
