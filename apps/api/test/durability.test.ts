/**
 * Crash safety: the real server on PGlite takes a mixed load — signups, license validations that bind
 * machines, usage reports — is killed with SIGKILL mid-load, and after a restart every acknowledged write
 * is there: each signup, each machine binding, and the sum of acknowledged usage reports. (Validation
 * attempt counters are flushed once a second and may lose that last second, by design.)
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validSignup } from "./fixtures";
import { devSignInOverHttp } from "./helpers/dev-sign-in-http";

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
  PUBLIC_ORIGIN: BASE,
  RATE_LIMIT_SIGNUP_PER_MINUTE: "100000",
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: "100000",
  RATE_LIMIT_LICENSE_PER_MINUTE: "100000",
  RATE_LIMIT_LICENSE_KEY_PER_MINUTE: "100000",
});

async function postJson(path: string, body: unknown, token?: string): Promise<Response | null> {
  try {
    return await fetch(`${BASE}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  } catch {
    return null; // the connection died with the server: not acknowledged
  }
}

async function startServer(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [SERVER], { env: env(), stdio: ["ignore", "ignore", "inherit"] });
  // A first start creates the embedded database (~8 s on a quiet 2-core machine, several times that
  // while the other suites run in parallel): allow a minute.
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${BASE}/api/ready`)).ok) return child;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error("server did not become ready");
}

const exited = (child: ChildProcess) => new Promise((resolve) => child.once("exit", resolve));

beforeAll(() => {
  if (!existsSync(SERVER) || !existsSync(ADMIN)) {
    spawnSync(process.execPath, [join(API_DIR, "scripts/build.mjs")], { stdio: "inherit" });
  }
  dataDir = mkdtempSync(join(tmpdir(), "flotilla-durability-"));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("crash safety on the embedded database", () => {
  it("keeps every acknowledged signup, machine binding and usage report across a SIGKILL", async () => {
    const server = await startServer();
    // A customer with two licenses' worth of room: a free license (3 machines) per customer, so bind
    // machines across several customers to have bindings acknowledged during the load.
    const licenses: { token: string; key: string }[] = [];
    for (let i = 0; i < 4; i++) {
      const token = await devSignInOverHttp(BASE, { email: `owner${i}@example.com`, name: `Owner ${i}` });
      const created = await postJson("/api/customer/licenses", { tier: "free" }, token);
      const body = (await created!.json()) as { data: { license: { license_key: string } } };
      licenses.push({ token, key: body.data.license.license_key });
    }

    const acknowledgedSignups: string[] = [];
    const acknowledgedBindings = new Map<string, Set<string>>(licenses.map(({ key }) => [key, new Set()]));
    const acknowledgedUsage = new Map<string, number>(licenses.map(({ key }) => [key, 0]));
    let next = 0;
    let killed = false;
    const clients = Array.from({ length: 9 }, async (_, worker) => {
      while (!killed && next < 5_000) {
        const n = next++;
        const license = licenses[n % licenses.length]!;
        const machineId = `desktop-crash-${n % 3}`;
        if (worker % 3 === 0) {
          const email = `crash${n}@example.com`;
          const response = await postJson("/api/signup", validSignup({ email }));
          if (response?.ok) acknowledgedSignups.push(email);
        } else if (worker % 3 === 1) {
          const response = await postJson("/api/license/validate", { license_key: license.key, machine_id: machineId });
          const body = response?.ok
            ? ((await response.json().catch(() => null)) as { data?: { code?: string } } | null)
            : null;
          if (body?.data?.code === "VALID") {
            acknowledgedBindings.get(license.key)!.add(machineId);
          }
        } else {
          const executions = 1 + (n % 7);
          const response = await postJson("/api/license/usage", {
            license_key: license.key,
            machine_id: "desktop-crash-0",
            executions,
          });
          if (response?.ok) acknowledgedUsage.set(license.key, acknowledgedUsage.get(license.key)! + executions);
        }
      }
    });
    // The first machine of each license is bound before usage can be acknowledged for it.
    for (const { key } of licenses)
      await postJson("/api/license/validate", { license_key: key, machine_id: "desktop-crash-0" });
    for (const { key } of licenses) acknowledgedBindings.get(key)!.add("desktop-crash-0");
    const acknowledgedUsageReports = () => [...acknowledgedUsage.values()].filter((total) => total > 0).length;
    // Kill once enough writes are acknowledged; a bounded wait, so that a stalled server fails with figures.
    const deadline = Date.now() + 60_000;
    while (
      (acknowledgedSignups.length < 100 || acknowledgedUsageReports() < licenses.length) &&
      next < 5_000 &&
      Date.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(
      { signups: acknowledgedSignups.length >= 100, usage: acknowledgedUsageReports() },
      `acknowledged before the kill: ${acknowledgedSignups.length} signups, usage on ${acknowledgedUsageReports()} licenses, ${next} requests sent`,
    ).toEqual({ signups: true, usage: licenses.length });
    server.kill("SIGKILL");
    killed = true;
    await Promise.all([exited(server), ...clients]);
    expect(acknowledgedSignups.length).toBeGreaterThanOrEqual(100);

    // Restart: the database recovers and serves again.
    const restarted = await startServer();
    let bindingsAcknowledged = 0;
    let bindingsStored = 0;
    let usageAcknowledged = 0;
    let usageStored = 0;
    expect((await postJson("/api/signup", validSignup({ email: "after-restart@example.com" })))?.ok).toBe(true);
    for (const { token, key } of licenses) {
      const machines = await fetch(`${BASE}/api/license/machines/${key}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      const list = (await machines.json()) as { data: { machines: { machine_id: string }[] } };
      const bound = new Set(list.data.machines.map((m) => m.machine_id));
      expect([...acknowledgedBindings.get(key)!].filter((id) => !bound.has(id))).toEqual([]);
      bindingsAcknowledged += acknowledgedBindings.get(key)!.size;
      bindingsStored += bound.size;
      const dashboard = await fetch(`${BASE}/api/customer/dashboard`, {
        headers: { authorization: `Bearer ${token}` },
      });
      // Reports whose answer was lost in the crash may be stored too; acknowledged ones must all be there.
      const figures = (await dashboard.json()) as { data: { usage_analytics: { total_executions: number } } };
      expect(figures.data.usage_analytics.total_executions).toBeGreaterThanOrEqual(acknowledgedUsage.get(key)!);
      usageAcknowledged += acknowledgedUsage.get(key)!;
      usageStored += figures.data.usage_analytics.total_executions;
    }
    restarted.kill("SIGTERM");
    expect(await exited(restarted)).toBe(0); // graceful shutdown closes the database cleanly

    const exported = spawnSync(process.execPath, [ADMIN, "signups", "export", "--format", "json"], {
      env: env(),
      encoding: "utf8",
    });
    expect(exported.status).toBe(0);
    const stored = new Set((JSON.parse(exported.stdout) as { email: string }[]).map((row) => row.email));
    const lost = acknowledgedSignups.filter((email) => !stored.has(email));
    expect(lost).toEqual([]);
    expect(stored.has("after-restart@example.com")).toBe(true);
    console.log(
      `after SIGKILL: signups acknowledged ${acknowledgedSignups.length}, stored ${stored.size - 1} (${lost.length} lost); ` +
        `bindings acknowledged ${bindingsAcknowledged}, stored ${bindingsStored}; ` +
        `executions acknowledged ${usageAcknowledged}, stored ${usageStored}`,
    );
  }, 240_000);
});
