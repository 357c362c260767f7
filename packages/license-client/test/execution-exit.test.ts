/**
 * Leases open when a process exits (decision 0048): a real Node process holding an execution is sent SIGTERM or runs
 * out of work; the SDK ends the lease within its bounded wait and the process exits as it would have (by the signal,
 * or with its exit code). An app that handles the signal itself keeps control of how it exits.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EXIT_END_TIMEOUT_MS } from "../src/executions";
import { type FakeServer, KEYS, startFakeServer } from "./fake-server";

const SOURCE = fileURLToPath(new URL("../src/index.ts", import.meta.url));

/** The desktop app: starts an execution, then does what `mode` says. */
const PROGRAM = `
import { LicenseClient, LicenseManager, MemoryStateStore, trustedKey } from ${JSON.stringify(SOURCE)};
const [url, x, key, machine, mode] = process.argv.slice(2);
const manager = new LicenseManager({
  client: new LicenseClient({ baseUrl: url, trustedKeys: [trustedKey(x)], retries: 0 }),
  store: new MemoryStateStore(),
  machineId: () => machine,
});
await manager.activate(key);
const execution = await manager.startExecution({ feature: "exit-test" });
if (mode === "app-handler") {
  process.on("SIGTERM", () => {
    process.stdout.write("app handler\\n");
    setTimeout(() => process.exit(7), 1_000);
  });
}
if (mode === "forget") process.exitCode = 5;
else setInterval(() => {}, 60_000);
process.stdout.write(JSON.stringify({ id: execution.id }) + "\\n");
`;

let dir: string;
let bundle: string;
let server: FakeServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "flotilla-exit-"));
  await writeFile(join(dir, "app.mjs"), PROGRAM);
  bundle = join(dir, "app.bundle.mjs");
  await build({
    entryPoints: [join(dir, "app.mjs")],
    outfile: bundle,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "silent",
  });
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  server = await startFakeServer();
});
afterEach(async () => {
  await server.close();
});

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
}

/** Starts the app as `machine`; resolves once it holds its execution. */
async function startApp(machine: string, mode: "signal" | "forget" | "app-handler") {
  const child = spawn(process.execPath, [bundle, server.url, server.publicJwk.x!, KEYS.free, machine, mode], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  const exited = new Promise<Exit>((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal, stdout }));
  });
  const id = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      const line = stdout.split("\n").find((text) => text.startsWith("{"));
      if (line) resolve(JSON.parse(line).id);
    });
    child.on("exit", () => reject(new Error(`the app exited before it started an execution: ${stdout}`)));
  });
  return { child: child as ChildProcess, id, exited };
}

describe("leases open when the process exits", () => {
  it("SIGTERM: the lease is ended, then the process dies of the signal as it would have", async () => {
    const app = await startApp("exit-signal", "signal");
    expect(server.leases.get(app.id)?.ended).toBeNull();
    app.child.kill("SIGTERM");
    const exit = await app.exited;
    expect(exit).toMatchObject({ code: null, signal: "SIGTERM" });
    expect(server.leases.get(app.id)?.ended).toBe("completed");
  });

  it("beforeExit: an app that forgot to end its execution ends it and exits with its own code", async () => {
    const app = await startApp("exit-forget", "forget");
    const exit = await app.exited;
    expect(exit).toMatchObject({ code: 5, signal: null });
    expect(server.leases.get(app.id)?.ended).toBe("completed");
  });

  it("a server that does not answer holds the exit up for the bounded wait only", async () => {
    const app = await startApp("exit-hang", "signal");
    server.script(`/api/license/executions/${app.id}/end`, { hang: true });
    const started = Date.now();
    app.child.kill("SIGTERM");
    const exit = await app.exited;
    expect(exit.signal).toBe("SIGTERM");
    expect(Date.now() - started).toBeGreaterThanOrEqual(EXIT_END_TIMEOUT_MS - 100);
    expect(Date.now() - started).toBeLessThan(EXIT_END_TIMEOUT_MS + 3_000);
    expect(server.leases.get(app.id)?.ended).toBeNull();
  });

  it("an app with its own SIGTERM handler decides how it exits; the lease is ended meanwhile", async () => {
    const app = await startApp("exit-app-handler", "app-handler");
    app.child.kill("SIGTERM");
    const exit = await app.exited;
    expect(exit).toMatchObject({ code: 7, signal: null });
    expect(exit.stdout).toContain("app handler");
    expect(server.leases.get(app.id)?.ended).toBe("completed");
  });
});
