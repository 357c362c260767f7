/**
 * The cluster suite's harness: a throw-away PostgreSQL database reached through a TCP proxy that can freeze every
 * connection (a stalled link), a Redis server of its own (so that it can be stopped, started, frozen and thawed
 * mid-run), the real topology from scripts/lib/cluster.mjs, and a mixed load generated with autocannon that records
 * every acknowledged write so that the database can be checked against it afterwards.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import pg from "pg";
// The cluster library is plain JavaScript shared with `npm run cluster`.
// @ts-expect-error -- untyped .mjs module
import * as clusterScripts from "../../../../scripts/lib/cluster.mjs";
import { devSignInOverHttp } from "../helpers/dev-sign-in-http";

const { ensurePortsFree, portIsFree, startCluster, UPSTREAM_FAIL_TIMEOUT_SECONDS } = clusterScripts;

/** How long nginx counts a failed instance out (scripts/lib/cluster.mjs): a rolling restart waits it out. */
export const upstreamFailTimeoutSeconds: number = UPSTREAM_FAIL_TIMEOUT_SECONDS;

export interface Instance {
  name: string;
  port: number;
  url: string;
  alive: boolean;
  start(): Promise<Instance>;
  /** SIGSTOP / SIGCONT: the process stops answering, its kernel still accepts connections. */
  freeze(): void;
  thaw(): void;
  kill(signal?: NodeJS.Signals): Promise<unknown>;
}
export interface Cluster {
  url: string;
  publicOrigin: string;
  instances: Instance[];
  runtime: string;
  stop(): Promise<void>;
}

/**
 * A suite file's base port; it uses base + each of `offsets` (nginx, the instances, its Redis…), and the files run one
 * after another with offsets of their own. CLUSTER_TEST_PORT fixes the base (a machine where several clusters run
 * side by side: give each its own range); else a random base in 18100–18899 whose ports are all free, so that a
 * second suite, `npm run cluster` (8080…) or the benchmark (3900…) is not joined by mistake.
 */
export async function basePort(offsets: number[]): Promise<number> {
  const highest = Math.max(...offsets);
  const fixed = process.env.CLUSTER_TEST_PORT;
  if (fixed) {
    const base = Number(fixed);
    if (!Number.isInteger(base) || base < 1024 || base + highest > 65_535) {
      throw new Error(`CLUSTER_TEST_PORT must be a port from 1024 to ${65_535 - highest}`);
    }
    await ensurePortsFree(offsets.map((offset) => base + offset));
    return base;
  }
  for (let attempt = 0; attempt < 20; attempt++) {
    const base = 18_100 + Math.floor(Math.random() * 800);
    const free = await Promise.all(offsets.map((offset) => portIsFree(base + offset)));
    if (free.every(Boolean)) return base;
  }
  throw new Error("No free ports for the cluster suite around 18100–18999: set CLUSTER_TEST_PORT");
}

