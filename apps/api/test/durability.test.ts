/**
 * Crash safety: the real server on PGlite acknowledges signups, is killed with SIGKILL mid-load, and after a
 * restart every acknowledged signup is there.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validSignup } from "./fixtures";

const API_DIR = fileURLToPath(new URL("..", import.meta.url));
const SERVER = join(API_DIR, "dist/server.js");
const ADMIN = join(API_DIR, "dist/admin.js");
const PORT = 4100 + Math.floor(Math.random() * 800);
const BASE = `http://127.0.0.1:${PORT}`;

let dataDir: string;
const env = () => ({
  ...process.env,
  PORT: String(PORT),
  HOST: "127.0.0.1",
  LOG_LEVEL: "error",
  DATA_DIR: dataDir,
  SERVE_SITE: "false",
  DATABASE_URL: "",
  RATE_LIMIT_SIGNUP_PER_MINUTE: "100000",
});

async function startServer(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [SERVER], { env: env(), stdio: ["ignore", "ignore", "inherit"] });
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${BASE}/api/ready`)).ok) return child;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error("server did not become ready");
}

const exited = (child: ChildProcess) => new Promise((resolve) => child.once("exit", resolve));

async function signup(email: string): Promise<boolean> {
  try {
    const response = await fetch(`${BASE}/api/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(validSignup({ email })),
    });
    return response.ok;
  } catch {
    return false; // the connection died with the server: not acknowledged
  }
}

beforeAll(() => {
  if (!existsSync(SERVER) || !existsSync(ADMIN)) {
    spawnSync(process.execPath, [join(API_DIR, "scripts/build.mjs")], { stdio: "inherit" });
  }
  dataDir = mkdtempSync(join(tmpdir(), "flotilla-durability-"));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("crash safety on the embedded database", () => {
  it("keeps every acknowledged signup across a SIGKILL", async () => {
    const server = await startServer();
    const acknowledged: string[] = [];
    let next = 0;
    let killed = false;
    // Eight clients send signups in a loop; the server is killed while requests are in flight.
    const clients = Array.from({ length: 8 }, async () => {
      while (!killed && next < 2_000) {
        const email = `crash${next++}@example.com`;
        if (await signup(email)) acknowledged.push(email);
      }
    });
    while (acknowledged.length < 150) await new Promise((resolve) => setTimeout(resolve, 20));
    server.kill("SIGKILL");
    killed = true;
    await Promise.all([exited(server), ...clients]);
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);

    // Restart: the database recovers and serves again.
    const restarted = await startServer();
    expect(await signup("after-restart@example.com")).toBe(true);
    restarted.kill("SIGTERM");
    expect(await exited(restarted)).toBe(0); // graceful shutdown closes the database cleanly

    const exported = spawnSync(process.execPath, [ADMIN, "signups", "export", "--format", "json"], {
      env: env(),
      encoding: "utf8",
    });
    expect(exported.status).toBe(0);
    const stored = new Set((JSON.parse(exported.stdout) as { email: string }[]).map((row) => row.email));
    const lost = acknowledged.filter((email) => !stored.has(email));
    expect(lost).toEqual([]);
    expect(stored.has("after-restart@example.com")).toBe(true);
  }, 120_000);
});
