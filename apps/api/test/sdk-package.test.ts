/**
 * The SDK as a desktop app's developer gets it (docs/decisions/0043): `npm pack` of packages/license-client, installed
 * from the tarball into a fresh project outside the workspace, a strict TypeScript program type-checked against its
 * bundled types (moduleResolution nodenext) and run against this service on a loopback port — activate, heartbeat,
 * validate, verify the stored license offline with the key passed in, an execution lease (start, heartbeat, a second
 * machine refused with ExecutionLimitError, end, then runExecution), deactivate. Then the same
 * installed JavaScript bundled with the keys defined the documented way, and with none (fails closed).
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { build } from "esbuild";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

const run = promisify(execFile);
const PACKAGE = fileURLToPath(new URL("../../../packages/license-client/", import.meta.url));

let app: FastifyInstance;
let close: () => Promise<void>;
let baseUrl: string;
let dir: string;

beforeAll(async () => {
  ({ app, close } = await createTestApp());
  baseUrl = await app.listen({ port: 0, host: "127.0.0.1" });
  dir = await mkdtemp(join(tmpdir(), "flotilla-sdk-package-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await close();
});

/** The desktop app: strict TypeScript against the installed package, as its README shows it. */
const PROGRAM = `
import {
  type Execution,
  type ExecutionEnd,
  ExecutionLimitError,
  FileStateStore,
  LicenseClient,
  LicenseInputError,
  LicenseManager,
  MemoryStateStore,
  trustedKey,
  verifyLicenseToken,
  type LicenseCheck,
} from "@flotilla/license-client";

const [server, licenseKey, x, statePath] = process.argv.slice(2) as [string, string, string, string];
const trustedKeys = [trustedKey(x)];
const manager = new LicenseManager({
  client: new LicenseClient({ baseUrl: server, trustedKeys }),
  store: new FileStateStore(statePath),
});

const activation = await manager.activate(licenseKey);
const heartbeat: LicenseCheck = await manager.heartbeat();
const validation = await manager.validate();
const offline = await manager.verifyOffline();
const state = await manager.state();
// The stored token on its own, as an app checks it with no manager at hand.
const tokenVerdict = await verifyLicenseToken(state!.token!, trustedKeys, { licenseKey, machineId: state!.machine_id });

// An execution lease: start, a heartbeat, a second machine refused while it runs, end; then runExecution.
const execution: Execution = await manager.startExecution({ feature: "code-review" });
await execution.heartbeat();
const second = new LicenseManager({
  client: new LicenseClient({ baseUrl: server, trustedKeys }),
  store: new MemoryStateStore(),
  machineId: () => "sdk-package-second-machine",
});
await second.activate(licenseKey);
let refusal: { limit: number; holders: number; oldest: string; message: string } | null = null;
try {
  await second.runExecution(() => "never");
} catch (error) {
  if (error instanceof ExecutionLimitError) {
    refusal = {
      limit: error.limit,
      holders: error.running.length,
      oldest: error.oldestExpiresAt.toISOString(),
      message: error.message,
    };
  }
}
const ended: ExecutionEnd = await execution.end();
const afterwards: string = await second.runExecution(async (running) => (running.signal.aborted ? "lost" : "ran"));
await second.deactivate();
const deactivation = await manager.deactivate();

let withoutKeys: string;
try {
  new LicenseManager({ client: new LicenseClient({ baseUrl: server }), store: new MemoryStateStore() });
  withoutKeys = "constructed";
} catch (error) {
  withoutKeys = error instanceof LicenseInputError ? error.message : String(error);
}

console.log(
  JSON.stringify({
    activated: activation.activated,
    heartbeat: { mode: heartbeat.mode, valid: heartbeat.valid, code: heartbeat.code },
    validation: { mode: validation.mode, valid: validation.valid, code: validation.code },
    offline: { mode: offline.mode, valid: offline.valid, source: offline.source ?? null },
    token_verified: tokenVerdict.ok,
    execution: { id: execution.id, mode: execution.mode, feature: execution.feature, expires_at: execution.expiresAt.toISOString() },
    refusal,
    ended: { confirmed: ended.confirmed, endReason: ended.endReason, reportAsUsage: ended.reportAsUsage },
    afterwards,
    deactivation,
    withoutKeys,
    token: state!.token,
    machineId: state!.machine_id,
  }),
);
`;

/** The same package bundled by the publisher with its keys defined (or none): verifies the token with what it holds. */
const PINNED_PROGRAM = `
import { BUILD_KIND, PINNED_KEYS, verifyLicenseToken } from "@flotilla/license-client";
const [token, licenseKey, machineId] = process.argv.slice(2);
const verdict = await verifyLicenseToken(token, PINNED_KEYS, { licenseKey, machineId });
console.log(JSON.stringify({ kind: BUILD_KIND, keys: PINNED_KEYS.length, ok: verdict.ok, reason: verdict.ok ? null : verdict.reason }));
`;