export const ADMIN_DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A database of the suite's own on the machine's PostgreSQL; dropped afterwards. */
export async function scratchDatabase(): Promise<{ url: string; query: pg.Client["query"]; drop(): Promise<void> }> {
  const name = `flotilla_cluster_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  return {
    url: url.toString(),
    query: client.query.bind(client) as pg.Client["query"],
    drop: async () => {
      await client.end();
      const dropper = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  };
}

/**
 * The instances' way to the database: a TCP proxy in a process of its own (tcp-proxy.mjs) whose `freeze()` (SIGSTOP)
 * stalls every link, both ways, with the connections held open, until `thaw()` (SIGCONT).
 */
export async function databaseLink(databaseUrl: string, port: number) {
  const target = new URL(databaseUrl);
  const child = spawn(
    process.execPath,
    [fileURLToPath(new URL("./tcp-proxy.mjs", import.meta.url)), String(port), target.hostname, target.port || "5432"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const listening = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 10_000);
    child.stdout!.once("data", () => {
      clearTimeout(timer);
      resolve(true);
    });
    child.once("exit", () => resolve(false));
  });
  if (!listening) throw new Error(`the database proxy did not listen on ${port}`);
  return {
    through(url: string) {
      const parsed = new URL(url);
      parsed.hostname = "127.0.0.1";
      parsed.port = String(port);
      return parsed.toString();
    },
    freeze: () => child.kill("SIGSTOP"),
    thaw: () => child.kill("SIGCONT"),
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGCONT");
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * A Redis server of the suite's own, on a loopback port: `stop()` and `start()` play an outage, `freeze()` and
 * `thaw()` a Redis that stops answering (SIGSTOP, SIGCONT) with its connections open.
 */
export function scratchRedis(port: number) {
  let child: ChildProcess | null = null;
  const dir = mkdtempSync(join(tmpdir(), "flotilla-redis-"));
  const api = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(
        "redis-server",
        ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
        { stdio: "ignore" },
      );
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const ok = await new Promise<boolean>((resolve) => {
          const probe = spawn("redis-cli", ["-p", String(port), "ping"], { stdio: ["ignore", "pipe", "ignore"] });
          let out = "";
          probe.stdout.on("data", (chunk) => {
            out += String(chunk);
          });
          probe.on("exit", () => resolve(out.trim() === "PONG"));
        });
        if (ok) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`redis-server did not start on ${port}`);
    },
    freeze() {
      child?.kill("SIGSTOP");
    },
    thaw() {
      child?.kill("SIGCONT");
    },
    async stop() {
      if (!child || child.exitCode !== null) return;
      child.kill("SIGCONT");
      const exited = new Promise((resolve) => child!.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    },
  };
  return api;
}

export async function bootCluster(options: {
  port: number;
  databaseUrl: string;
  redisUrl: string;
  env?: Record<string, string>;
}): Promise<Cluster> {
  return startCluster({
    instances: 3,
    port: options.port,
    basePort: options.port + 1,
    databaseUrl: options.databaseUrl,
    redisUrl: options.redisUrl,
    runtimeDir: mkdtempSync(join(tmpdir(), "flotilla-cluster-")),
    log: () => {},
    env: { LOG_LEVEL: "warn", ...options.env },
  }) as Promise<Cluster>;
}

// ── HTTP ──────────────────────────────────────────────────────────────────────────────────────────────

export async function call(
  base: string,
  path: string,
  init: { method?: string; body?: unknown; token?: string; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: answers of several endpoints, read field by field.
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: response.status, headers: response.headers, json };
}

/** A customer with a free license, through the given door (nginx or one instance). */
export async function licensedCustomer(base: string, email: string) {
  const token = await devSignInOverHttp(base, { email, name: email.split("@")[0]! });
  const created = await call(base, "/api/customer/licenses", { body: { tier: "free" }, token });
  if (created.status !== 200)
    throw new Error(`license creation failed: ${created.status} ${JSON.stringify(created.json)}`);
  return { token, key: created.json.data.license.license_key as string };
}

// ── Mixed load ────────────────────────────────────────────────────────────────────────────────────────

export interface LoadTally {
  sent: number;
  byStatus: Record<string, number>;
  /** Connection errors and timeouts at the client. */
  errors: number;
  /** The slowest single answer of the load's request streams (autocannon), in ms. */
  maxLatencyMs: number;
  signups: string[];
  usageExecutions: Map<string, number>;
  signIns: { ok: number; failed: number };
}

export function failed(tally: LoadTally): number {
  const serverErrors = Object.entries(tally.byStatus)
    .filter(([status]) => Number(status) >= 500)
    .reduce((sum, [, n]) => sum + n, 0);
  return serverErrors + tally.errors + tally.signIns.failed;
}

function record(tally: LoadTally, status: number) {
  tally.byStatus[status] = (tally.byStatus[status] ?? 0) + 1;
}

/**
 * Signups, validations, usage reports (each with an Idempotency-Key, as the SDK sends them), dashboard reads and
 * sign-ins, for `seconds`, through `base` — at a bounded total rate the 2-core machine can carry.
 */
export async function mixedLoad(
  base: string,
  fixture: { licenses: { token: string; key: string; machine: string }[]; run: string },
  seconds: number,
  ratePerStream = 40,
): Promise<LoadTally> {
  const tally: LoadTally = {
    sent: 0,
    byStatus: {},
    errors: 0,
    maxLatencyMs: 0,
    signups: [],
    usageExecutions: new Map(),
    signIns: { ok: 0, failed: 0 },
  };
  let n = 0;
  // The client gives up after 30 s, as the SDK does: every bound of the service and of nginx is well below it.
  const common = { url: base, duration: seconds, connections: 4, overallRate: ratePerStream, timeout: 30 };
  const json = { "content-type": "application/json" };
  const pick = () => fixture.licenses[n++ % fixture.licenses.length]!;
  type Ctx = Record<string, unknown>;
  const streams = [
    autocannon({
      ...common,
      requests: [
        {
          method: "POST",
          path: "/api/signup",
          setupRequest: (request: autocannon.Request, context: object) => {
            const email = `${fixture.run}-${n++}@example.com`;
            (context as Ctx).email = email;
            return {
              ...request,
              // Many people, not one address: signups are limited per address (everything here is loopback, so
              // nginx's trusted hop passes the client's own X-Forwarded-For on).
              headers: { ...json, "x-forwarded-for": `198.51.${Math.floor(n / 250) % 250}.${n % 250}` },
              body: JSON.stringify({
                email,
                name: "Cluster Load",
                role: "Tech Lead",
                ai_experience: "Advanced - Regularly use AI for complex tasks",
                platform: "macOS Desktop - Native app for macOS (beta now)",
              }),
            };
          },
          onResponse: (status: number, _body: string, context: object) => {
            record(tally, status);
            if (status === 200) tally.signups.push((context as Ctx).email as string);
          },
        },
      ],
    }),
    autocannon({
      ...common,
      requests: [
        {
          method: "POST",
          path: "/api/license/validate",
          headers: json,
          setupRequest: (request: autocannon.Request) => {
            const license = pick();
            return { ...request, body: JSON.stringify({ license_key: license.key, machine_id: license.machine }) };
          },
          onResponse: (status: number) => record(tally, status),
        },
      ],
    }),
    autocannon({
      ...common,
      requests: [
        {
          method: "POST",
          path: "/api/license/usage",
          setupRequest: (request: autocannon.Request, context: object) => {
            const license = pick();
            const executions = 1 + (n % 3);
            Object.assign(context, { key: license.key, executions });
            return {
              ...request,
              headers: { ...json, "idempotency-key": randomUUID() },
              body: JSON.stringify({ license_key: license.key, machine_id: license.machine, executions }),
            };
          },
          onResponse: (status: number, _body: string, context: object) => {
            record(tally, status);
            if (status === 200) {
              const { key, executions } = context as { key: string; executions: number };
              tally.usageExecutions.set(key, (tally.usageExecutions.get(key) ?? 0) + executions);
            }
          },
        },
      ],
    }),
    autocannon({
      ...common,
      requests: [
        {
          method: "GET",
          path: "/api/customer/dashboard",
          setupRequest: (request: autocannon.Request) => ({
            ...request,
            headers: { authorization: `Bearer ${pick().token}` },
          }),
          onResponse: (status: number) => record(tally, status),
        },
      ],
    }),
  ];
  // Sign-ins: several requests each, through whichever instances nginx picks for each step.
  const signIns = (async () => {
    const deadline = Date.now() + seconds * 1000;
    for (let i = 0; Date.now() < deadline; i++) {
      try {
        await devSignInOverHttp(base, { email: `${fixture.run}-signin-${i}@example.com`, name: "Load Sign-in" });
        tally.signIns.ok += 1;
      } catch {
        tally.signIns.failed += 1;
        // A person tries again after a moment, not in a tight loop.
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  })();
  const results = await Promise.all(streams);
  await signIns;
  for (const result of results) {
    tally.sent += result.requests.sent;
    tally.errors += result.errors + result.timeouts;
    tally.maxLatencyMs = Math.max(tally.maxLatencyMs, result.latency.max);
  }
  tally.sent += tally.signIns.ok + tally.signIns.failed;
  return tally;
}

export function describeTally(label: string, tally: LoadTally): string {
  const statuses = Object.entries(tally.byStatus)
    .map(([status, count]) => `${status}×${count}`)
    .join(" ");
  return `${label}: ${tally.sent} requests sent, ${failed(tally)} failed (${tally.errors} connection errors/timeouts, statuses ${statuses}; sign-ins ${tally.signIns.ok} ok, ${tally.signIns.failed} failed); slowest answer ${(tally.maxLatencyMs / 1000).toFixed(1)} s`;
}

/** Polls `until` every 100 ms for up to `withinMs`; how long it took (ms), or Infinity. */
export async function timeUntil(until: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    try {
      if (await until()) return Date.now() - started;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Number.POSITIVE_INFINITY;
}

/** One readiness probe with a bound of its own (the probe must answer within 1.5 s whatever its peers do). */
export async function readiness(url: string) {
  const started = Date.now();
  const response = await fetch(`${url}/api/ready`, { signal: AbortSignal.timeout(5_000) });
  // biome-ignore lint/suspicious/noExplicitAny: the readiness body, read field by field.
  const body = (await response.json()) as any;
  return { status: response.status, checks: body.checks ?? {}, ms: Date.now() - started };
}

/** The admin CLI as an operator runs it (the built dist/admin.js); resolves when it has exited, with what it said. */
export async function adminCli(args: string[], env: { DATABASE_URL: string; REDIS_URL: string }) {
  const started = Date.now();
  const child = spawn(process.execPath, [fileURLToPath(new URL("../../dist/admin.js", import.meta.url)), ...args], {
    env: { ...process.env, ...env, LOG_LEVEL: "silent" },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 30_000,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, stdout, stderr, ms: Date.now() - started };
}

/** One figure from an instance's /metrics (the first sample of `name`), or null when it does not answer. */
export async function metric(instanceUrl: string, name: string): Promise<number | null> {
  try {
    const text = await (await fetch(`${instanceUrl}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
    const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text);
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}
