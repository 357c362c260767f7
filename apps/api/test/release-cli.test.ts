/**
 * Distribution from both ends against the real service on a loopback port (issue 36): the operator's
 * `flotilla-license release keygen|publish|yank|promote` (the server trusts only the key keygen made), and the
 * desktop side, `update check|download` and the SDK's downloadUpdate (resumed, verified, refusing tampered bytes,
 * a downgrade and a yanked release).
 */

import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  LicenseClient,
  LicenseManager,
  MemoryStateStore,
  type TrustedKey,
  trustedKey,
  UpdateError,
} from "@flotilla/license-client";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliIO, main } from "../../../packages/license-client/src/cli";
import { licensedCustomer } from "./helpers/licensed-customer";
import { openPlatform, operator, rowsOf } from "./helpers/releases";
import { createTestApp, testConfig } from "./helpers/test-app";

const ADMIN = "release.cli@example.com";
let app: FastifyInstance;
let close: () => Promise<void>;
let baseUrl: string;
let dir: string;
let admin: string;
let operatorToken: string;
let pinned: TrustedKey[];
let publicKeyFile: string;
let customerKey: string;
const bytes = randomBytes(300 * 1024);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function cli(args: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const io: CliIO = {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env: { FLOTILLA_SERVER: baseUrl, ...env },
    client: { sleep: async () => {} },
    build: { kind: "development", trustedKeys: pinned },
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "flotilla-release-cli-"));
  // The operator makes the release key first; the server is configured to trust it (RELEASE_PUBLIC_KEYS).
  pinned = [];
  const keygen = await cli(["release", "keygen", "--out", join(dir, "keys"), "--json"]);
  expect(keygen.code, keygen.stderr).toBe(0);
  const generated = JSON.parse(keygen.stdout);
  publicKeyFile = generated.public_key_path;
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  const defaults = testConfig();
  ({ app, close } = await createTestApp({
    backgroundJobs: false,
    adminEmails: [ADMIN],
    publicOrigin: baseUrl,
    releases: { ...defaults.releases, publicKeys: generated.minisign_public_key },
  }));
  await app.listen({ port, host: "127.0.0.1" });
  pinned = [trustedKey((await app.inject("/api/license/public-key")).json().data.jwk.x)];
  ({ admin, token: operatorToken } = await operator(app, ADMIN));
  customerKey = (await licensedCustomer(app, "release-cli")).key;
  await writeFile(join(dir, "Flotilla-1.5.0.dmg"), bytes);
  await writeFile(join(dir, "notes.md"), "## 1.5.0\n\n- Faster sync\n");
});
afterAll(async () => {
  await close?.();
  await rm(dir, { recursive: true, force: true });
});

describe("release keygen", () => {
  it("writes the pair, prints the key as Sparkle, Tauri and the server want it, and never overwrites it", async () => {
    const first = await cli(["release", "keygen", "--out", join(dir, "k2")]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/Sparkle \(Info\.plist SUPublicEDKey\):\n {2}[A-Za-z0-9+/]{43}=\n/);
    expect(first.stdout).toMatch(/Tauri \(tauri\.conf\.json plugins\.updater\.pubkey\):/);
    const pem = await readFile(join(dir, "k2", "release-signing-key.pem"), "utf8");
    expect(pem).toMatch(/BEGIN PRIVATE KEY/);
    const again = await cli(["release", "keygen", "--out", join(dir, "k2")]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/never overwrites a release key/);
    expect(await readFile(join(dir, "k2", "release-signing-key.pem"), "utf8")).toBe(pem);
  });
});

