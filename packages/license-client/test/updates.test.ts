import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LicenseClient } from "../src/client";
import { LicenseAnswerError, LicenseInputError } from "../src/errors";
import { LicenseManager } from "../src/license-manager";
import { MemoryStateStore } from "../src/state";
import { compareVersions, downloadUpdate, partPath, UpdateError } from "../src/updates";
import { type FakeServer, KEYS, startFakeServer } from "./fake-server";
import { type ArtifactServer, artifactBytes, releaseKey, signedUpdate, startArtifactServer } from "./update-server";

let server: FakeServer;
let files: ArtifactServer;
let dir: string;
const release = releaseKey();
const SIZE = 256 * 1024;

beforeEach(async () => {
  server = await startFakeServer();
  files = await startArtifactServer();
  dir = await mkdtemp(join(tmpdir(), "flotilla-updates-"));
});
afterEach(async () => {
  await server.close();
  await files.close();
  await rm(dir, { recursive: true, force: true });
});

async function activated(keys: string[] = [release.sparkle]) {
  const manager = new LicenseManager({
    client: new LicenseClient({ baseUrl: server.url, sleep: async () => {}, trustedKeys: server.trustedKeys }),
    store: new MemoryStateStore(),
    machineId: () => "desktop-updates-test",
    releasePublicKeys: keys,
  });
  expect((await manager.activate(KEYS.free)).activated).toBe(true);
  return manager;
}

/** The server offers `update` to the next checks (signed, like the API's). */
function offer(...updates: (Awaited<ReturnType<typeof signedUpdate>> | null)[]) {
  server.script(
    "/api/license/updates/check",
    ...updates.map((update) => ({ status: 200, body: { success: true, data: { update } } })),
  );
}

const check = { currentVersion: "1.2.0", platform: "macos", arch: "universal" } as const;

describe("checkForUpdate", () => {
  it("asks with the activated license and machine, and answers the signed offer", async () => {
    const manager = await activated();
    const bytes = artifactBytes(1024);
    files.files.set("a.dmg", bytes);
    offer(await signedUpdate(release.key, bytes, `${files.url}/files/a.dmg`));
    const update = await manager.checkForUpdate({ ...check, channel: "beta" });
    expect(update?.version).toBe("1.3.0");
    const request = server.requests.find((r) => r.path === "/api/license/updates/check");
    expect(request?.body).toEqual({
      license_key: KEYS.free,
      machine_id: "desktop-updates-test",
      current_version: "1.2.0",
      platform: "macos",
      arch: "universal",
      channel: "beta",
    });
  });

  it("answers null when nothing newer is offered", async () => {
    const manager = await activated();
    offer(null);
    expect(await manager.checkForUpdate(check)).toBeNull();
  });

  it("an attacker between app and server cannot offer an update: unsigned answers are refused", async () => {
    const manager = await activated();
    const bytes = artifactBytes(1024);
    server.script("/api/license/updates/check", {
      status: 200,
      unsigned: true,
      body: { success: true, data: { update: await signedUpdate(release.key, bytes, `${files.url}/files/a.dmg`) } },
    });
    await expect(manager.checkForUpdate(check)).rejects.toBeInstanceOf(LicenseAnswerError);
  });

  it("validates its input before sending anything", async () => {
    const manager = await activated();
    const before = server.requests.length;
    await expect(manager.checkForUpdate({ ...check, currentVersion: "v1" })).rejects.toBeInstanceOf(LicenseInputError);
    await expect(
      manager.checkForUpdate({ ...check, platform: "solaris" as unknown as "macos" }),
    ).rejects.toBeInstanceOf(LicenseInputError);
    expect(server.requests.length).toBe(before);
  });
});

