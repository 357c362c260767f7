/**
 * Updates (issue 36, decisions 0059–0060): what the app does with an update the server offered. `downloadUpdate`
 * streams the artifact to a temporary file beside the destination (`.<dest name>.<sha256 prefix>.part`), resumes an
 * interrupted download with an HTTP Range (within one call, and across calls: the part file stays), checks the
 * size, SHA-256, SHA-512, the Sparkle Ed25519 signature and the minisign signature against the release public keys
 * embedded in the app, and only then renames the file into place. Nothing unverified ever sits at the destination.
 */
import { createReadStream } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import {
  defaultKeyId,
  parseReleasePublicKey,
  type ReleasePublicKey,
  verifyArtifact,
} from "@flotilla/contracts/release-signing";
import { SEMVER_PATTERN, type Update } from "@flotilla/contracts/releases";
import { LicenseClientError, LicenseInputError, LicenseNetworkError } from "./errors";

export type { Update };

export type UpdateFailureReason =
  /** The update is older than (or the same as) the running version, and no downgrade was asked for. */
  | "downgrade"
  /** The publisher withdrew the release: its links no longer work and it is no longer offered. */
  | "yanked"
  /** The link expired or was refused: check for updates again for a fresh one. */
  | "link_expired"
  /** The bytes are not the ones the publisher signed (size, checksum or a signature). */
  | "tampered"
  /** The app embeds no release public key: nothing could be verified, so nothing is installed. */
  | "no_keys";

/** An update was refused; `reason` says why. Nothing is left at the destination. */
export class UpdateError extends LicenseClientError {
  override name = "UpdateError";
  constructor(
    message: string,
    readonly reason: UpdateFailureReason,
    /** For "tampered": what failed first (size, checksum, signature, minisign). */
    readonly detail?: string,
  ) {
    super(message);
  }
}

export interface DownloadProgress {
  received: number;
  total: number;
}

export interface DownloadUpdateOptions {
  /**
   * The release public keys the app embeds (as `flotilla-license release keygen` prints them: Sparkle's
   * SUPublicEDKey, a minisign public key line or file, or Tauri's `pubkey`). Both signatures must verify with one.
   */
  releasePublicKeys: readonly string[];
  /** The running version; an update that is not newer is refused unless `allowDowngrade`. */
  currentVersion?: string;
  allowDowngrade?: boolean;
  fetch?: typeof globalThis.fetch;
  signal?: AbortSignal;
  /** A connection silent this long is cut and resumed. Default 30 000 ms. */
  idleTimeoutMs?: number;
  /** Connections tried in all (each resumes where the last stopped). Default 5. */
  maxAttempts?: number;
  /** Called as bytes arrive (and once with what a resumed part file already held). */
  onProgress?: (progress: DownloadProgress) => void;
  /** Waits between attempts (tests). Default 500 ms × attempt. */
  sleep?: (ms: number) => Promise<void>;
}

export interface DownloadedUpdate {
  path: string;
  version: string;
  size: number;
  sha256: string;
  /** Bytes that were already on disk from an interrupted download. */
  resumedFrom: number;
}

