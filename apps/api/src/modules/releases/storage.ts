/**
 * Where artifacts live (decision 0061): a folder in DATA_DIR (the embedded default) or S3-compatible object
 * storage. Both stream: nothing here holds a whole artifact in memory.
 *
 * - Folder: uploads append to `.uploads/<upload id>` at the offset the client says (tus-like HEAD/PATCH, one writer
 *   per upload at a time), and move to `<storage key>` once verified; downloads are streamed from the file (with
 *   Range) by the API behind a signed, expiring link.
 * - S3: multipart uploads whose parts the CLI PUTs straight to the bucket with presigned URLs; downloads are 302s to
 *   a presigned GET. The instances never carry the bytes, except to verify an upload once (a streamed GET).
 */
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";

export interface StoredPart {
  partNumber: number;
  etag: string;
  size: number;
}

/** What the service asks of storage; `kind` says which upload protocol the client speaks. */
export interface ArtifactStorage {
  readonly kind: "folder" | "s3";
  /** Prepares an upload; S3 answers its multipart upload id. */
  startUpload(uploadId: string, key: string, contentType: string): Promise<{ s3UploadId: string | null }>;
  /** Bytes received so far (folder) or the parts stored (S3). */
  uploaded(upload: PendingUpload): Promise<{ bytes: number; parts: StoredPart[] }>;
  /** Makes the uploaded bytes an object at `key` (S3: completes the multipart upload). */
  assemble(upload: PendingUpload, parts: { partNumber: number; etag: string }[]): Promise<void>;
  /** The assembled bytes, streamed (verification, folder downloads). */
  read(upload: PendingUpload | null, key: string, range?: { start: number; end: number }): Promise<Readable>;
  /** Moves verified bytes to their final place (folder); nothing to do on S3. */
  commit(upload: PendingUpload, key: string): Promise<void>;
  /** Throws away an upload or an object (a failed verification, a deleted draft). */
  discard(upload: PendingUpload | null, key: string): Promise<void>;
  /** Size of a stored object, or null when absent. */
  size(key: string): Promise<number | null>;
}

export interface PendingUpload {
  id: string;
  key: string;
  s3UploadId: string | null;
}

export class OffsetMismatch extends Error {
  constructor(readonly current: number) {
    super("upload offset mismatch");
  }
}
export class UploadTooLarge extends Error {}

/** Counts bytes through a stream and refuses past `max`. */
/** Past the declared size, this much more is read and dropped before the connection is given up on. */
const OVERFLOW_DRAINED = 1024 * 1024;

/**
 * Passes at most `max` bytes. The chunk that goes past it, and what follows, are dropped while the body is read to its
 * end (up to OVERFLOW_DRAINED more), so the client gets a clean 413 rather than a reset connection; `exceeded()` says
 * so afterwards. A body that keeps coming past that is cut off.
 */
function limiter(max: number) {
  let seen = 0;
  let over = false;
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > max) over = true;
      if (over && seen > max + OVERFLOW_DRAINED)
        return callback(new UploadTooLarge("more bytes than the declared size"));
      callback(null, over ? undefined : chunk);
    },
  });
  return Object.assign(transform, { exceeded: () => over });
}

export class FolderStorage implements ArtifactStorage {
  readonly kind = "folder" as const;
  private readonly root: string;
  /** One writer per upload: a second PATCH waits for the first (the offsets then tell it where it stands). */
  private readonly writing = new Map<string, Promise<unknown>>();

  constructor(root: string) {
    this.root = resolve(root);
  }

  private inside(...parts: string[]): string {
    const path = resolve(this.root, ...parts);
    if (!path.startsWith(this.root + sep)) throw new Error("storage key escapes the artifacts folder");
    return path;
  }

  private pendingPath(uploadId: string) {
    if (!/^[0-9a-f-]{36}$/.test(uploadId)) throw new Error("bad upload id");
    return this.inside(".uploads", uploadId);
  }

  async startUpload(uploadId: string): Promise<{ s3UploadId: null }> {
    const path = this.pendingPath(uploadId);
    await mkdir(dirname(path), { recursive: true });
    const handle = await open(path, "a");
    await handle.close();
    return { s3UploadId: null };
  }

  async uploaded(upload: PendingUpload) {
    try {
      return { bytes: (await stat(this.pendingPath(upload.id))).size, parts: [] };
    } catch {
      return { bytes: 0, parts: [] };
    }
  }

  /**
   * Appends the body at `offset`, which must be where the upload stands (else OffsetMismatch with the current
   * offset), never past `size`. A broken connection keeps what arrived: the client HEADs and resumes from there.
   */
  async append(upload: PendingUpload, offset: number, size: number, body: Readable): Promise<number> {
    const previous = this.writing.get(upload.id) ?? Promise.resolve();
    const run = previous
      .catch(() => undefined)
      .then(async () => {
        const path = this.pendingPath(upload.id);
        const current = (await stat(path)).size;
        if (current !== offset) {
          body.resume();
          throw new OffsetMismatch(current);
        }
        const limit = limiter(size - current);
        try {
          await pipeline(body, limit, createWriteStream(path, { flags: "a" }));
        } catch (error) {
          if (error instanceof UploadTooLarge) throw error;
          // An interrupted body: what reached the file stays; the client resumes from the new offset.
        }
        if (limit.exceeded()) throw new UploadTooLarge("more bytes than the declared size");
        return (await stat(path)).size;
      });
    this.writing.set(upload.id, run);
    try {
      return await run;
    } finally {
      if (this.writing.get(upload.id) === run) this.writing.delete(upload.id);
    }
  }

