/**
 * The S3 path of artifact storage (decision 0061) against a real S3-compatible server (s3rver) on 127.0.0.1, not a
 * mock of the SDK: a multipart upload whose parts the client PUTs straight to the bucket with presigned URLs, the
 * server's verification reading the object back, a download that is a 302 to a presigned GET (the instance never
 * carries the bytes), and a tampered upload deleted from the bucket.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HeadObjectCommand } from "@aws-sdk/client-s3";
import type { FastifyInstance } from "fastify";
import S3rver from "s3rver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { S3Storage } from "../src/modules/releases/storage";
import { licensedCustomer } from "./helpers/licensed-customer";
import { auth, devKey, newBytes, openPlatform, operator, signedArtifact } from "./helpers/releases";
import { createTestApp, testConfig } from "./helpers/test-app";

const ADMIN = "release.s3@example.com";
const BUCKET = "flotilla-artifacts";

let s3: S3rver;
const bucketDir = mkdtempSync(join(tmpdir(), "flotilla-s3rver-"));
let app: FastifyInstance;
let close: () => Promise<void>;
let token: string;
let admin: string;

beforeAll(async () => {
  s3 = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: bucketDir,
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  const { port } = (await s3.run()) as { port: number };
  const base = testConfig();
  ({ app, close } = await createTestApp({
    backgroundJobs: false,
    adminEmails: [ADMIN],
    releases: {
      ...base.releases,
      storage: {
        kind: "s3",
        bucket: BUCKET,
        region: "us-east-1",
        endpoint: `http://127.0.0.1:${port}`,
        forcePathStyle: true,
        credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
        prefix: "test/",
      },
    },
  }));
  ({ token, admin } = await operator(app, ADMIN));
}, 90_000);
afterAll(async () => {
  await close();
  await s3.close();
  rmSync(bucketDir, { recursive: true, force: true });
});

const post = (url: string, payload: unknown) =>
  app.inject({ method: "POST", url, headers: auth(token), payload: payload as object });

async function uploadParts(uploadId: string, bytes: Buffer, partSize: number, partCount: number) {
  const urls = await post(`/api/admin/uploads/${uploadId}/parts`, {
    part_numbers: Array.from({ length: partCount }, (_, i) => i + 1),
  });
  expect(urls.statusCode, urls.body).toBe(200);
  const parts = [];
  for (const part of urls.json().data.parts as { part_number: number; url: string }[]) {
    const start = (part.part_number - 1) * partSize;
    const body = bytes.subarray(start, Math.min(start + partSize, bytes.length));
    // Straight to the bucket, as the CLI does: the API is not in this request's path.
    expect(new URL(part.url).port).not.toBe("");
    const put = await fetch(part.url, { method: "PUT", body, signal: AbortSignal.timeout(30_000) });
    expect(put.status, await put.clone().text()).toBe(200);
    parts.push({ part_number: part.part_number, etag: put.headers.get("etag") as string });
  }
  return parts;
}

describe("S3 storage (s3rver on loopback)", () => {
  it("multipart upload with presigned parts, verified, published, downloaded by a presigned redirect", async () => {
    const created = await post("/api/admin/releases", { version: "5.0.0", channel: "stable", notes: "S3" });
    const releaseId = created.json().data.id as string;
    // Two parts: 16 MiB and the rest (S3's parts are at least 5 MiB except the last).
    const { bytes, declared } = await signedArtifact(devKey(app), newBytes(16 * 1024 * 1024 + 1234), "Flotilla.dmg");
    const added = await post(`/api/admin/releases/${releaseId}/artifacts`, {
      platform: "macos",
      arch: "universal",
      ...declared,
    });
    expect(added.statusCode, added.body).toBe(200);
    const upload = added.json().data.upload;
    expect(upload).toMatchObject({ kind: "s3-multipart", part_count: 2, part_size: 16 * 1024 * 1024 });
    const parts = await uploadParts(upload.upload_id, bytes, upload.part_size, upload.part_count);
    const done = await post(`/api/admin/uploads/${upload.upload_id}/complete`, { parts });
    expect(done.statusCode, done.body).toBe(200);
    expect((await post(`/api/admin/releases/${releaseId}/publish`, {})).statusCode).toBe(200);
    await openPlatform(app, admin, "macos");

    const customer = await licensedCustomer(app, "s3-customer");
    await app.inject({
      method: "POST",
      url: "/api/license/validate",
      payload: { license_key: customer.key, machine_id: "mac-s3" },
    });
    const check = await post("/api/license/updates/check", {
      license_key: customer.key,
      machine_id: "mac-s3",
      current_version: "4.0.0",
      platform: "macos",
      arch: "x86_64",
    });
    const link = new URL(check.json().data.update.download.url);
    const redirect = await app.inject({ url: link.pathname });
    expect(redirect.statusCode).toBe(302);
    const presigned = new URL(redirect.headers.location as string);
    expect(presigned.host).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(presigned.searchParams.get("X-Amz-Expires")).toBe("300");
    const file = await fetch(presigned, { signal: AbortSignal.timeout(30_000) });
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);
  }, 120_000);

  it("a tampered upload is refused and deleted from the bucket", async () => {
    const created = await post("/api/admin/releases", { version: "5.1.0", channel: "stable" });
    const releaseId = created.json().data.id as string;
    const { bytes, declared } = await signedArtifact(devKey(app), newBytes(50_000), "tampered.tar.gz");
    const added = await post(`/api/admin/releases/${releaseId}/artifacts`, {
      platform: "linux",
      arch: "x86_64",
      ...declared,
    });
    const upload = added.json().data.upload;
    const tampered = Buffer.from(bytes);
    tampered[10] = (tampered[10] as number) ^ 1;
    const parts = await uploadParts(upload.upload_id, tampered, upload.part_size, 1);
    const refused = await post(`/api/admin/uploads/${upload.upload_id}/complete`, { parts });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().code).toBe("CHECKSUM_MISMATCH");
    const storage = app.releases.storage as S3Storage;
    const key = `test/artifacts/${releaseId}/${added.json().data.artifact.id}/tampered.tar.gz`;
    await expect(storage.client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))).rejects.toThrow();
  }, 60_000);
});
