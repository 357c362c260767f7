/** Releases for tests: signed artifacts, an operator token, and a release published through the API (folder). */
import { createHash, randomBytes } from "node:crypto";
import { type ReleaseSigningKey, signArtifact } from "@flotilla/contracts/release-signing";
import type { SQL } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { expect } from "vitest";
import { devSignIn } from "./dev-sign-in";

export const auth = (token: string) => ({ authorization: `Bearer ${token}` });

export function devKey(app: FastifyInstance): ReleaseSigningKey {
  const key = app.releases.keys.development;
  if (!key) throw new Error("the test app has no development release key");
  return key;
}

/** Bytes and what an operator declares about them, signed with `key`. */
export async function signedArtifact(key: ReleaseSigningKey, bytes: Buffer, filename: string) {
  const signatures = await signArtifact(key, () => [bytes], filename);
  return {
    bytes,
    declared: {
      filename,
      size: bytes.length,
      sha256: createHash("sha256").update(bytes).digest("hex"),
      sha512: createHash("sha512").update(bytes).digest("hex"),
      ...signatures,
    },
  };
}

/** Signs in an admin (ADMIN_EMAILS must list it) and creates an operator token; answers both. */
export async function operator(app: FastifyInstance, email: string) {
  const { token: admin, customer } = await devSignIn(app, { email, name: "Release Operator" });
  const created = await app.inject({
    method: "POST",
    url: "/api/admin/operator-tokens",
    headers: auth(admin),
    payload: { name: "CI" },
  });
  expect(created.statusCode, created.body).toBe(200);
  return { admin, adminId: customer.id, token: created.json().data.token as string, tokenId: created.json().data.id };
}

/** Uploads through the folder's PATCH in one go and completes; answers the completion. */
export async function uploadFolder(app: FastifyInstance, token: string, uploadId: string, bytes: Buffer) {
  const patch = await app.inject({
    method: "PATCH",
    url: `/api/admin/uploads/${uploadId}`,
    headers: { ...auth(token), "content-type": "application/offset+octet-stream", "upload-offset": "0" },
    payload: bytes,
  });
  expect(patch.statusCode, patch.body).toBe(204);
  return app.inject({
    method: "POST",
    url: `/api/admin/uploads/${uploadId}/complete`,
    headers: auth(token),
    payload: {},
  });
}

let versions = 0;

/** A published release with one artifact per target; answers its id and artifacts' ids. */
export async function publishRelease(
  app: FastifyInstance,
  token: string,
  options: {
    version?: string;
    channel?: string;
    targets?: { platform: string; arch: string }[];
    requires_feature?: string;
    size?: number;
  } = {},
) {
  versions += 1;
  const version = options.version ?? `1.${versions}.0`;
  const created = await app.inject({
    method: "POST",
    url: "/api/admin/releases",
    headers: auth(token),
    payload: {
      version,
      channel: options.channel ?? "stable",
      notes: `## ${version}\n\n- Better`,
      ...(options.requires_feature ? { requires_feature: options.requires_feature } : {}),
    },
  });
  expect(created.statusCode, created.body).toBe(200);
  const releaseId = created.json().data.id as string;
  const artifacts: { id: string; platform: string; arch: string; bytes: Buffer }[] = [];
  for (const target of options.targets ?? [{ platform: "macos", arch: "universal" }]) {
    const { bytes, declared } = await signedArtifact(
      devKey(app),
      randomBytes(options.size ?? 4096),
      `Flotilla-${version}-${target.platform}-${target.arch}.bin`,
    );
    const added = await app.inject({
      method: "POST",
      url: `/api/admin/releases/${releaseId}/artifacts`,
      headers: auth(token),
      payload: { ...target, ...declared },
    });
    expect(added.statusCode, added.body).toBe(200);
    const completed = await uploadFolder(app, token, added.json().data.upload.upload_id, bytes);
    expect(completed.statusCode, completed.body).toBe(200);
    artifacts.push({ id: added.json().data.artifact.id, ...target, bytes });
  }
  const published = await app.inject({
    method: "POST",
    url: `/api/admin/releases/${releaseId}/publish`,
    headers: auth(token),
    payload: {},
  });
  expect(published.statusCode, published.body).toBe(200);
  return { releaseId, version, artifacts };
}

export async function openPlatform(app: FastifyInstance, admin: string, platform: string, open = true) {
  const answer = await app.inject({
    method: "PUT",
    url: `/api/admin/downloads/platforms/${platform}`,
    headers: auth(admin),
    payload: { open },
  });
  expect(answer.statusCode, answer.body).toBe(200);
}

export const newBytes = (n: number) => randomBytes(n);

/** Rows of a raw query, typed (PGlite and node-postgres both answer `{ rows }`). */
export async function rowsOf<T>(app: FastifyInstance, query: SQL): Promise<T[]> {
  return ((await app.database.db.execute(query)) as unknown as { rows: T[] }).rows;
}
