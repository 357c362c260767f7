/**
 * The operator's side of distribution (issue 36), for `flotilla-license release …`: a small client for the admin
 * release endpoints with an operator token (`Authorization: Bearer flt_op_…`), local signing of artifacts with the
 * release private key (Sparkle edSignature + minisign for Tauri, the shared helpers of decision 0060), and resumable
 * uploads: the folder's tus-like PATCH at `Upload-Offset`, or S3 multipart through presigned part URLs. A publish run
 * again after an interruption reuses the draft and the artifacts already complete, and resumes a pending upload.
 */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import { basename } from "node:path";
import { ApiErrorSchema } from "@flotilla/contracts/api-errors";
import { type ReleaseSigningKey, signArtifact } from "@flotilla/contracts/release-signing";
import {
  type Artifact,
  ArtifactAnswerSchema,
  ArtifactUploadAnswerSchema,
  OPERATOR_TOKEN_PREFIX,
  RELEASE_PATHS,
  type Release,
  ReleaseAnswerSchema,
  type ReleaseArch,
  type ReleaseChannel,
  ReleaseListAnswerSchema,
  type ReleasePlatform,
  releasePath,
  UPLOAD_CONTENT_TYPE,
  UPLOAD_OFFSET_HEADER,
  UploadPartsAnswerSchema,
  UploadStatusAnswerSchema,
  type UploadTarget,
} from "@flotilla/contracts/releases";
import { LicenseApiError, LicenseInputError, LicenseNetworkError, LicenseProtocolError } from "./errors";

type FetchBody = NonNullable<Parameters<typeof globalThis.fetch>[1]>["body"];

/** Bytes per folder PATCH: an interruption loses at most this much. */
export const UPLOAD_CHUNK_BYTES = 8 * 1024 * 1024;
/** Consecutive failed requests an upload sits through (each resumes where the server stands). */
const UPLOAD_ATTEMPTS = 5;