describe("the SDK as an npm package", () => {
  it("packs, installs outside the workspace, type-checks strictly and drives the service", async () => {
    const started = Date.now();
    // npm pack runs the prepack script: the library build.
    const packs = join(dir, "packs");
    await mkdir(packs);
    const { stdout: packed } = await run("npm", ["pack", "--json", "--pack-destination", packs], {
      cwd: PACKAGE,
      maxBuffer: 16 * 1024 * 1024,
    });
    const [pack] = JSON.parse(packed) as {
      filename: string;
      size: number;
      unpackedSize: number;
      files: { path: string }[];
    }[];
    expect(pack!.files.map((file) => file.path).sort()).toEqual([
      "CHANGELOG.md",
      "README.md",
      "dist/index.d.ts",
      "dist/index.js",
      "package.json",
    ]);
    console.info(
      `@flotilla/license-client tarball: ${pack!.size} B packed, ${pack!.unpackedSize} B unpacked, ${pack!.files.length} files`,
    );

    const project = join(dir, "desktop-app");
    await mkdir(project);
    await writeFile(
      join(project, "package.json"),
      JSON.stringify({ name: "desktop-app", private: true, type: "module" }),
    );
    await run(
      "npm",
      [
        "install",
        join(packs, pack!.filename),
        "typescript@5.9",
        "@types/node@^20.19",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
      ],
      { cwd: project, maxBuffer: 16 * 1024 * 1024 },
    );
    const installed = JSON.parse(
      await readFile(join(project, "node_modules/@flotilla/license-client/package.json"), "utf8"),
    );
    expect(installed).toMatchObject({
      version: "1.1.0",
      dependencies: { jose: expect.any(String), zod: expect.any(String) },
    });
    expect(Object.keys(installed.dependencies).sort()).toEqual(["jose", "zod"]);
    expect(installed.private).toBeUndefined();
    await expect(readFile(join(project, "node_modules/@flotilla/contracts/package.json"))).rejects.toThrow();

    await writeFile(join(project, "app.ts"), PROGRAM);
    await writeFile(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: "ES2022",
          module: "nodenext",
          moduleResolution: "nodenext",
          types: ["node"],
          outDir: "out",
        },
        files: ["app.ts"],
      }),
    );
    // Type errors fail here (tsc exits non-zero); the emitted JavaScript is what runs.
    await run(join(project, "node_modules/.bin/tsc"), ["-p", project], { cwd: project });

    const customer = await licensedCustomer(app, "sdk-package");
    // What the publisher gets from GET /api/license/public-key (or `admin keys public`): the JWK, its kid included.
    const jwk = (await app.inject("/api/license/public-key")).json().data.jwk as { x: string; kid: string };
    const x = jwk.x;
    const { stdout } = await run(
      process.execPath,
      [join(project, "out/app.js"), baseUrl, customer.key, x, join(project, "license.json")],
      { cwd: project },
    );
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({
      activated: true,
      heartbeat: { mode: "online", valid: true, code: "VALID" },
      validation: { mode: "online", valid: true, code: "VALID" },
      offline: { mode: "offline", valid: true, source: "token" },
      token_verified: true,
      execution: { mode: "online", feature: "code-review" },
      refusal: { limit: 1, holders: 1, message: expect.stringContaining("1 concurrent execution at once") },
      ended: { confirmed: true, endReason: "completed", reportAsUsage: false },
      afterwards: "ran",
      deactivation: { released: true, forgotten: true },
    });
    expect(result.refusal.oldest).toBe(result.execution.expires_at);
    // Both executions were counted by the server, once each, when their leases ended.
    const dashboard = (
      await app.inject({ url: "/api/customer/dashboard", headers: { authorization: `Bearer ${customer.token}` } })
    ).json().data;
    expect(dashboard.usage_analytics.total_executions).toBe(2);
    expect(dashboard.licenses[0].executions.running).toEqual([]);
    expect(result.withoutKeys).toMatch(/^No signing key is trusted: pass trustedKeys/);
    const machines = (
      await app.inject({
        url: `/api/license/machines/${customer.key}`,
        headers: { authorization: `Bearer ${customer.token}` },
      })
    ).json().data;
    expect(machines.current_count).toBe(0);

    // The publisher's own bundler defines the keys (README "Pinning your keys"); without the define nothing verifies.
    await writeFile(join(project, "pinned.mjs"), PINNED_PROGRAM);
    const bundle = (define: Record<string, string>, outfile: string) =>
      build({
        absWorkingDir: project,
        entryPoints: ["pinned.mjs"],
        outfile,
        bundle: true,
        platform: "node",
        format: "esm",
        define,
        logLevel: "silent",
      });
    const verify = async (file: string) =>
      JSON.parse(
        (await run(process.execPath, [join(project, file), result.token, customer.key, result.machineId])).stdout,
      );
    await bundle(
      { __FLOTILLA_PINNED_BUILD__: JSON.stringify({ kind: "production", keys: [jwk] }) },
      "pinned.bundle.mjs",
    );
    expect(await verify("pinned.bundle.mjs")).toEqual({ kind: "production", keys: 1, ok: true, reason: null });
    await bundle({}, "unpinned.bundle.mjs");
    expect(await verify("unpinned.bundle.mjs")).toEqual({
      kind: "unpinned",
      keys: 0,
      ok: false,
      reason: "untrusted_key",
    });

    console.info(`sdk-package: pack, install, type-check and run in ${Math.round((Date.now() - started) / 1000)} s`);
  }, 180_000);
});