describe("release publish, update check and download", () => {
  const publishArgs = [
    "release",
    "publish",
    "--version",
    "1.5.0",
    "--channel",
    "stable",
    "--notes",
    "", // filled below
    "--artifact",
    "", // filled below
  ];

  it("refuses to publish without a token, with a forged token, or with a key the server does not trust", async () => {
    const args = [...publishArgs];
    args[7] = join(dir, "notes.md");
    args[9] = `macos/universal=${join(dir, "Flotilla-1.5.0.dmg")}`;
    const key = join(dir, "keys", "release-signing-key.pem");
    const none = await cli([...args, "--key", key]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/FLOTILLA_OPERATOR_TOKEN/);
    const forged = await cli([...args, "--key", key], { FLOTILLA_OPERATOR_TOKEN: "flt_op_forgedforgedforged" });
    expect(forged.code).toBe(1);
    expect(forged.stderr).toMatch(/operator token is invalid/i);
    // Signed with another key (k2): the server's verification refuses the upload; nothing is published.
    const wrongKey = await cli([...args, "--key", join(dir, "k2", "release-signing-key.pem")], {
      FLOTILLA_OPERATOR_TOKEN: operatorToken,
    });
    expect(wrongKey.code).not.toBe(0);
    expect(wrongKey.stderr).toMatch(/signature does not verify/);
    const notes = (await app.inject("/api/releases/notes")).json().data;
    expect(notes).toEqual([]);
  });

  it("signs, uploads and publishes; the customer's app finds, downloads and verifies it", async () => {
    const args = [...publishArgs];
    args[7] = join(dir, "notes.md");
    args[9] = `macos/universal=${join(dir, "Flotilla-1.5.0.dmg")}`;
    const published = await cli([...args, "--key", join(dir, "keys", "release-signing-key.pem")], {
      FLOTILLA_OPERATOR_TOKEN: operatorToken,
    });
    expect(published.code, published.stderr).toBe(0);
    expect(published.stdout).toMatch(/Published 1\.5\.0 \(stable, published\)\./);
    // Not a TTY: the upload's progress is plain lines.
    expect(published.stderr).toMatch(/Uploading macos\/universal: 100 %/);

    const state = join(dir, "state.json");
    const common = ["--state", state, "--machine-id", "mac-cli-1"];
    expect((await cli(["activate", customerKey, ...common])).code).toBe(0);
    // Closed platform: nothing offered yet.
    const closed = await cli([
      "update",
      "check",
      "--current",
      "1.4.0",
      "--platform",
      "macos",
      "--arch",
      "aarch64",
      ...common,
    ]);
    expect(closed.code, closed.stderr).toBe(0);
    expect(closed.stdout).toMatch(/No update/);
    await openPlatform(app, admin, "macos");
    const check = await cli([
      "update",
      "check",
      "--current",
      "1.4.0",
      "--platform",
      "macos",
      "--arch",
      "aarch64",
      ...common,
    ]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toMatch(/Update available: 1\.5\.0 \(stable\), you have 1\.4\.0\./);
    const target = join(dir, "downloads");
    const download = await cli([
      "update",
      "download",
      "--current",
      "1.4.0",
      "--platform",
      "macos",
      "--arch",
      "aarch64",
      "--to",
      `${target}/`,
      "--release-key",
      publicKeyFile,
      ...common,
    ]);
    expect(download.code, download.stderr).toBe(0);
    expect(download.stdout).toMatch(/Downloaded and verified 1\.5\.0/);
    expect((await readFile(join(target, "Flotilla-1.5.0.dmg"))).equals(bytes)).toBe(true);
    // Without the release key the app embeds, nothing is downloaded.
    const noKey = await cli([
      "update",
      "download",
      "--current",
      "1.4.0",
      "--platform",
      "macos",
      "--arch",
      "aarch64",
      ...common,
    ]);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/No release public key/);
  });

  it("the SDK refuses bytes changed in storage, and a release yanked after the check", async () => {
    const manager = new LicenseManager({
      client: new LicenseClient({ baseUrl, trustedKeys: pinned }),
      store: new MemoryStateStore(),
      machineId: () => "mac-sdk-2",
      releasePublicKeys: [
        (await readFile(publicKeyFile, "utf8"))
          .split("\n")
          .filter((l) => !l.startsWith("#"))
          .join("\n"),
      ],
    });
    expect((await manager.activate(customerKey)).activated).toBe(true);
    const query = { currentVersion: "1.4.0", platform: "macos", arch: "universal" } as const;
    const update = await manager.checkForUpdate(query);
    expect(update?.version).toBe("1.5.0");
    // Someone with write access to the storage swaps bytes: the app installs nothing.
    const [row] = await rowsOf<{ storage_key: string }>(app, sql`select storage_key from release_artifacts limit 1`);
    const storage = app.releases.storage as unknown as { pathOf(key: string): string };
    const path = storage.pathOf(row!.storage_key);
    const evil = Buffer.from(bytes);
    evil[10] = (evil[10] as number) ^ 1;
    await writeFile(path, evil);
    const dest = join(dir, "sdk", "Flotilla.dmg");
    await expect(manager.downloadUpdate(update!, dest)).rejects.toMatchObject({ reason: "tampered" });
    expect(existsSync(dest)).toBe(false);
    await writeFile(path, bytes);

    // Downgrade: 1.5.0 is not newer than 1.6.0.
    await expect(manager.downloadUpdate(update!, dest, { currentVersion: "1.6.0" })).rejects.toMatchObject({
      reason: "downgrade",
    });

    const again = (await manager.checkForUpdate(query))!;
    const yank = await cli(["release", "yank", "1.5.0", "--reason", "crash on launch"], {
      FLOTILLA_OPERATOR_TOKEN: operatorToken,
    });
    expect(yank.code, yank.stderr).toBe(0);
    expect(yank.stdout).toMatch(/Yanked 1\.5\.0 \(stable, yanked\)\./);
    const error = await manager.downloadUpdate(again, dest).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpdateError);
    expect((error as UpdateError).reason).toBe("yanked");
    expect(existsSync(dest)).toBe(false);
    expect(await manager.checkForUpdate(query)).toBeNull();
  });

  it("promotes a beta release to stable", async () => {
    await writeFile(join(dir, "Flotilla-1.6.0-beta.1.dmg"), randomBytes(2048));
    const env = { FLOTILLA_OPERATOR_TOKEN: operatorToken };
    const beta = await cli(
      [
        "release",
        "publish",
        "--version",
        "1.6.0-beta.1",
        "--channel",
        "beta",
        "--artifact",
        `macos/universal=${join(dir, "Flotilla-1.6.0-beta.1.dmg")}`,
        "--key",
        join(dir, "keys", "release-signing-key.pem"),
      ],
      env,
    );
    expect(beta.code, beta.stderr).toBe(0);
    const promoted = await cli(["release", "promote", "1.6.0-beta.1", "--channel", "stable"], env);
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(promoted.stdout).toMatch(/Promoted 1\.6\.0-beta\.1 \(stable, published\)\./);
    const bad = await cli(["release", "promote", "1.6.0-beta.1", "--channel", "nightly"], env);
    expect(bad.code).toBe(2);
  });
});