export interface OperatorClientOptions {
  baseUrl: string;
  token: string;
  fetch?: typeof globalThis.fetch;
  /** Per request. Default 120 000 ms (a chunk of an upload is one request). */
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface UploadProgress {
  filename: string;
  sent: number;
  total: number;
}

interface Schema<T> {
  safeParse(input: unknown): { success: true; data: T } | { success: false };
}

export class OperatorClient {
  readonly baseUrl: string;
  readonly #token: string;
  readonly #fetch: typeof globalThis.fetch;
  readonly #timeoutMs: number;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: OperatorClientOptions) {
    const token = options.token.trim();
    if (!token.startsWith(OPERATOR_TOKEN_PREFIX)) {
      throw new LicenseInputError(
        `The operator token must start with ${OPERATOR_TOKEN_PREFIX} (create one in the console's Releases tab).`,
        "token",
      );
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#token = token;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#timeoutMs = options.timeoutMs ?? 120_000;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  async #send(
    method: string,
    path: string,
    init: { json?: unknown; body?: Uint8Array; headers?: Record<string, string>; absolute?: boolean } = {},
  ): Promise<Response> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.#timeoutMs);
    const url = init.absolute ? path : `${this.baseUrl}${path}`;
    try {
      return await this.#fetch(url, {
        method,
        headers: {
          ...(init.absolute ? {} : { authorization: `Bearer ${this.#token}`, accept: "application/json" }),
          ...(init.json !== undefined ? { "content-type": "application/json" } : {}),
          ...init.headers,
        },
        body: init.json !== undefined ? JSON.stringify(init.json) : (init.body as unknown as FetchBody),
        signal: controller.signal,
      });
    } catch (cause) {
      throw new LicenseNetworkError(
        `Cannot reach ${init.absolute ? new URL(url).origin : this.baseUrl}: ${(cause as Error).message}`,
        controller.signal.aborted,
        { cause },
      );
    } finally {
      clearTimeout(timer);
    }
  }

  async #json<T>(method: string, path: string, schema: Schema<{ data: T }>, json?: unknown): Promise<T> {
    const response = await this.#send(method, path, json === undefined ? {} : { json });
    const text = await response.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (!response.ok) throw apiError(response, body);
    const parsed = schema.safeParse(body);
    if (!parsed.success) throw new LicenseProtocolError(`Unexpected answer from ${method} ${path}`);
    return parsed.data.data;
  }

  listReleases(): Promise<Array<Release & { downloads: { total: number } }>> {
    return this.#json("GET", `${RELEASE_PATHS.adminReleases}?limit=200`, ReleaseListAnswerSchema);
  }

  /** A release by id, or by version (the newest list holds 200). */
  async findRelease(idOrVersion: string): Promise<Release> {
    if (/^[0-9a-f-]{36}$/i.test(idOrVersion)) {
      return this.#json(
        "GET",
        releasePath(RELEASE_PATHS.adminRelease, { releaseId: idOrVersion }),
        ReleaseAnswerSchema,
      );
    }
    const found = (await this.listReleases()).find((release) => release.version === idOrVersion.replace(/^v/, ""));
    if (!found) throw new LicenseApiError(`No release has version ${idOrVersion}.`, 404, "NOT_FOUND");
    return found;
  }

  /** Creates the draft, or takes the existing draft of this version (a publish run again). */
  async draft(input: { version: string; channel: ReleaseChannel; notes: string }): Promise<Release> {
    try {
      return await this.#json("POST", RELEASE_PATHS.adminReleases, ReleaseAnswerSchema, input);
    } catch (error) {
      if (!(error instanceof LicenseApiError) || error.code !== "VERSION_TAKEN") throw error;
      const existing = await this.findRelease(input.version);
      if (existing.state !== "draft") {
        throw new LicenseApiError(`Version ${input.version} is already ${existing.state}.`, 409, "VERSION_TAKEN");
      }
      return existing;
    }
  }

  /**
   * Signs `path` locally, declares it, uploads it resumably and completes it (the server verifies it). An artifact
   * already complete with the same SHA-256 is kept; a pending or different one on a draft is replaced.
   */
  async addArtifact(
    release: Release,
    target: { platform: ReleasePlatform; arch: ReleaseArch; path: string },
    key: ReleaseSigningKey,
    onProgress?: (progress: UploadProgress) => void,
  ): Promise<Artifact> {
    const filename = basename(target.path);
    const { size } = await stat(target.path);
    const open = () => createReadStream(target.path);
    const [sha256, sha512] = await Promise.all([digest(open(), "sha256"), digest(open(), "sha512")]);
    const existing = release.artifacts.find((a) => a.platform === target.platform && a.arch === target.arch);
    if (existing?.upload_state === "complete" && existing.sha256 === sha256) {
      onProgress?.({ filename, sent: size, total: size });
      return existing;
    }
    if (existing) {
      await this.#json(
        "DELETE",
        releasePath(RELEASE_PATHS.adminArtifact, { releaseId: release.id, artifactId: existing.id }),
        ReleaseAnswerSchema,
      );
    }
    const signatures = await signArtifact(key, open, filename);
    const added = await this.#json(
      "POST",
      releasePath(RELEASE_PATHS.adminArtifacts, { releaseId: release.id }),
      ArtifactUploadAnswerSchema,
      { platform: target.platform, arch: target.arch, filename, size, sha256, sha512, ...signatures },
    );
    const parts = await this.upload(added.upload, target.path, (sent) => onProgress?.({ filename, sent, total: size }));
    return this.#json(
      "POST",
      releasePath(RELEASE_PATHS.adminUploadComplete, { uploadId: added.upload.upload_id }),
      ArtifactAnswerSchema,
      parts ? { parts } : {},
    );
  }

  /** Sends the bytes where the target says, resuming after failures; S3 answers the parts' ETags. */
  async upload(
    target: UploadTarget,
    path: string,
    onSent: (sent: number) => void,
  ): Promise<{ part_number: number; etag: string }[] | null> {
    const file = await open(path, "r");
    try {
      if (target.kind === "folder") {
        await this.#uploadFolder(target.upload_id, target.size, file, onSent);
        return null;
      }
      return await this.#uploadS3(target, file, onSent);
    } finally {
      await file.close();
    }
  }

  async #status(uploadId: string) {
    return this.#json(
      "GET",
      releasePath(RELEASE_PATHS.adminUpload, { uploadId }),
      UploadStatusAnswerSchema as Schema<{ data: { offset: number; parts: { part_number: number; etag: string }[] } }>,
    );
  }

  async #uploadFolder(
    uploadId: string,
    size: number,
    file: import("node:fs/promises").FileHandle,
    onSent: (n: number) => void,
  ) {
    let offset = (await this.#status(uploadId)).offset;
    let failures = 0;
    onSent(offset);
    while (offset < size) {
      const length = Math.min(UPLOAD_CHUNK_BYTES, size - offset);
      const chunk = Buffer.alloc(length);
      await file.read(chunk, 0, length, offset);
      try {
        const response = await this.#send("PATCH", releasePath(RELEASE_PATHS.adminUpload, { uploadId }), {
          body: chunk,
          headers: { "content-type": UPLOAD_CONTENT_TYPE, [UPLOAD_OFFSET_HEADER]: String(offset) },
        });
        if (response.status === 204) {
          await response.body?.cancel();
          offset = Number(response.headers.get(UPLOAD_OFFSET_HEADER) ?? offset + length);
          failures = 0;
          onSent(offset);
          continue;
        }
        const body = await response.json().catch(() => undefined);
        const error = apiError(response, body);
        if (error.code !== "OFFSET_MISMATCH" && !error.retryable) throw error;
        failures += 1;
        if (failures >= UPLOAD_ATTEMPTS) throw error;
      } catch (error) {
        if (!(error instanceof LicenseNetworkError)) throw error;
        failures += 1;
        if (failures >= UPLOAD_ATTEMPTS) throw error;
        await this.#sleep(500 * failures);
      }
      // Resume where the server stands (an interrupted PATCH keeps what arrived).
      offset = (await this.#status(uploadId)).offset;
    }
  }

  async #uploadS3(
    target: Extract<UploadTarget, { kind: "s3-multipart" }>,
    file: import("node:fs/promises").FileHandle,
    onSent: (n: number) => void,
  ) {
    const stored = new Map((await this.#status(target.upload_id)).parts.map((p) => [p.part_number, p.etag]));
    const partSize = (n: number) => Math.min(target.part_size, target.size - (n - 1) * target.part_size);
    let sent = [...stored.keys()].reduce((sum, n) => sum + partSize(n), 0);
    onSent(sent);
    const missing = Array.from({ length: target.part_count }, (_, i) => i + 1).filter((n) => !stored.has(n));
    for (let i = 0; i < missing.length; i += 100) {
      const batch = missing.slice(i, i + 100);
      const { parts } = await this.#json(
        "POST",
        releasePath(RELEASE_PATHS.adminUploadParts, { uploadId: target.upload_id }),
        UploadPartsAnswerSchema,
        { part_numbers: batch },
      );
      for (const part of parts) {
        const length = partSize(part.part_number);
        const chunk = Buffer.alloc(length);
        await file.read(chunk, 0, length, (part.part_number - 1) * target.part_size);
        for (let attempt = 1; ; attempt++) {
          try {
            const response = await this.#send("PUT", part.url, { body: chunk, absolute: true });
            const etag = response.headers.get("etag");
            await response.body?.cancel();
            if (!response.ok || !etag)
              throw new LicenseNetworkError(`The storage answered HTTP ${response.status}.`, false);
            stored.set(part.part_number, etag);
            break;
          } catch (error) {
            if (!(error instanceof LicenseNetworkError) || attempt >= UPLOAD_ATTEMPTS) throw error;
            await this.#sleep(500 * attempt);
          }
        }
        sent += length;
        onSent(sent);
      }
    }
    return [...stored.entries()].sort(([a], [b]) => a - b).map(([part_number, etag]) => ({ part_number, etag }));
  }

  #action(id: string, action: "adminPublish" | "adminYank" | "adminPromote", body: unknown = {}) {
    return this.#json("POST", releasePath(RELEASE_PATHS[action], { releaseId: id }), ReleaseAnswerSchema, body);
  }
  publish(id: string) {
    return this.#action(id, "adminPublish");
  }
  yank(id: string, reason?: string) {
    return this.#action(id, "adminYank", reason ? { reason } : {});
  }
  promote(id: string, channel: ReleaseChannel) {
    return this.#action(id, "adminPromote", { channel });
  }
}

async function digest(source: AsyncIterable<Uint8Array>, algorithm: string): Promise<string> {
  const hash = createHash(algorithm);
  for await (const chunk of source) hash.update(chunk);
  return hash.digest("hex");
}

function apiError(response: Response, body: unknown): LicenseApiError {
  const parsed = ApiErrorSchema.safeParse(body);
  return new LicenseApiError(
    parsed.success ? parsed.data.error : `HTTP ${response.status}`,
    response.status,
    parsed.success ? parsed.data.code : undefined,
  );
}
