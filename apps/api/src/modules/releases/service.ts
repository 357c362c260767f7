/**
 * Releases and their artifacts (issue 36, decisions 0059-0061): the operator's side (create, upload, verify,
 * publish, yank, promote, operator tokens, the platform switch) and the customer's (update check, feeds, portal
 * downloads, release notes). Every state change is recorded with recordEvent in its transaction (audit + outbox).
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import { verifyArtifact } from "@flotilla/contracts/release-signing";
import {
  type AddArtifactRequest,
  type Artifact,
  type CreateReleaseRequest,
  DOWNLOAD_LINK_TTL_SECONDS,
  MIN_PART_BYTES,
  OPERATOR_TOKEN_PREFIX,
  type OperatorScope,
  RELEASE_ERRORS,
  RELEASE_PLATFORMS,
  type Release,
  type ReleaseArch,
  type ReleaseChannel,
  type ReleasePlatform,
  type UploadTarget,
} from "@flotilla/contracts/releases";
import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import semver from "semver";
import type { Database } from "../../db/client";
import {
  downloadPlatforms,
  operatorTokens,
  releaseArtifacts,
  releaseDownloadCounts,
  releases,
  releaseUploads,
} from "../../db/schema";
import { sha256Hex } from "../../lib/tokens";
import { HttpProblem } from "../../plugins/errors";
import { type Actor, recordEvent } from "../events/record";
import type { LicenseRow } from "../licenses/queries";
import { termsOf } from "../licenses/seats/license-terms";
import { customerChannels, type EntitledLicense, licenseRefusal, mayHave } from "./entitlement";
import type { ReleaseKeys } from "./keys";
import { DownloadLinks, type LinkClaims } from "./links";
import {
  type ArtifactStorage,
  FolderStorage,
  OffsetMismatch,
  type PendingUpload,
  S3Storage,
  UploadTooLarge,
} from "./storage";
import type { TesterCheck } from "./testers";

type ReleaseRow = typeof releases.$inferSelect;
type ArtifactRow = typeof releaseArtifacts.$inferSelect;
type UploadRow = typeof releaseUploads.$inferSelect;
type TokenRow = typeof operatorTokens.$inferSelect;

const iso = (date: Date | null) => (date ? date.toISOString() : null);
/** S3 allows 10,000 parts; parts are at least 5 MiB (the last may be smaller). */
const DEFAULT_PART_BYTES = 16 * 1024 * 1024;
/** How long the published list is reused by update checks on one instance (a yank shows everywhere within it). */
export const PUBLISHED_CACHE_MS = 5_000;

export function partSizeFor(size: number): number {
  return Math.max(DEFAULT_PART_BYTES, MIN_PART_BYTES, Math.ceil(size / 10_000));
}

export function artifactJson(row: ArtifactRow): Artifact {
  return {
    id: row.id,
    release_id: row.releaseId,
    platform: row.platform as ReleasePlatform,
    arch: row.arch as ReleaseArch,
    filename: row.filename,
    size: row.size,
    sha256: row.sha256,
    sha512: row.sha512,
    signature: row.signature,
    minisign_signature: row.minisignSignature,
    upload_state: row.uploadState as Artifact["upload_state"],
    created_at: row.createdAt.toISOString(),
  };
}

