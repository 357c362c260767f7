/**
 * The operator's side of distribution (decisions 0059-0061), on folder storage: operator tokens (shown once, stored
 * hashed, revocable, audited), a draft release, a resumable upload (tus-like offsets), the server's verification of
 * size, checksums and both signatures, publish, yank, promote — and the attackers: no token, a forged or revoked
 * token, a customer who is not an admin, a tampered upload, an artifact signed by another key.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { PassThrough } from "node:stream";
import { generateReleaseSigningKey } from "@flotilla/contracts/release-signing";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { releaseUploadsJob } from "../src/jobs/release-uploads";
import { runExclusively } from "../src/jobs/scheduler";
import type { FolderStorage } from "../src/modules/releases/storage";
import { devSignIn } from "./helpers/dev-sign-in";
import {
  auth,
  devKey,
  newBytes,
  operator,
  publishRelease,
  rowsOf,
  signedArtifact,
  uploadFolder,
} from "./helpers/releases";
import { createTestApp } from "./helpers/test-app";

const ADMIN = "release.ops@example.com";

let app: FastifyInstance;
let close: () => Promise<void>;
let admin: string;
let token: string;
let tokenId: string;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false, adminEmails: [ADMIN] }));
  ({ admin, token, tokenId } = await operator(app, ADMIN));
}, 60_000);
afterAll(() => close());

const post = (url: string, payload: unknown, bearer = token) =>
  app.inject({ method: "POST", url, headers: auth(bearer), payload: payload as object });

async function draft(version: string, channel = "stable") {
  const answer = await post("/api/admin/releases", { version, channel, notes: "Notes" });
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json().data.id as string;
}

describe("operator tokens", () => {
  it("are shown once, stored as SHA-256 only, listed without their secret, and audited", async () => {
    const created = await post("/api/admin/operator-tokens", { name: "Release CI" }, admin);
    expect(created.statusCode).toBe(200);
    const secret = created.json().data.token as string;
    expect(secret).toMatch(/^flt_op_[A-Za-z0-9_-]{43}$/);
    const rows = await rowsOf<{ token_hash: string }>(
      app,
      sql`SELECT token_hash FROM operator_tokens WHERE id = ${created.json().data.id}`,
    );
    expect(rows[0]?.token_hash).toBe(createHash("sha256").update(secret).digest("hex"));
    const list = await app.inject({ url: "/api/admin/operator-tokens", headers: auth(admin) });
    expect(list.body).not.toContain(secret);
    expect(list.json().data.map((t: { name: string }) => t.name)).toContain("Release CI");
    const audit = await rowsOf<{ type: string }>(
      app,
      sql`SELECT type FROM audit_events WHERE target_id = ${created.json().data.id}`,
    );
    expect(audit.map((row) => row.type)).toEqual(["operator_token.created"]);
  });

  it("a revoked token stops working at once; a forged one never worked; tokens cannot make tokens", async () => {
    const created = await post("/api/admin/operator-tokens", { name: "Short-lived" }, admin);
    const secret = created.json().data.token as string;
    expect((await app.inject({ url: "/api/admin/releases", headers: auth(secret) })).statusCode).toBe(200);
    const revoked = await app.inject({
      method: "DELETE",
      url: `/api/admin/operator-tokens/${created.json().data.id}`,
      headers: auth(admin),
    });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().data.revoked_at).not.toBeNull();
    const after = await app.inject({ url: "/api/admin/releases", headers: auth(secret) });
    expect(after.statusCode).toBe(401);
    expect(after.json().code).toBe("INVALID_TOKEN");
    const forged = await app.inject({ url: "/api/admin/releases", headers: auth(`flt_op_${"A".repeat(43)}`) });
    expect(forged.statusCode).toBe(401);
    expect((await post("/api/admin/operator-tokens", { name: "x" }, token)).statusCode).toBe(401);
    expect((await app.inject({ url: "/api/admin/downloads/platforms", headers: auth(token) })).statusCode).toBe(401);
  });

  it("refuses a stranger and a signed-in customer who is not an admin", async () => {
    expect((await app.inject({ url: "/api/admin/releases" })).statusCode).toBe(401);
    const { token: customer } = await devSignIn(app, { email: "not.admin@example.com", name: "Customer" });
    expect((await app.inject({ url: "/api/admin/releases", headers: auth(customer) })).statusCode).toBe(403);
    expect((await post("/api/admin/releases", { version: "9.9.9", channel: "stable" }, customer)).statusCode).toBe(403);
    expect((await post("/api/admin/operator-tokens", { name: "mine" }, customer)).statusCode).toBe(403);
  });

  it("the token the operator used is named in the audit log", async () => {
    const id = await draft("0.0.1");
    const audit = await rowsOf<{ actor_type: string; actor_id: string }>(
      app,
      sql`SELECT actor_type, actor_id FROM audit_events WHERE target_id = ${id} AND type = 'release.created'`,
    );
    expect(audit[0]).toEqual({ actor_type: "service", actor_id: `operator-token:${tokenId}` });
  });
});

describe("releases", () => {
  it("validates the version and refuses a duplicate", async () => {
    for (const version of ["1", "1.2", "v1.2.3", "1.2.3-", "01.2.3", "1.2.3 ; drop"]) {
      const answer = await post("/api/admin/releases", { version, channel: "stable" });
      expect(answer.statusCode, version).toBe(400);
    }
    expect((await post("/api/admin/releases", { version: "2.0.0", channel: "nightly" })).statusCode).toBe(400);
    await draft("2.0.0-beta.1", "beta");
    const again = await post("/api/admin/releases", { version: "2.0.0-beta.1", channel: "stable" });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe("VERSION_TAKEN");
  });

  it("uploads resume at the offset the server holds, and the server verifies before anything is published", async () => {
    const id = await draft("3.0.0");
    const { bytes, declared } = await signedArtifact(devKey(app), newBytes(100_000), "Flotilla-3.0.0.dmg");
    const added = await post(`/api/admin/releases/${id}/artifacts`, {
      platform: "macos",
      arch: "universal",
      ...declared,
    });
    expect(added.statusCode, added.body).toBe(200);
    const upload = added.json().data.upload;
    expect(upload).toMatchObject({ kind: "folder", offset: 0, size: 100_000 });
    expect(upload.url).toMatch(new RegExp(`/api/admin/uploads/${upload.upload_id}$`));

    // Publishing before the upload completes is refused.
    expect((await post(`/api/admin/releases/${id}/publish`, {})).json().code).toBe("NO_ARTIFACTS");

    const patch = (offset: number, body: Buffer) =>
      app.inject({
        method: "PATCH",
        url: `/api/admin/uploads/${upload.upload_id}`,
        headers: { ...auth(token), "content-type": "application/offset+octet-stream", "upload-offset": String(offset) },
        payload: body,
      });
    const first = await patch(0, bytes.subarray(0, 40_000));
    expect(first.statusCode).toBe(204);
    expect(first.headers["upload-offset"]).toBe("40000");
    // A client that lost track is told where the upload stands.
    const wrong = await patch(0, bytes.subarray(0, 10));
    expect(wrong.statusCode).toBe(409);
    expect(wrong.json()).toMatchObject({ code: "OFFSET_MISMATCH", offset: 40_000 });
    const head = await app.inject({
      method: "HEAD",
      url: `/api/admin/uploads/${upload.upload_id}`,
      headers: auth(token),
    });
    expect(head.headers["upload-offset"]).toBe("40000");
    const early = await post(`/api/admin/uploads/${upload.upload_id}/complete`, {});
    expect(early.json().code).toBe("UPLOAD_INCOMPLETE");
    // More bytes than declared are refused.
    expect((await patch(40_000, Buffer.concat([bytes.subarray(40_000), Buffer.from("extra")]))).statusCode).toBe(413);
    const status = await app.inject({ url: `/api/admin/uploads/${upload.upload_id}`, headers: auth(token) });
    const resumeAt = status.json().data.offset as number;
    expect((await patch(resumeAt, bytes.subarray(resumeAt))).statusCode).toBe(204);
    const done = await post(`/api/admin/uploads/${upload.upload_id}/complete`, {});
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().data.upload_state).toBe("complete");

    const published = await post(`/api/admin/releases/${id}/publish`, {});
    expect(published.statusCode).toBe(200);
    expect(published.json().data).toMatchObject({ state: "published", version: "3.0.0" });
    expect(published.json().data.published_at).not.toBeNull();
    // A published release takes no more artifacts, and is not published twice.
    const late = await signedArtifact(devKey(app), newBytes(10), "late.bin");
    const more = await post(`/api/admin/releases/${id}/artifacts`, {
      platform: "linux",
      arch: "x86_64",
      ...late.declared,
    });
    expect(more.json().code).toBe("NOT_DRAFT");
    expect((await post(`/api/admin/releases/${id}/publish`, {})).json().code).toBe("NOT_DRAFT");
  });

  it("a body longer than declared is answered 413 once it has been read, even when the excess comes before its end", async () => {
    const id = await draft("3.0.1");
    const { bytes, declared } = await signedArtifact(devKey(app), newBytes(1_000), "small.bin");
    const added = await post(`/api/admin/releases/${id}/artifacts`, {
      platform: "linux",
      arch: "aarch64",
      ...declared,
    });
    const upload = added.json().data.upload;
    // The excess arrives first, and the body goes on for a while after: refusing by destroying the request left the
    // answer unsent (a hang under inject, a reset connection over HTTP).
    const body = new PassThrough();
    body.write(Buffer.concat([bytes, Buffer.alloc(64 * 1024)]));
    setTimeout(() => body.end(Buffer.alloc(1024)), 200);
    const answer = await app.inject({
      method: "PATCH",
      url: `/api/admin/uploads/${upload.upload_id}`,
      headers: { ...auth(token), "content-type": "application/offset+octet-stream", "upload-offset": "0" },
      payload: body,
    });
    expect(answer.statusCode).toBe(413);
    expect(answer.json().code).toBe("SIZE_MISMATCH");
    // Nothing of the refused chunk was kept: the upload resumes from 0 and completes (no upload left pending).
    const resumed = await app.inject({
      method: "PATCH",
      url: `/api/admin/uploads/${upload.upload_id}`,
      headers: { ...auth(token), "content-type": "application/offset+octet-stream", "upload-offset": "0" },
      payload: bytes,
    });
    expect(resumed.statusCode).toBe(204);
    expect((await post(`/api/admin/uploads/${upload.upload_id}/complete`, {})).statusCode).toBe(200);
  });

  it("refuses and discards a tampered upload, a wrong checksum, another key's signatures", async () => {
    const id = await draft("3.1.0");
    const attempt = async (declared: Record<string, unknown>, bytes: Buffer, arch: string) => {
      const added = await post(`/api/admin/releases/${id}/artifacts`, { platform: "linux", arch, ...declared });
      expect(added.statusCode, added.body).toBe(200);
      return uploadFolder(app, token, added.json().data.upload.upload_id, bytes);
    };
    const good = await signedArtifact(devKey(app), newBytes(5_000), "a.tar.gz");
    const tampered = Buffer.from(good.bytes);
    tampered[100] = (tampered[100] as number) ^ 1;
    const checksum = await attempt(good.declared, tampered, "x86_64");
    expect(checksum.statusCode).toBe(422);
    expect(checksum.json().code).toBe("CHECKSUM_MISMATCH");

    // The right checksums of tampered bytes, the signature of the original: the signature is what fails.
    const hashes = {
      sha256: createHash("sha256").update(tampered).digest("hex"),
      sha512: createHash("sha512").update(tampered).digest("hex"),
    };
    const signature = await attempt({ ...good.declared, ...hashes }, tampered, "x86_64");
    expect(signature.json().code).toBe("SIGNATURE_INVALID");

    const stranger = await signedArtifact(generateReleaseSigningKey(), newBytes(5_000), "b.tar.gz");
    expect((await attempt(stranger.declared, stranger.bytes, "x86_64")).json().code).toBe("SIGNATURE_INVALID");

    // A Sparkle signature of ours with a minisign signature of another key.
    const mixed = { ...good.declared, minisign_signature: stranger.declared.minisign_signature };
    expect((await attempt(mixed, good.bytes, "x86_64")).json().code).toBe("MINISIGN_INVALID");

    // Each refused artifact was discarded: the slot is free for the right one.
    const right = await attempt(good.declared, good.bytes, "x86_64");
    expect(right.statusCode, right.body).toBe(200);
    const release = await app.inject({ url: `/api/admin/releases/${id}`, headers: auth(token) });
    expect(release.json().data.artifacts).toHaveLength(1);
  });

  it("a draft's abandoned artifact can be removed and added again; a published release keeps its artifacts", async () => {
    const id = await draft("3.2.0");
    const first = await signedArtifact(devKey(app), newBytes(2_000), "w.zip");
    const added = await post(`/api/admin/releases/${id}/artifacts`, {
      platform: "windows",
      arch: "x86_64",
      ...first.declared,
    });
    const artifactId = added.json().data.artifact.id as string;
    // Half an upload, then the operator gives up on it.
    await app.inject({
      method: "PATCH",
      url: `/api/admin/uploads/${added.json().data.upload.upload_id}`,
      headers: { ...auth(token), "content-type": "application/offset+octet-stream", "upload-offset": "0" },
      payload: first.bytes.subarray(0, 1_000),
    });
    const again = await post(`/api/admin/releases/${id}/artifacts`, {
      platform: "windows",
      arch: "x86_64",
      ...first.declared,
    });
    expect(again.json().code).toBe("ARTIFACT_TAKEN");
    const removed = await app.inject({
      method: "DELETE",
      url: `/api/admin/releases/${id}/artifacts/${artifactId}`,
      headers: auth(token),
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json().data.artifacts).toEqual([]);
    const retried = await post(`/api/admin/releases/${id}/artifacts`, {
      platform: "windows",
      arch: "x86_64",
      ...first.declared,
    });
    expect((await uploadFolder(app, token, retried.json().data.upload.upload_id, first.bytes)).statusCode).toBe(200);
    expect((await post(`/api/admin/releases/${id}/publish`, {})).statusCode).toBe(200);
    const late = await app.inject({
      method: "DELETE",
      url: `/api/admin/releases/${id}/artifacts/${retried.json().data.artifact.id}`,
      headers: auth(token),
    });
    expect(late.json().code).toBe("NOT_DRAFT");
    // Another release's artifact id is not this release's.
    const other = await draft("3.2.1");
    const foreign = await app.inject({
      method: "DELETE",
      url: `/api/admin/releases/${other}/artifacts/${retried.json().data.artifact.id}`,
      headers: auth(token),
    });
    expect(foreign.statusCode).toBe(404);
  });

  it("an upload abandoned for a week is removed with its bytes by the background job", async () => {
    const id = await draft("3.3.0");
    const file = await signedArtifact(devKey(app), newBytes(3_000), "abandoned.zip");
    const added = await post(`/api/admin/releases/${id}/artifacts`, {
      platform: "linux",
      arch: "x86_64",
      ...file.declared,
    });
    const uploadId = added.json().data.upload.upload_id as string;
    await app.inject({
      method: "PATCH",
      url: `/api/admin/uploads/${uploadId}`,
      headers: { ...auth(token), "content-type": "application/offset+octet-stream", "upload-offset": "0" },
      payload: file.bytes.subarray(0, 1_500),
    });
    const storage = app.releases.storage as FolderStorage;
    const pendingFile = join(dirname(dirname(storage.pathOf("x/y"))), ".uploads", uploadId);
    expect(existsSync(pendingFile)).toBe(true);
    const job = releaseUploadsJob(storage);
    // Six days on: kept.
    expect((await runExclusively(app.database.db, job, new Date(Date.now() + 6 * 86_400_000))).ran).toBe(true);
    expect(
      (await app.inject({ url: `/api/admin/releases/${id}`, headers: auth(token) })).json().data.artifacts,
    ).toHaveLength(1);
    const outcome = await runExclusively(app.database.db, job, new Date(Date.now() + 8 * 86_400_000));
    expect(outcome).toMatchObject({ ran: true, result: { abandonedUploads: 1 } });
    expect(
      (await app.inject({ url: `/api/admin/releases/${id}`, headers: auth(token) })).json().data.artifacts,
    ).toEqual([]);
    expect(existsSync(pendingFile)).toBe(false);
  });

  it("yank and promote are audited and go out as webhooks through the outbox", async () => {
    const endpoint = await post(
      "/api/admin/webhooks",
      { url: "http://127.0.0.1:9/flotilla-hooks", events: ["release.published", "release.yanked", "release.promoted"] },
      admin,
    );
    expect(endpoint.statusCode, endpoint.body).toBe(200);
    const { releaseId } = await publishRelease(app, token, { version: "4.0.0-beta.1", channel: "beta" });
    const promoted = await post(`/api/admin/releases/${releaseId}/promote`, { channel: "stable" });
    expect(promoted.json().data.channel).toBe("stable");
    expect((await post(`/api/admin/releases/${releaseId}/promote`, { channel: "stable" })).json().code).toBe(
      "SAME_CHANNEL",
    );
    const yanked = await post(`/api/admin/releases/${releaseId}/yank`, { reason: "crashes on launch" });
    expect(yanked.json().data.state).toBe("yanked");
    expect((await post(`/api/admin/releases/${releaseId}/yank`, {})).json().code).toBe("NOT_PUBLISHED");
    const audit = await rowsOf<{ type: string; reason: string | null }>(
      app,
      sql`SELECT type, reason FROM audit_events WHERE target_id = ${releaseId} ORDER BY seq`,
    );
    expect(audit.map((row) => row.type)).toEqual([
      "release.created",
      "release.artifact_uploaded",
      "release.published",
      "release.promoted",
      "release.yanked",
    ]);
    expect(audit.at(-1)?.reason).toBe("crashes on launch");
    const outbox = await rowsOf<{ type: string }>(
      app,
      sql`SELECT payload->>'type' AS type FROM outbox WHERE channel = 'webhook' AND payload->'data'->'target'->>'id' = ${releaseId} ORDER BY seq`,
    );
    expect(outbox.map((row) => row.type)).toEqual(["release.published", "release.promoted", "release.yanked"]);
  });

  it("lists releases with their artifacts, newest first", async () => {
    const list = await app.inject({ url: "/api/admin/releases?state=published", headers: auth(admin) });
    expect(list.statusCode).toBe(200);
    for (const release of list.json().data) {
      expect(release.state).toBe("published");
      expect(release.downloads).toMatchObject({ total: expect.any(Number) });
    }
  });
});