  async assemble(): Promise<void> {}

  async read(upload: PendingUpload | null, key: string, range?: { start: number; end: number }): Promise<Readable> {
    const path = upload ? this.pendingPath(upload.id) : this.inside(key);
    await stat(path);
    return createReadStream(path, range ? { start: range.start, end: range.end } : {});
  }

  async commit(upload: PendingUpload, key: string): Promise<void> {
    const target = this.inside(key);
    await mkdir(dirname(target), { recursive: true });
    await rename(this.pendingPath(upload.id), target);
  }

  async discard(upload: PendingUpload | null, key: string): Promise<void> {
    if (upload) await rm(this.pendingPath(upload.id), { force: true });
    await rm(this.inside(key), { force: true });
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await stat(this.inside(key))).size;
    } catch {
      return null;
    }
  }

  /** The file path of a stored artifact (streamed downloads). */
  pathOf(key: string): string {
    return this.inside(key);
  }
}

export interface S3Options {
  bucket: string;
  region: string;
  endpoint: string | null;
  forcePathStyle: boolean;
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
  /** Object keys start with this (one bucket shared by environments). */
  prefix: string;
}

export class S3Storage implements ArtifactStorage {
  readonly kind = "s3" as const;
  readonly client: S3Client;

  constructor(private readonly options: S3Options) {
    this.client = new S3Client({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      forcePathStyle: options.forcePathStyle,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      // Checksums the SDK would add by default (CRC32) are not something presigned part PUTs from the CLI carry.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  private objectKey(key: string) {
    return `${this.options.prefix}${key}`;
  }

  async startUpload(_uploadId: string, key: string, contentType: string) {
    const answer = await this.client.send(
      new CreateMultipartUploadCommand({
        Bucket: this.options.bucket,
        Key: this.objectKey(key),
        ContentType: contentType,
      }),
    );
    if (!answer.UploadId) throw new Error("S3 gave no multipart upload id");
    return { s3UploadId: answer.UploadId };
  }

  async uploaded(upload: PendingUpload) {
    const parts: StoredPart[] = [];
    let marker: string | undefined;
    for (let page = 0; page < 20; page++) {
      const answer = await this.client.send(
        new ListPartsCommand({
          Bucket: this.options.bucket,
          Key: this.objectKey(upload.key),
          UploadId: upload.s3UploadId ?? "",
          ...(marker ? { PartNumberMarker: marker } : {}),
        }),
      );
      for (const part of answer.Parts ?? []) {
        parts.push({ partNumber: part.PartNumber ?? 0, etag: part.ETag ?? "", size: part.Size ?? 0 });
      }
      if (!answer.IsTruncated || !answer.NextPartNumberMarker) break;
      marker = answer.NextPartNumberMarker;
    }
    return { bytes: parts.reduce((sum, part) => sum + part.size, 0), parts };
  }

  /** A presigned PUT for one part: the CLI sends the bytes straight to the bucket. */
  partUrl(upload: PendingUpload, partNumber: number, ttlSeconds: number): Promise<string> {
    return getSignedUrl(
      this.client,
      new UploadPartCommand({
        Bucket: this.options.bucket,
        Key: this.objectKey(upload.key),
        UploadId: upload.s3UploadId ?? "",
        PartNumber: partNumber,
      }),
      { expiresIn: ttlSeconds },
    );
  }

  async assemble(upload: PendingUpload, parts: { partNumber: number; etag: string }[]): Promise<void> {
    await this.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.options.bucket,
        Key: this.objectKey(upload.key),
        UploadId: upload.s3UploadId ?? "",
        MultipartUpload: {
          Parts: [...parts]
            .sort((a, b) => a.partNumber - b.partNumber)
            .map((part) => ({
              PartNumber: part.partNumber,
              ETag: part.etag,
            })),
        },
      }),
    );
  }

  async read(_upload: PendingUpload | null, key: string, range?: { start: number; end: number }): Promise<Readable> {
    const answer = await this.client.send(
      new GetObjectCommand({
        Bucket: this.options.bucket,
        Key: this.objectKey(key),
        ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
      }),
    );
    const body = answer.Body;
    if (!body) throw new Error("S3 answered no body");
    return body instanceof Readable ? body : Readable.fromWeb(body.transformToWebStream() as never);
  }

  async commit(): Promise<void> {}

  async discard(upload: PendingUpload | null, key: string): Promise<void> {
    if (upload?.s3UploadId) {
      await this.client
        .send(
          new AbortMultipartUploadCommand({
            Bucket: this.options.bucket,
            Key: this.objectKey(key),
            UploadId: upload.s3UploadId,
          }),
        )
        .catch(() => undefined);
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
  }

  async size(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }),
      );
      return head.ContentLength ?? null;
    } catch {
      return null;
    }
  }

  /** A presigned GET that saves under the artifact's name (the download's 302 target). */
  downloadUrl(key: string, filename: string, ttlSeconds: number): Promise<string> {
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.options.bucket,
        Key: this.objectKey(key),
        ResponseContentDisposition: `attachment; filename="${filename}"`,
      }),
      { expiresIn: ttlSeconds },
    );
  }
}

export function folderRoot(dataDir: string): string {
  return join(dataDir, "artifacts");
}
