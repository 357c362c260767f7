/** Which release keys the server trusts (decision 0060). */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateReleaseSigningKey, minisignPublicKeyFile } from "@flotilla/contracts/release-signing";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../config";
import { DEV_KEY_FILE, DEV_PUBLIC_KEY_FILE, loadReleaseKeys } from "./keys";

const base = { LOG_LEVEL: "silent", NODE_ENV: "development" };
const made: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "flotilla-release-keys-"));
  made.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe("release keys", () => {
  it("on loopback without RELEASE_PUBLIC_KEYS: a development pair in DATA_DIR (0600), the same on the next start", () => {
    const dir = tempDir();
    const config = loadConfig({ ...base, DATA_DIR: dir });
    const first = loadReleaseKeys(config);
    expect(first.development).not.toBeNull();
    expect(statSync(join(dir, DEV_KEY_FILE)).mode & 0o777).toBe(0o600);
    const publicText = readFileSync(join(dir, DEV_PUBLIC_KEY_FILE), "utf8");
    expect(publicText).toContain(first.development?.publicKey.sparkle);
    expect(publicText).toContain("minisign public key");
    const second = loadReleaseKeys(config);
    expect(second.trusted[0]?.raw.equals(first.trusted[0]!.raw)).toBe(true);
  });

  it("RELEASE_PUBLIC_KEYS: only those keys, no development key; a bad key stops the start", () => {
    const a = generateReleaseSigningKey();
    const b = generateReleaseSigningKey();
    const list = `${a.publicKey.minisign}, ${minisignPublicKeyFile(b.publicKey).tauri}`;
    const dir = tempDir();
    const keys = loadReleaseKeys(loadConfig({ ...base, DATA_DIR: dir, RELEASE_PUBLIC_KEYS: list }));
    expect(keys.development).toBeNull();
    expect(keys.trusted.map((key) => key.sparkle)).toEqual([a.publicKey.sparkle, b.publicKey.sparkle]);
    expect(existsSync(join(dir, DEV_KEY_FILE))).toBe(false);
    expect(() => loadConfig({ ...base, RELEASE_PUBLIC_KEYS: "x".repeat(50) })).toThrow(/RELEASE_PUBLIC_KEYS/);
  });

  it("exposed without RELEASE_PUBLIC_KEYS: nothing is trusted, nothing generated", () => {
    const dir = tempDir();
    const config = loadConfig({
      ...base,
      DATA_DIR: dir,
      HOST: "0.0.0.0",
      DEV_SIGN_IN: "true",
      APP_SECRET: "s".repeat(40),
      LICENSE_SIGNING_KEY: generateReleaseSigningKey().pem,
    });
    const keys = loadReleaseKeys(config);
    expect(keys).toEqual({ trusted: [], development: null });
    expect(existsSync(join(dir, DEV_KEY_FILE))).toBe(false);
  });

  it("S3 storage needs a bucket, and both credentials or neither", () => {
    expect(() => loadConfig({ ...base, ARTIFACT_STORAGE: "s3" })).toThrow(/S3_BUCKET/);
    expect(() => loadConfig({ ...base, ARTIFACT_STORAGE: "s3", S3_BUCKET: "b-1", S3_ACCESS_KEY_ID: "k" })).toThrow(
      /S3_SECRET_ACCESS_KEY/,
    );
    expect(loadConfig({ ...base, ARTIFACT_STORAGE: "s3", S3_BUCKET: "b-1" }).releases.storage).toMatchObject({
      kind: "s3",
      bucket: "b-1",
      credentials: null,
    });
  });
});