export function releaseJson(row: ReleaseRow, artifacts: ArtifactRow[]): Release {
  return {
    id: row.id,
    version: row.version,
    channel: row.channel as ReleaseChannel,
    state: row.state as Release["state"],
    notes: row.notes,
    requires_feature: (row.requiresFeature as Release["requires_feature"]) ?? null,
    created_at: row.createdAt.toISOString(),
    published_at: iso(row.publishedAt),
    yanked_at: iso(row.yankedAt),
    artifacts: artifacts.map(artifactJson),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const notFound = (message: string = RELEASE_ERRORS.notFound) => new HttpProblem(404, message, "NOT_FOUND");

export interface PublishedEntry {
  release: ReleaseRow;
  artifacts: ArtifactRow[];
}

export interface OfferContext {
  license: LicenseRow;
  platform: ReleasePlatform;
  /** An arch, or null for any (the portal lists them all). */
  arch: ReleaseArch | null;
  channel: ReleaseChannel;
  /** Only newer than this (semver); null for the newest whatever is installed. */
  newerThan: string | null;
}

export class ReleaseService {
  readonly links: DownloadLinks;
  /** Replaced by the beta module's check (testers.ts); tests set their own. */
  isTester: TesterCheck;
  private published: { at: number; entries: Promise<PublishedEntry[]> } | null = null;
  private open: { at: number; platforms: Promise<Set<ReleasePlatform>> } | null = null;

  constructor(
    private readonly db: Database,
    readonly storage: ArtifactStorage,
    readonly keys: ReleaseKeys,
    private readonly options: {
      appSecret: string;
      publicOrigin: string;
      expiredAccess: "refuse" | "maintain";
      isTester: TesterCheck;
    },
  ) {
    this.links = new DownloadLinks(options.appSecret);
    this.isTester = options.isTester;
  }

  // ── Operator tokens ────────────────────────────────────────────────────────────────────────────────────────

  async createToken(name: string, scopes: OperatorScope[], actor: Actor) {
    const secret = `${OPERATOR_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
    const row = await this.db.transaction(async (tx) => {
      const [created] = await tx
        .insert(operatorTokens)
        .values({
          name,
          tokenHash: sha256Hex(secret),
          hint: secret.slice(OPERATOR_TOKEN_PREFIX.length, OPERATOR_TOKEN_PREFIX.length + 6),
          scopes: [...new Set(scopes)],
          createdBy: actor.id ?? null,
        })
        .returning();
      if (!created) throw new Error("operator token insert returned no row");
      await recordEvent(tx, {
        type: "operator_token.created",
        actor,
        target: { type: "operator_token", id: created.id },
        after: { name, scopes: created.scopes },
      });
      return created;
    });
    return { ...tokenJson(row), token: secret };
  }

  async listTokens() {
    const rows = await this.db.select().from(operatorTokens).orderBy(desc(operatorTokens.createdAt));
    return rows.map(tokenJson);
  }

  async revokeToken(id: string, actor: Actor) {
    if (!UUID.test(id)) throw notFound("No operator token with this id.");
    return this.db.transaction(async (tx) => {
      const [row] = await tx
        .update(operatorTokens)
        .set({ revokedAt: sql`coalesce(${operatorTokens.revokedAt}, now())` })
        .where(eq(operatorTokens.id, id))
        .returning();
      if (!row) throw notFound("No operator token with this id.");
      await recordEvent(tx, {
        type: "operator_token.revoked",
        actor,
        target: { type: "operator_token", id },
        before: { revoked: false },
        after: { revoked: true },
      });
      return tokenJson(row);
    });
  }

  /** The live token a bearer secret names, or null (unknown, revoked). Touches last_used_at at most once a minute. */
  async authenticateToken(secret: string): Promise<TokenRow | null> {
    if (!secret.startsWith(OPERATOR_TOKEN_PREFIX) || secret.length > 200) return null;
    const [row] = await this.db
      .select()
      .from(operatorTokens)
      .where(and(eq(operatorTokens.tokenHash, sha256Hex(secret)), isNull(operatorTokens.revokedAt)));
    if (!row) return null;
    if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) {
      await this.db.update(operatorTokens).set({ lastUsedAt: new Date() }).where(eq(operatorTokens.id, row.id));
    }
    return row;
  }

  // ── Releases ───────────────────────────────────────────────────────────────────────────────────────────────

  private async releaseRow(id: string): Promise<ReleaseRow> {
    if (!UUID.test(id)) throw notFound();
    const [row] = await this.db.select().from(releases).where(eq(releases.id, id));
    if (!row) throw notFound();
    return row;
  }

  private async artifactsOf(releaseIds: string[]): Promise<ArtifactRow[]> {
    if (releaseIds.length === 0) return [];
    return this.db
      .select()
      .from(releaseArtifacts)
      .where(inArray(releaseArtifacts.releaseId, releaseIds))
      .orderBy(releaseArtifacts.platform, releaseArtifacts.arch);
  }

  async get(id: string): Promise<Release> {
    const row = await this.releaseRow(id);
    return releaseJson(row, await this.artifactsOf([row.id]));
  }

  async create(input: CreateReleaseRequest & { notes: string }, actor: Actor): Promise<Release> {
    const version = semver.clean(input.version) ?? input.version;
    return this.db.transaction(async (tx) => {
      const [taken] = await tx.select({ id: releases.id }).from(releases).where(eq(releases.version, version));
      if (taken) throw new HttpProblem(409, RELEASE_ERRORS.versionTaken, "VERSION_TAKEN");
      const [row] = await tx
        .insert(releases)
        .values({
          version,
          channel: input.channel,
          notes: input.notes,
          requiresFeature: input.requires_feature ?? null,
          createdBy: actor.id ?? null,
        })
        .onConflictDoNothing()
        .returning();
      if (!row) throw new HttpProblem(409, RELEASE_ERRORS.versionTaken, "VERSION_TAKEN");
      await recordEvent(tx, {
        type: "release.created",
        actor,
        target: { type: "release", id: row.id },
        after: { version, channel: input.channel },
      });
      return releaseJson(row, []);
    });
  }

  async list(filter: { channel?: ReleaseChannel; state?: Release["state"]; limit: number }) {
    const where = and(
      filter.channel ? eq(releases.channel, filter.channel) : undefined,
      filter.state ? eq(releases.state, filter.state) : undefined,
    );
    const rows = await this.db
      .select()
      .from(releases)
      .where(where)
      .orderBy(desc(releases.createdAt))
      .limit(filter.limit);
    const ids = rows.map((row) => row.id);
    const [artifacts, counts] = await Promise.all([
      this.artifactsOf(ids),
      ids.length
        ? this.db.select().from(releaseDownloadCounts).where(inArray(releaseDownloadCounts.releaseId, ids))
        : Promise.resolve([]),
    ]);
    return rows.map((row) => {
      const byPlatform = { macos: 0, windows: 0, linux: 0 };
      for (const count of counts) {
        if (count.releaseId === row.id) byPlatform[count.platform as ReleasePlatform] += count.count;
      }
      return {
        ...releaseJson(
          row,
          artifacts.filter((artifact) => artifact.releaseId === row.id),
        ),
        downloads: { total: byPlatform.macos + byPlatform.windows + byPlatform.linux, by_platform: byPlatform },
      };
    });
  }

  async addArtifact(
    releaseId: string,
    input: AddArtifactRequest,
  ): Promise<{ artifact: Artifact; upload: UploadTarget }> {
    const release = await this.releaseRow(releaseId);
    if (release.state !== "draft") throw new HttpProblem(409, RELEASE_ERRORS.notDraft, "NOT_DRAFT");
    if (this.keys.trusted.length === 0) {
      throw new HttpProblem(503, "No release public key is configured (RELEASE_PUBLIC_KEYS).", "NO_RELEASE_KEYS");
    }
    const artifactId = randomUUID();
    const uploadId = randomUUID();
    const storageKey = `artifacts/${release.id}/${artifactId}/${input.filename}`;
    const [existing] = await this.db
      .select({ id: releaseArtifacts.id })
      .from(releaseArtifacts)
      .where(
        and(
          eq(releaseArtifacts.releaseId, release.id),
          eq(releaseArtifacts.platform, input.platform),
          eq(releaseArtifacts.arch, input.arch),
        ),
      );
    if (existing) throw new HttpProblem(409, RELEASE_ERRORS.artifactTaken, "ARTIFACT_TAKEN");
    const { s3UploadId } = await this.storage.startUpload(uploadId, storageKey, "application/octet-stream");
    const partSize = this.storage.kind === "s3" ? partSizeFor(input.size) : null;
    const row = await this.db.transaction(async (tx) => {
      const [artifact] = await tx
        .insert(releaseArtifacts)
        .values({
          id: artifactId,
          releaseId: release.id,
          platform: input.platform,
          arch: input.arch,
          filename: input.filename,
          size: input.size,
          sha256: input.sha256.toLowerCase(),
          sha512: input.sha512.toLowerCase(),
          signature: input.signature,
          minisignSignature: input.minisign_signature,
          storageKey,
        })
        .onConflictDoNothing()
        .returning();
      if (!artifact) throw new HttpProblem(409, RELEASE_ERRORS.artifactTaken, "ARTIFACT_TAKEN");
      await tx.insert(releaseUploads).values({
        id: uploadId,
        artifactId,
        kind: this.storage.kind === "s3" ? "s3-multipart" : "folder",
        s3UploadId,
        partSize,
      });
      return artifact;
    });
    return { artifact: artifactJson(row), upload: this.target(uploadId, row.size, partSize, 0) };
  }

  /** Removes a draft's artifact (an abandoned or wrong upload) with its bytes; answers the release. */
  async removeArtifact(releaseId: string, artifactId: string): Promise<Release> {
    const release = await this.releaseRow(releaseId);
    if (release.state !== "draft") throw new HttpProblem(409, RELEASE_ERRORS.notDraft, "NOT_DRAFT");
    if (!UUID.test(artifactId)) throw notFound(RELEASE_ERRORS.artifactNotFound);
    const [row] = await this.db
      .select({ artifact: releaseArtifacts, upload: releaseUploads })
      .from(releaseArtifacts)
      .leftJoin(releaseUploads, eq(releaseUploads.artifactId, releaseArtifacts.id))
      .where(and(eq(releaseArtifacts.id, artifactId), eq(releaseArtifacts.releaseId, release.id)));
    if (!row) throw notFound(RELEASE_ERRORS.artifactNotFound);
    await this.db.delete(releaseArtifacts).where(eq(releaseArtifacts.id, artifactId));
    const pending =
      row.upload && row.artifact.uploadState !== "complete"
        ? { id: row.upload.id, key: row.artifact.storageKey, s3UploadId: row.upload.s3UploadId }
        : null;
    await this.storage.discard(pending, row.artifact.storageKey).catch(() => undefined);
    return this.get(release.id);
  }

  private target(uploadId: string, size: number, partSize: number | null, offset: number): UploadTarget {
    if (this.storage.kind === "s3" && partSize) {
      return {
        kind: "s3-multipart",
        upload_id: uploadId,
        part_size: partSize,
        part_count: Math.max(1, Math.ceil(size / partSize)),
        size,
      };
    }
    return {
      kind: "folder",
      upload_id: uploadId,
      url: `${this.options.publicOrigin}/api/admin/uploads/${uploadId}`,
      offset,
      size,
    };
  }

  private async uploadRow(
    uploadId: string,
  ): Promise<{ upload: UploadRow; artifact: ArtifactRow; pending: PendingUpload }> {
    if (!UUID.test(uploadId)) throw notFound(RELEASE_ERRORS.uploadNotFound);
    const [row] = await this.db
      .select({ upload: releaseUploads, artifact: releaseArtifacts })
      .from(releaseUploads)
      .innerJoin(releaseArtifacts, eq(releaseArtifacts.id, releaseUploads.artifactId))
      .where(eq(releaseUploads.id, uploadId));
    if (!row) throw notFound(RELEASE_ERRORS.uploadNotFound);
    return {
      ...row,
      pending: { id: row.upload.id, key: row.artifact.storageKey, s3UploadId: row.upload.s3UploadId },
    };
  }

  async uploadStatus(uploadId: string) {
    const { upload, artifact, pending } = await this.uploadRow(uploadId);
    const complete = artifact.uploadState === "complete";
    const stored = complete ? { bytes: artifact.size, parts: [] } : await this.storage.uploaded(pending);
    return {
      upload_id: upload.id,
      artifact_id: artifact.id,
      kind: upload.kind as "folder" | "s3-multipart",
      size: artifact.size,
      offset: stored.bytes,
      part_size: upload.partSize,
      parts: stored.parts.map((part) => ({ part_number: part.partNumber, etag: part.etag, size: part.size })),
      state: artifact.uploadState as "pending" | "complete",
    };
  }

  /** Folder storage: bytes at `offset`; answers the new offset. */
  async appendFolder(uploadId: string, offset: number, body: Readable): Promise<number> {
    const { upload, artifact, pending } = await this.uploadRow(uploadId);
    if (!(this.storage instanceof FolderStorage) || upload.kind !== "folder") {
      body.resume();
      throw new HttpProblem(409, RELEASE_ERRORS.wrongStorage, "WRONG_STORAGE");
    }
    if (artifact.uploadState === "complete") {
      body.resume();
      throw new HttpProblem(409, "This upload is complete.", "UPLOAD_COMPLETE");
    }
    try {
      return await this.storage.append(pending, offset, artifact.size, body);
    } catch (error) {
      if (error instanceof OffsetMismatch) {
        throw new HttpProblem(409, RELEASE_ERRORS.offsetMismatch, "OFFSET_MISMATCH", undefined, {
          offset: error.current,
        });
      }
      if (error instanceof UploadTooLarge) throw new HttpProblem(413, RELEASE_ERRORS.sizeMismatch, "SIZE_MISMATCH");
      throw error;
    }
  }

  /** S3: presigned PUT URLs for parts. */
  async partUrls(uploadId: string, partNumbers: number[]) {
    const { upload, artifact, pending } = await this.uploadRow(uploadId);
    if (!(this.storage instanceof S3Storage) || upload.kind !== "s3-multipart" || !upload.partSize) {
      throw new HttpProblem(409, RELEASE_ERRORS.wrongStorage, "WRONG_STORAGE");
    }
    if (artifact.uploadState === "complete") throw new HttpProblem(409, "This upload is complete.", "UPLOAD_COMPLETE");
    const partCount = Math.max(1, Math.ceil(artifact.size / upload.partSize));
    const expiresAt = new Date(Date.now() + DOWNLOAD_LINK_TTL_SECONDS * 1000).toISOString();
    const storage = this.storage;
    const parts = [];
    for (const partNumber of [...new Set(partNumbers)].sort((a, b) => a - b)) {
      if (partNumber > partCount) {
        throw new HttpProblem(400, `This upload has ${partCount} parts.`, "VALIDATION_ERROR");
      }
      parts.push({
        part_number: partNumber,
        url: await storage.partUrl(pending, partNumber, DOWNLOAD_LINK_TTL_SECONDS),
        expires_at: expiresAt,
      });
    }
    return { parts };
  }

  /**
   * Assembles the upload, reads it back once (streamed) and checks size, SHA-256, SHA-512 and both signatures
   * against the trusted keys. A mismatch throws the bytes and the artifact away (422): the operator adds it again.
   */
  async complete(uploadId: string, parts: { part_number: number; etag: string }[] | undefined, actor: Actor) {
    const { upload, artifact, pending } = await this.uploadRow(uploadId);
    if (artifact.uploadState === "complete") return artifactJson(artifact);
    const release = await this.releaseRow(artifact.releaseId);
    if (release.state !== "draft") throw new HttpProblem(409, RELEASE_ERRORS.notDraft, "NOT_DRAFT");
    if (upload.kind === "folder") {
      const { bytes } = await this.storage.uploaded(pending);
      if (bytes < artifact.size) throw new HttpProblem(409, RELEASE_ERRORS.uploadIncomplete, "UPLOAD_INCOMPLETE");
    } else {
      // The parts the client names (with the ETags S3 gave it), else those S3 lists; the verification below checks
      // the assembled object's size and bytes whatever the list says.
      const given =
        parts && parts.length > 0
          ? parts
          : (await this.storage.uploaded(pending)).parts.map((part) => ({
              part_number: part.partNumber,
              etag: part.etag,
            }));
      if (given.length === 0) throw new HttpProblem(409, RELEASE_ERRORS.uploadIncomplete, "UPLOAD_INCOMPLETE");
      try {
        await this.storage.assemble(
          pending,
          given.map((part) => ({ partNumber: part.part_number, etag: part.etag })),
        );
      } catch (error) {
        if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 400) {
          throw new HttpProblem(409, RELEASE_ERRORS.uploadIncomplete, "UPLOAD_INCOMPLETE");
        }
        throw error;
      }
    }
    const stream = await this.storage.read(upload.kind === "folder" ? pending : null, artifact.storageKey);
    const verdict = await verifyArtifact(
      this.keys.trusted,
      {
        size: artifact.size,
        sha256: artifact.sha256,
        sha512: artifact.sha512,
        signature: artifact.signature,
        minisign_signature: artifact.minisignSignature,
      },
      stream,
    ).finally(() => stream.destroy());
    if (!verdict.ok) {
      await this.storage.discard(pending, artifact.storageKey).catch(() => undefined);
      await this.db.delete(releaseArtifacts).where(eq(releaseArtifacts.id, artifact.id));
      const refusals: Record<typeof verdict.reason, [string, string]> = {
        size: [RELEASE_ERRORS.sizeMismatch, "SIZE_MISMATCH"],
        checksum: [RELEASE_ERRORS.checksumMismatch, "CHECKSUM_MISMATCH"],
        signature: [RELEASE_ERRORS.signatureInvalid, "SIGNATURE_INVALID"],
        minisign: [RELEASE_ERRORS.minisignInvalid, "MINISIGN_INVALID"],
      };
      const [message, code] = refusals[verdict.reason];
      throw new HttpProblem(422, message, code);
    }
    await this.storage.commit(pending, artifact.storageKey);
    const [done] = await this.db.transaction(async (tx) => {
      const updated = await tx
        .update(releaseArtifacts)
        .set({ uploadState: "complete", completedAt: new Date() })
        .where(eq(releaseArtifacts.id, artifact.id))
        .returning();
      await tx
        .update(releaseUploads)
        .set({ completedAt: new Date(), received: artifact.size })
        .where(eq(releaseUploads.id, upload.id));
      await recordEvent(tx, {
        type: "release.artifact_uploaded",
        actor,
        target: { type: "release", id: release.id },
        after: {
          artifact_id: artifact.id,
          platform: artifact.platform,
          arch: artifact.arch,
          size: artifact.size,
          sha256: artifact.sha256,
          key_id: verdict.minisignKey.keyId,
        },
      });
      return updated;
    });
    if (!done) throw notFound(RELEASE_ERRORS.artifactNotFound);
    return artifactJson(done);
  }

  async publish(id: string, actor: Actor): Promise<Release> {
    const result = await this.db.transaction(async (tx) => {
      const [row] = await tx.select().from(releases).where(eq(releases.id, id)).for("update");
      if (!row) throw notFound();
      if (row.state !== "draft") throw new HttpProblem(409, RELEASE_ERRORS.notDraft, "NOT_DRAFT");
      const artifacts = await tx.select().from(releaseArtifacts).where(eq(releaseArtifacts.releaseId, id));
      if (artifacts.length === 0 || artifacts.some((artifact) => artifact.uploadState !== "complete")) {
        throw new HttpProblem(409, RELEASE_ERRORS.noArtifacts, "NO_ARTIFACTS");
      }
      const [updated] = await tx
        .update(releases)
        .set({ state: "published", publishedAt: new Date(), updatedAt: new Date() })
        .where(eq(releases.id, id))
        .returning();
      if (!updated) throw notFound();
      await recordEvent(tx, {
        type: "release.published",
        actor,
        target: { type: "release", id },
        before: { state: "draft" },
        after: {
          state: "published",
          version: updated.version,
          channel: updated.channel,
          platforms: [...new Set(artifacts.map((artifact) => artifact.platform))],
        },
      });
      return releaseJson(updated, artifacts);
    });
    this.published = null;
    return result;
  }

  async yank(id: string, reason: string | undefined, actor: Actor): Promise<Release> {
    const result = await this.db.transaction(async (tx) => {
      const [row] = await tx.select().from(releases).where(eq(releases.id, id)).for("update");
      if (!row) throw notFound();
      if (row.state !== "published") throw new HttpProblem(409, RELEASE_ERRORS.notPublished, "NOT_PUBLISHED");
      const [updated] = await tx
        .update(releases)
        .set({ state: "yanked", yankedAt: new Date(), yankReason: reason ?? null, updatedAt: new Date() })
        .where(eq(releases.id, id))
        .returning();
      if (!updated) throw notFound();
      await recordEvent(tx, {
        type: "release.yanked",
        actor,
        target: { type: "release", id },
        before: { state: "published" },
        after: { state: "yanked", version: updated.version, channel: updated.channel },
        reason: reason ?? null,
      });
      return releaseJson(updated, await tx.select().from(releaseArtifacts).where(eq(releaseArtifacts.releaseId, id)));
    });
    this.published = null;
    return result;
  }

  async promote(id: string, channel: ReleaseChannel, actor: Actor): Promise<Release> {
    const result = await this.db.transaction(async (tx) => {
      const [row] = await tx.select().from(releases).where(eq(releases.id, id)).for("update");
      if (!row) throw notFound();
      if (row.state !== "published") throw new HttpProblem(409, RELEASE_ERRORS.notPublished, "NOT_PUBLISHED");
      if (row.channel === channel) throw new HttpProblem(409, RELEASE_ERRORS.promoteSameChannel, "SAME_CHANNEL");
      const [updated] = await tx
        .update(releases)
        .set({ channel, updatedAt: new Date() })
        .where(eq(releases.id, id))
        .returning();
      if (!updated) throw notFound();
      await recordEvent(tx, {
        type: "release.promoted",
        actor,
        target: { type: "release", id },
        before: { channel: row.channel },
        after: { channel, version: updated.version },
      });
      return releaseJson(updated, await tx.select().from(releaseArtifacts).where(eq(releaseArtifacts.releaseId, id)));
    });
    this.published = null;
    return result;
  }

  // ── The platform switch ────────────────────────────────────────────────────────────────────────────────────

  async platforms() {
    const rows = await this.db.select().from(downloadPlatforms);
    return RELEASE_PLATFORMS.map((platform) => {
      const row = rows.find((candidate) => candidate.platform === platform);
      return {
        platform,
        open: row?.open ?? false,
        changed_at: iso(row?.changedAt ?? null),
        changed_by: row?.changedBy ?? null,
      };
    });
  }

  /** The open platforms, reused like the published list (PUBLISHED_CACHE_MS; cleared by a change on this instance). */
  openPlatforms(): Promise<Set<ReleasePlatform>> {
    const now = Date.now();
    if (this.open && now - this.open.at < PUBLISHED_CACHE_MS) return this.open.platforms;
    const platforms = this.db
      .select()
      .from(downloadPlatforms)
      .where(eq(downloadPlatforms.open, true))
      .then((rows) => new Set(rows.map((row) => row.platform as ReleasePlatform)));
    this.open = { at: now, platforms };
    platforms.catch(() => {
      if (this.open?.platforms === platforms) this.open = null;
    });
    return platforms;
  }

  async setPlatform(platform: ReleasePlatform, open: boolean, actor: Actor) {
    await this.db.transaction(async (tx) => {
      const [row] = await tx
        .select()
        .from(downloadPlatforms)
        .where(eq(downloadPlatforms.platform, platform))
        .for("update");
      const was = row?.open ?? false;
      if (was === open) return;
      const values = { platform, open, changedAt: new Date(), changedBy: actor.id ?? null };
      await tx
        .insert(downloadPlatforms)
        .values(values)
        .onConflictDoUpdate({ target: downloadPlatforms.platform, set: values });
      await recordEvent(tx, {
        type: open ? "downloads.platform_opened" : "downloads.platform_closed",
        actor,
        target: { type: "platform", id: platform },
        before: { open: was },
        after: { open },
      });
    });
    this.open = null;
    return this.platforms();
  }

  // ── Entitlement and offers ─────────────────────────────────────────────────────────────────────────────────

  /** Published releases with their complete artifacts, reused for PUBLISHED_CACHE_MS on this instance. */
  private publishedEntries(): Promise<PublishedEntry[]> {
    const now = Date.now();
    if (this.published && now - this.published.at < PUBLISHED_CACHE_MS) return this.published.entries;
    const entries = (async () => {
      const rows = await this.db.select().from(releases).where(eq(releases.state, "published"));
      const artifacts = await this.artifactsOf(rows.map((row) => row.id));
      return rows
        .map((release) => ({
          release,
          artifacts: artifacts.filter(
            (artifact) => artifact.releaseId === release.id && artifact.uploadState === "complete",
          ),
        }))
        .sort((a, b) => semver.rcompare(a.release.version, b.release.version));
    })();
    this.published = { at: now, entries };
    entries.catch(() => {
      if (this.published?.entries === entries) this.published = null;
    });
    return entries;
  }

  entitled(license: LicenseRow): EntitledLicense {
    return { status: license.status, expiresAt: license.expiresAt, features: termsOf(license).features };
  }

  /** SUSPENDED or EXPIRED (as a 403), or nothing: the license may download. */
  assertMayDownload(license: LicenseRow, now = new Date()) {
    const refusal = licenseRefusal(this.entitled(license), now, this.options.expiredAccess);
    if (refusal) {
      throw new HttpProblem(
        403,
        refusal === "SUSPENDED" ? "This license is suspended." : "This license has expired.",
        refusal,
      );
    }
  }

  /** The newest release (and its artifacts for the platform and arch, exact arch first) this license may have. */
  async offer(context: OfferContext): Promise<PublishedEntry | null> {
    return (await this.offers(context, 1))[0] ?? null;
  }

  /** Up to `limit` releases this license may have, newest first (strictly newer than `newerThan` when given). */
  async offers(context: Omit<OfferContext, "newerThan"> & { newerThan?: string | null }, limit: number) {
    this.assertMayDownload(context.license);
    const tester = context.channel === "stable" ? false : await this.isTester(context.license.customerId);
    const channels = customerChannels(context.channel, tester);
    const license = this.entitled(context.license);
    const found: PublishedEntry[] = [];
    for (const entry of await this.publishedEntries()) {
      if (found.length >= limit) break;
      if (context.newerThan && !semver.gt(entry.release.version, context.newerThan)) break;
      if (!mayHave(entry.release, license, channels)) continue;
      const artifacts = entry.artifacts.filter(
        (artifact) =>
          artifact.platform === context.platform &&
          (!context.arch || artifact.arch === context.arch || artifact.arch === "universal"),
      );
      if (artifacts.length === 0) continue;
      // The exact arch before a universal build.
      artifacts.sort((a, b) => (a.arch === "universal" ? 1 : 0) - (b.arch === "universal" ? 1 : 0));
      found.push({ release: entry.release, artifacts });
    }
    return found;
  }

  /** A fresh download link for an artifact, issued to a license. */
  link(artifactId: string, licenseId: string, now = Date.now()): { url: string; expires_at: string } {
    const expires = Math.floor(now / 1000) + DOWNLOAD_LINK_TTL_SECONDS;
    const token = this.links.issue({ a: artifactId, l: licenseId, e: expires });
    return {
      url: `${this.options.publicOrigin}/api/downloads/${token}`,
      expires_at: new Date(expires * 1000).toISOString(),
    };
  }

  /** The artifact a customer may download through a feed's enclosure, or a 404/403. */
  async feedArtifact(license: LicenseRow, artifactId: string): Promise<ArtifactRow> {
    this.assertMayDownload(license);
    if (!UUID.test(artifactId)) throw notFound(RELEASE_ERRORS.artifactNotFound);
    const entry = (await this.publishedEntries()).find((candidate) =>
      candidate.artifacts.some((artifact) => artifact.id === artifactId),
    );
    const artifact = entry?.artifacts.find((candidate) => candidate.id === artifactId);
    if (!entry || !artifact) throw notFound(RELEASE_ERRORS.artifactNotFound);
    const tester = await this.isTester(license.customerId);
    if (!mayHave(entry.release, this.entitled(license), customerChannels("beta", tester))) {
      throw new HttpProblem(403, RELEASE_ERRORS.notEntitled, "NOT_ENTITLED");
    }
    const open = await this.openPlatforms();
    if (!open.has(artifact.platform as ReleasePlatform)) {
      throw new HttpProblem(403, RELEASE_ERRORS.platformClosed, "PLATFORM_CLOSED");
    }
    return artifact;
  }

  /**
   * Redeems a link: the artifact (still published, not yanked) and its claims; the caller streams or redirects.
   * Counted here, once per download started (a resumed Range does not count again).
   */
  async redeem(token: string, countIt: boolean): Promise<{ artifact: ArtifactRow; claims: LinkClaims }> {
    const claims = this.links.read(token);
    if (!claims || !UUID.test(claims.a)) throw new HttpProblem(410, RELEASE_ERRORS.linkExpired, "LINK_EXPIRED");
    const [row] = await this.db
      .select({ artifact: releaseArtifacts, state: releases.state })
      .from(releaseArtifacts)
      .innerJoin(releases, eq(releases.id, releaseArtifacts.releaseId))
      .where(eq(releaseArtifacts.id, claims.a));
    const live = row?.artifact.uploadState === "complete" && (row.state === "published" || claims.l === "op");
    if (!row || !live) {
      throw new HttpProblem(410, RELEASE_ERRORS.linkExpired, "LINK_EXPIRED");
    }
    if (countIt && claims.l !== "op") {
      await this.db
        .insert(releaseDownloadCounts)
        .values({ releaseId: row.artifact.releaseId, platform: row.artifact.platform, count: 1 })
        .onConflictDoUpdate({
          target: [releaseDownloadCounts.releaseId, releaseDownloadCounts.platform],
          set: { count: sql`${releaseDownloadCounts.count} + 1` },
        });
    }
    return { artifact: row.artifact, claims };
  }

  /** Published releases' notes, newest first (the release-notes page): stable and beta, never yanked or drafts. */
  async notes(query: { channel?: ReleaseChannel; limit: number }) {
    const channels = query.channel ? [query.channel] : ["stable", "beta"];
    const entries = await this.publishedEntries();
    return entries
      .filter((entry) => channels.includes(entry.release.channel))
      .slice(0, query.limit)
      .map((entry) => ({
        version: entry.release.version,
        channel: entry.release.channel as ReleaseChannel,
        published_at: (entry.release.publishedAt ?? entry.release.createdAt).toISOString(),
        notes: entry.release.notes,
        platforms: [...new Set(entry.artifacts.map((artifact) => artifact.platform as ReleasePlatform))],
      }));
  }
}

function tokenJson(row: TokenRow) {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes as OperatorScope[],
    hint: row.hint,
    created_at: row.createdAt.toISOString(),
    created_by: row.createdBy,
    last_used_at: iso(row.lastUsedAt),
    revoked_at: iso(row.revokedAt),
  };
}
