/**
 * Abandoned uploads (decision 0061): an artifact of a draft release still pending a week after it was added is
 * removed with its bytes (the folder's `.uploads` file, or S3's incomplete multipart upload), so neither the disk
 * nor the bucket keeps what CI gave up on, and the draft's platform and arch are free again. Bounded batches; the
 * bytes are thrown away after the rows' transaction commits.
 */
import { and, eq, lt } from "drizzle-orm";
import { releaseArtifacts, releases, releaseUploads } from "../db/schema";
import type { ArtifactStorage, PendingUpload } from "../modules/releases/storage";
import type { Job } from "./scheduler";

export const ABANDONED_UPLOAD_DAYS = 7;
export const RELEASE_UPLOADS_INTERVAL_MS = 60 * 60 * 1000;
const BATCH = 100;

export function releaseUploadsJob(storage: ArtifactStorage): Job {
  let discarded: { pending: PendingUpload | null; key: string }[] = [];
  return {
    name: "release-uploads",
    intervalMs: RELEASE_UPLOADS_INTERVAL_MS,
    async run(tx, now) {
      const before = new Date(now.getTime() - ABANDONED_UPLOAD_DAYS * 86_400_000);
      const rows = await tx
        .select({ artifact: releaseArtifacts, upload: releaseUploads })
        .from(releaseArtifacts)
        .innerJoin(releases, eq(releases.id, releaseArtifacts.releaseId))
        .leftJoin(releaseUploads, eq(releaseUploads.artifactId, releaseArtifacts.id))
        .where(
          and(
            eq(releases.state, "draft"),
            eq(releaseArtifacts.uploadState, "pending"),
            lt(releaseArtifacts.createdAt, before),
          ),
        )
        .limit(BATCH);
      for (const row of rows) {
        await tx.delete(releaseArtifacts).where(eq(releaseArtifacts.id, row.artifact.id));
      }
      discarded = rows.map((row) => ({
        key: row.artifact.storageKey,
        pending: row.upload
          ? { id: row.upload.id, key: row.artifact.storageKey, s3UploadId: row.upload.s3UploadId }
          : null,
      }));
      return { abandonedUploads: rows.length };
    },
    async afterCommit() {
      const gone = discarded;
      discarded = [];
      for (const item of gone) await storage.discard(item.pending, item.key).catch(() => undefined);
    },
  };
}