/** Semantic Versioning 2.0.0 precedence: negative when a < b, 0 when equal (build metadata ignored). */
export function compareVersions(a: string, b: string): number {
  const pa = SEMVER_PATTERN.exec(a.trim());
  const pb = SEMVER_PATTERN.exec(b.trim());
  if (!pa || !pb) throw new LicenseInputError(`Not a semantic version: "${pa ? b : a}"`, "version");
  for (let i = 1; i <= 3; i++) {
    const diff = Number(pa[i]) - Number(pb[i]);
    if (diff !== 0) return Math.sign(diff);
  }
  const preA = pa[4];
  const preB = pb[4];
  if (preA === undefined || preB === undefined) return preA === preB ? 0 : preA === undefined ? 1 : -1;
  const idsA = preA.split(".");
  const idsB = preB.split(".");
  for (let i = 0; i < Math.max(idsA.length, idsB.length); i++) {
    const x = idsA[i];
    const y = idsB[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const nx = /^\d+$/.test(x);
    const ny = /^\d+$/.test(y);
    if (nx && ny) {
      const diff = Number(x) - Number(y);
      if (diff !== 0) return Math.sign(diff);
    } else if (nx !== ny) return nx ? -1 : 1;
    else if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * The keys an app embeds, parsed once (a key that cannot be read is a programming error: LicenseInputError). A bare
 * Sparkle key (32 bytes, no minisign key id) gets the id `release keygen` gives every key it makes (decision 0060:
 * the first 8 bytes of the key's SHA-256), so one string checks both signatures.
 */
export function releaseKeys(keys: readonly string[]): ReleasePublicKey[] {
  return keys.map((key, index) => {
    try {
      const parsed = parseReleasePublicKey(key);
      if (parsed.keyIdBytes) return parsed;
      const line = Buffer.concat([Buffer.from("Ed", "latin1"), defaultKeyId(parsed.raw), parsed.raw]);
      return parseReleasePublicKey(line.toString("base64"));
    } catch (error) {
      throw new LicenseInputError(
        `releasePublicKeys[${index}] is not a release public key (${(error as Error).message})`,
        "releasePublicKeys",
      );
    }
  });
}

/** Where an interrupted download of this artifact waits to be resumed. */
export function partPath(update: Pick<Update, "artifact">, destPath: string): string {
  return join(dirname(destPath), `.${basename(destPath)}.${update.artifact.sha256.slice(0, 16)}.part`);
}

const TAMPERED: Record<string, string> = {
  size: "its size is not the one the publisher signed",
  checksum: "its SHA-256 or SHA-512 is not the one the publisher signed",
  signature: "its Ed25519 (Sparkle) signature does not verify with the app's release key",
  minisign: "its minisign (Tauri) signature does not verify with the app's release key",
};

/** Downloads, verifies and renames into place; see the module's comment. */
export async function downloadUpdate(
  update: Update,
  destPath: string,
  options: DownloadUpdateOptions,
): Promise<DownloadedUpdate> {
  const keys = releaseKeys(options.releasePublicKeys);
  if (keys.length === 0) {
    throw new UpdateError("The app embeds no release public key, so no update can be verified.", "no_keys");
  }
  if (options.currentVersion !== undefined && !options.allowDowngrade) {
    if (compareVersions(update.version, options.currentVersion) <= 0) {
      throw new UpdateError(
        `Refusing to install ${update.version} over ${options.currentVersion}: it is not newer (allow a downgrade to install it anyway).`,
        "downgrade",
      );
    }
  }
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const idle = options.idleTimeoutMs ?? 30_000;
  const attempts = Math.max(1, options.maxAttempts ?? 5);
  const wait = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const total = update.artifact.size;
  const part = partPath(update, destPath);
  await mkdir(dirname(destPath), { recursive: true });

  let have = await stat(part).then(
    (s) => s.size,
    () => 0,
  );
  if (have > total) {
    await rm(part, { force: true });
    have = 0;
  }
  const resumedFrom = have;
  options.onProgress?.({ received: have, total });

  let lastError: unknown = null;
  for (let attempt = 1; have < total && attempt <= attempts; attempt++) {
    options.signal?.throwIfAborted();
    if (attempt > 1) await wait(500 * (attempt - 1));
    const controller = new AbortController();
    let timer = setTimeout(() => controller.abort(), idle);
    const onAbort = () => controller.abort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const handle = await open(part, "a");
    try {
      const response = await fetchImpl(update.download.url, {
        headers: have > 0 ? { range: `bytes=${have}-` } : {},
        signal: controller.signal,
        redirect: "follow",
      });
      if (response.status === 410 || response.status === 404 || response.status === 403) {
        await response.body?.cancel();
        throw new UpdateError(
          `The download link for ${update.version} no longer works (HTTP ${response.status}): the release was withdrawn or the link expired.`,
          "link_expired",
        );
      }
      if (response.status === 416) {
        // The part file holds more than the server has: start again.
        await response.body?.cancel();
        await handle.truncate(0);
        have = 0;
        continue;
      }
      if (response.status === 200 && have > 0) {
        // The server ignored the Range: the whole file comes again.
        await handle.truncate(0);
        have = 0;
      } else if (response.status === 206) {
        const start = /^bytes (\d+)-/.exec(response.headers.get("content-range") ?? "")?.[1];
        if (Number(start) !== have) {
          await response.body?.cancel();
          await handle.truncate(0);
          have = 0;
          continue;
        }
      } else if (response.status !== 200) {
        await response.body?.cancel();
        throw new LicenseNetworkError(`The download answered HTTP ${response.status}.`, false);
      }
      if (!response.body) throw new LicenseNetworkError("The download answered with no body.", false);
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        clearTimeout(timer);
        timer = setTimeout(() => controller.abort(), idle);
        if (have + chunk.length > total) {
          // More than was signed: keep what was declared (the verification decides), drop the rest.
          await handle.write(chunk.subarray(0, total - have));
          have = total;
          break;
        }
        await handle.write(chunk);
        have += chunk.length;
        options.onProgress?.({ received: have, total });
      }
      await handle.sync();
    } catch (error) {
      if (error instanceof UpdateError) throw error;
      if (options.signal?.aborted) throw options.signal.reason;
      lastError = error;
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      await handle.close();
    }
  }
  if (have < total) {
    throw new LicenseNetworkError(
      `The download of ${update.version} stopped at ${have} of ${total} bytes after ${attempts} attempts; run it again to resume.`,
      false,
      { cause: lastError },
    );
  }

  const verdict = await verifyArtifact(keys, update.artifact, createReadStream(part));
  if (!verdict.ok) {
    await rm(part, { force: true });
    throw new UpdateError(
      `Refused the download of ${update.version}: ${TAMPERED[verdict.reason] ?? verdict.reason}. Nothing was installed.`,
      "tampered",
      verdict.reason,
    );
  }
  await rename(part, destPath);
  return { path: destPath, version: update.version, size: total, sha256: update.artifact.sha256, resumedFrom };
}