describe("downloadUpdate", () => {
  it("downloads, verifies both signatures and renames into place; the part file is gone", async () => {
    const manager = await activated([release.tauri]);
    const bytes = artifactBytes(SIZE);
    files.files.set("a.dmg", bytes);
    offer(await signedUpdate(release.key, bytes, `${files.url}/files/a.dmg`));
    const update = (await manager.checkForUpdate(check))!;
    const dest = join(dir, "Flotilla.dmg");
    const progress: number[] = [];
    const done = await manager.downloadUpdate(update, dest, { onProgress: (p) => progress.push(p.received) });
    expect(done).toMatchObject({ path: dest, version: "1.3.0", size: SIZE, resumedFrom: 0 });
    expect((await readFile(dest)).equals(bytes)).toBe(true);
    expect(existsSync(partPath(update, dest))).toBe(false);
    expect(progress.at(-1)).toBe(SIZE);
  });

  it("resumes with a Range when the connection is cut mid-file", async () => {
    const manager = await activated();
    const bytes = artifactBytes(SIZE);
    files.files.set("a.dmg", bytes);
    files.cutAfter = { bytes: 100_000, times: 2 };
    offer(await signedUpdate(release.key, bytes, `${files.url}/files/a.dmg`));
    const update = (await manager.checkForUpdate(check))!;
    const dest = join(dir, "Flotilla.dmg");
    await manager.downloadUpdate(update, dest, { sleep: async () => {} });
    expect((await readFile(dest)).equals(bytes)).toBe(true);
    const ranges = files.requests.map((r) => r.headers.range ?? null);
    expect(ranges[0]).toBeNull();
    expect(ranges.length).toBe(3);
    expect(ranges[1]).toMatch(/^bytes=\d+-$/);
    expect(Number(/\d+/.exec(ranges[1] ?? "")?.[0])).toBeGreaterThanOrEqual(100_000);
  });

  it("resumes a download a previous run left (the part file beside the destination)", async () => {
    const bytes = artifactBytes(SIZE);
    files.files.set("a.dmg", bytes);
    const update = await signedUpdate(release.key, bytes, `${files.url}/files/a.dmg`);
    const dest = join(dir, "Flotilla.dmg");
    await writeFile(partPath(update, dest), bytes.subarray(0, 70_000));
    const done = await downloadUpdate(update, dest, { releasePublicKeys: [release.sparkle] });
    expect(done.resumedFrom).toBe(70_000);
    expect(files.requests.map((r) => r.headers.range)).toEqual(["bytes=70000-"]);
    expect((await readFile(dest)).equals(bytes)).toBe(true);
  });

  it("refuses tampered bytes: nothing at the destination, the part file removed", async () => {
    const bytes = artifactBytes(SIZE);
    const update = await signedUpdate(release.key, bytes, `${files.url}/files/a.dmg`);
    const evil = Buffer.from(bytes);
    evil[1234] = (evil[1234] as number) ^ 0xff;
    files.files.set("a.dmg", evil);
    const dest = join(dir, "Flotilla.dmg");
    const error = await downloadUpdate(update, dest, { releasePublicKeys: [release.sparkle] }).catch((e) => e);
    expect(error).toBeInstanceOf(UpdateError);
    expect(error).toMatchObject({ reason: "tampered", detail: "checksum" });
    expect(error.message).toMatch(/Nothing was installed/);
    expect(existsSync(dest)).toBe(false);
    expect(existsSync(partPath(update, dest))).toBe(false);
  });

  it("refuses an artifact signed by another key, even with matching checksums (a compromised server)", async () => {
    const bytes = artifactBytes(4096);
    files.files.set("a.dmg", bytes);
    const attacker = releaseKey();
    const update = await signedUpdate(attacker.key, bytes, `${files.url}/files/a.dmg`);
    const dest = join(dir, "Flotilla.dmg");
    await expect(downloadUpdate(update, dest, { releasePublicKeys: [release.sparkle] })).rejects.toMatchObject({
      reason: "tampered",
      detail: "signature",
    });
    // A valid Sparkle signature with a forged minisign one is refused too.
    const genuine = await signedUpdate(release.key, bytes, `${files.url}/files/a.dmg`);
    const mixed = {
      ...genuine,
      artifact: { ...genuine.artifact, minisign_signature: update.artifact.minisign_signature },
    };
    await expect(downloadUpdate(mixed, dest, { releasePublicKeys: [release.tauri] })).rejects.toMatchObject({
      reason: "tampered",
      detail: "minisign",
    });
    expect(existsSync(dest)).toBe(false);
  });

  it("refuses more bytes than were signed", async () => {
    const bytes = artifactBytes(4096);
    const update = await signedUpdate(release.key, bytes, `${files.url}/files/a.dmg`);
    files.files.set("a.dmg", Buffer.concat([bytes.subarray(0, 4000), artifactBytes(500)]));
    await expect(
      downloadUpdate(update, join(dir, "x.dmg"), { releasePublicKeys: [release.sparkle] }),
    ).rejects.toMatchObject({ reason: "tampered" });
  });

  it("refuses a downgrade unless asked", async () => {
    const bytes = artifactBytes(2048);
    files.files.set("a.dmg", bytes);
    const update = await signedUpdate(release.key, bytes, `${files.url}/files/a.dmg`, "1.1.0");
    const dest = join(dir, "Flotilla.dmg");
    const options = { releasePublicKeys: [release.sparkle], currentVersion: "1.2.0" };
    await expect(downloadUpdate(update, dest, options)).rejects.toMatchObject({ reason: "downgrade" });
    await expect(downloadUpdate(update, dest, { ...options, currentVersion: "1.1.0" })).rejects.toMatchObject({
      reason: "downgrade",
    });
    expect(files.requests).toHaveLength(0);
    await downloadUpdate(update, dest, { ...options, allowDowngrade: true });
    expect((await readFile(dest)).equals(bytes)).toBe(true);
  });

  it("a yanked release is refused: its link is gone and the server no longer offers it", async () => {
    const manager = await activated();
    const bytes = artifactBytes(2048);
    files.files.set("a.dmg", bytes);
    const update = await signedUpdate(release.key, bytes, `${files.url}/files/a.dmg`);
    offer(update, null);
    const offered = (await manager.checkForUpdate(check))!;
    files.gone = true;
    const error = await manager.downloadUpdate(offered, join(dir, "Flotilla.dmg")).catch((e) => e);
    expect(error).toBeInstanceOf(UpdateError);
    expect(error.reason).toBe("yanked");
    expect(error.message).toMatch(/1\.3\.0 was withdrawn by the publisher \(yanked\)/);
    expect(existsSync(join(dir, "Flotilla.dmg"))).toBe(false);
  });

  it("an expired link of a release still offered is asked for again once", async () => {
    const manager = await activated();
    const bytes = artifactBytes(2048);
    files.files.set("b.dmg", bytes);
    const stale = await signedUpdate(release.key, bytes, `${files.url}/files/expired.dmg`);
    const fresh = { ...stale, download: { ...stale.download, url: `${files.url}/files/b.dmg` } };
    offer(stale, fresh);
    const offered = (await manager.checkForUpdate(check))!;
    await manager.downloadUpdate(offered, join(dir, "Flotilla.dmg"));
    expect((await readFile(join(dir, "Flotilla.dmg"))).equals(bytes)).toBe(true);
  });

  it("an app with no release key installs nothing", async () => {
    const bytes = artifactBytes(2048);
    const update = await signedUpdate(release.key, bytes, `${files.url}/files/a.dmg`);
    await expect(downloadUpdate(update, join(dir, "x"), { releasePublicKeys: [] })).rejects.toMatchObject({
      reason: "no_keys",
    });
    expect(
      () =>
        new LicenseManager({
          client: new LicenseClient({ baseUrl: server.url, trustedKeys: server.trustedKeys }),
          store: new MemoryStateStore(),
          releasePublicKeys: ["not a key"],
        }),
    ).toThrow(LicenseInputError);
  });
});

describe("compareVersions", () => {
  it("follows SemVer 2.0.0 precedence", () => {
    const ordered = [
      "1.0.0-alpha",
      "1.0.0-alpha.1",
      "1.0.0-alpha.beta",
      "1.0.0-beta",
      "1.0.0-beta.2",
      "1.0.0-beta.11",
      "1.0.0-rc.1",
      "1.0.0",
      "1.0.1",
      "1.10.0",
      "2.0.0",
    ];
    for (let i = 1; i < ordered.length; i++) {
      expect(compareVersions(ordered[i - 1]!, ordered[i]!)).toBe(-1);
      expect(compareVersions(ordered[i]!, ordered[i - 1]!)).toBe(1);
    }
    expect(compareVersions("1.2.3+build.5", "1.2.3")).toBe(0);
  });
});
