/**
 * The cluster suite's harness: a throw-away PostgreSQL database reached through a TCP proxy that can freeze every
 * connection (a stalled link), a PostgreSQL server of its own that can be restarted or stopped (the machine's is
 * shared), a Redis server of its own (so that it can be stopped, started, frozen and thawed mid-run), the real
 * topology from scripts/lib/cluster.mjs, and a mixed load generated with autocannon that records every acknowledged
 * write so that the database can be checked against it afterwards.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
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

/** Where Debian keeps PostgreSQL's server programs: POSTGRES_BIN, else the newest /usr/lib/postgresql/<major>/bin. */
function postgresBin(): string {
  if (process.env.POSTGRES_BIN) return process.env.POSTGRES_BIN;
  const root = "/usr/lib/postgresql";
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, "bin", "pg_ctl")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors.length === 0) {
    throw new Error(
      `no PostgreSQL server programs in ${root}/<major>/bin (apt-get install postgresql, or set POSTGRES_BIN)`,
    );
  }
  return join(root, majors[0]!, "bin");
}

const runningPostgresServers = new Set<() => void>();
// A run that ends without its afterAll (an exception, Ctrl-C) must not leave a server behind.
process.once("exit", () => {
  for (const stop of runningPostgresServers) stop();
});

/**
 * A PostgreSQL server of the suite's own on a loopback port, in a temporary folder (initdb, trust authentication), so
 * that a test can restart or stop it: the machine's server is shared with others and must never be. PostgreSQL
 * refuses to run as root, so as root (CI) every program runs as the `postgres` user, which owns the folder.
 * `restart()` is `pg_ctl restart -m fast` (every session ended, a shutdown checkpoint, a new postmaster); `stop()` and
 * `start()` a longer outage. Every wait is bounded; `destroy()` stops the server at once and deletes the folder.
 */
export async function privatePostgres(port: number) {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), "flotilla-pg-"));
  const data = join(dir, "data");
  const log = join(dir, "server.log");
  const asRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (asRoot) {
    const ids = ["-u", "-g"].map((flag) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
    if (!ids.every((id) => /^\d+$/.test(id))) throw new Error("running as root, but there is no postgres user");
    chownSync(dir, Number(ids[0]), Number(ids[1]));
  }
  /** Runs a server program (as `postgres` when root); rejects when it fails or has not finished within `timeoutMs`. */
  const run = (program: string, args: string[], timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const command = asRoot ? "runuser" : join(bin, program);
      const child = spawn(command, asRoot ? ["-u", "postgres", "--", join(bin, program), ...args] : args, {
        // The postmaster inherits nothing of ours: it must not hold a pipe that this process waits on.
        stdio: ["ignore", "ignore", "pipe"],
        cwd: dir,
      });
      let stderr = "";
      child.stderr.on("data", (chunk) => {
        stderr += String(chunk);
      });
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`${program} ${args.join(" ")} did not finish within ${timeoutMs} ms`));
      }, timeoutMs);
      child.once("exit", (code) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`${program} ${args.join(" ")} exited with ${code}: ${stderr.trim()}\n${tail(log)}`));
      });
    });
  const tail = (file: string) => {
    try {
      return readFileSync(file, "utf8").split("\n").slice(-15).join("\n");
    } catch {
      return "";
    }
  };
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`;
  const pgCtl = (args: string[]) => run("pg_ctl", ["-D", data, "-l", log, "-w", "-t", "60", ...args], 90_000);
  const stopNow = () => {
    const args = ["-D", data, "-m", "immediate", "-w", "-t", "20", "stop"];
    spawnSync(
      asRoot ? "runuser" : join(bin, "pg_ctl"),
      asRoot ? ["-u", "postgres", "--", join(bin, "pg_ctl"), ...args] : args,
      {
        stdio: "ignore",
        timeout: 30_000,
      },
    );
  };

  runningPostgresServers.add(stopNow);
  try {
    await run(
      "initdb",
      ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
      120_000,
    );
    await pgCtl(["-o", options, "start"]);
  } catch (error) {
    runningPostgresServers.delete(stopNow);
    stopNow();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    /** A URL of a database on this server (created by whoever uses it first: scripts/lib/cluster.mjs does). */
    url: (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    /** The server's own log (what it said when a test fails). */
    log,
    /** `pg_ctl restart -m fast`: resolves once the new server accepts connections. */
    restart: () => pgCtl(["-m", "fast", "restart"]),
    /** `pg_ctl stop -m fast`: every session is ended, the server checkpoints and exits; resolves once it has. */
    stop: () => pgCtl(["-m", "fast", "stop"]),
    /** Starts it again; resolves once it accepts connections. */
    start: () => pgCtl(["-o", options, "start"]),
    /** Stops it at once (whatever its state) and deletes its folder. */
    async destroy() {
      runningPostgresServers.delete(stopNow);
      await run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-t", "20", "stop"], 30_000).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
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
  /** Machines a validation answered VALID for on their first request: bound (LoadExtras.bindings). */
  bindings: { key: string; machine: string }[];
  /** 503 answers without Retry-After (the service's own 503 always carries one). */
  unavailableWithoutRetryAfter: number;
  signIns: { ok: number; failed: number };
}

/** What the load may add to its usual streams. */
export interface LoadExtras {
  /** A stream of heartbeats (POST /api/license/heartbeat) from the fixture's machines. */
  heartbeats?: boolean;
  /** A stream of validations of new machines on these licenses, each one a binding, at `rate` per second. */
  bindings?: { licenses: string[]; rate: number };
}

export function failed(tally: LoadTally): number {
  const serverErrors = Object.entries(tally.byStatus)
    .filter(([status]) => Number(status) >= 500)
    .reduce((sum, [, n]) => sum + n, 0);
  return serverErrors + tally.errors + tally.signIns.failed;
}

function record(tally: LoadTally, status: number, headers: IncomingHttpHeaders = {}) {
  tally.byStatus[status] = (tally.byStatus[status] ?? 0) + 1;
  if (status === 503 && !Object.keys(headers).some((name) => name.toLowerCase() === "retry-after")) {
    tally.unavailableWithoutRetryAfter += 1;
  }
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
  extras: LoadExtras = {},
): Promise<LoadTally> {
  const tally: LoadTally = {
    sent: 0,
    byStatus: {},
    errors: 0,
    maxLatencyMs: 0,
    signups: [],
    usageExecutions: new Map(),
    bindings: [],
    unavailableWithoutRetryAfter: 0,
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
          onResponse: (status: number, _body: string, context: object, headers?: IncomingHttpHeaders) => {
            record(tally, status, headers);
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
          onResponse: (status: number, _body: string, _context: object, headers?: IncomingHttpHeaders) =>
            record(tally, status, headers),
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
          onResponse: (status: number, _body: string, context: object, headers?: IncomingHttpHeaders) => {
            record(tally, status, headers);
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
          onResponse: (status: number, _body: string, _context: object, headers?: IncomingHttpHeaders) =>
            record(tally, status, headers),
        },
      ],
    }),
  ];
  if (extras.heartbeats) {
    streams.push(
      autocannon({
        ...common,
        requests: [
          {
            method: "POST",
            path: "/api/license/heartbeat",
            headers: json,
            setupRequest: (request: autocannon.Request) => {
              const license = pick();
              return { ...request, body: JSON.stringify({ license_key: license.key, machine_id: license.machine }) };
            },
            onResponse: (status: number, _body: string, _context: object, headers?: IncomingHttpHeaders) =>
              record(tally, status, headers),
          },
        ],
      }),
    );
  }
  const bindings = extras.bindings;
  if (bindings && bindings.licenses.length > 0) {
    let b = 0;
    streams.push(
      autocannon({
        ...common,
        connections: 2,
        overallRate: bindings.rate,
        requests: [
          {
            method: "POST",
            path: "/api/license/validate",
            setupRequest: (request: autocannon.Request, context: object) => {
              // Each request a machine never seen before: a VALID answer is a binding written before it was sent.
              const key = bindings.licenses[b % bindings.licenses.length]!;
              const machine = `bind-${fixture.run}-${b++}`;
              Object.assign(context, { key, machine });
              return { ...request, headers: json, body: JSON.stringify({ license_key: key, machine_id: machine }) };
            },
            onResponse: (status: number, body: string, context: object, headers?: IncomingHttpHeaders) => {
              record(tally, status, headers);
              if (status !== 200) return;
              try {
                if (JSON.parse(body).data?.code === "VALID")
                  tally.bindings.push(context as { key: string; machine: string });
              } catch {}
            },
          },
        ],
      }),
    );
  }
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

/** One event as a webhook receiver saw it: when it first arrived, how many times, and what it was about. */
export interface ReceivedEvent {
  type: string;
  /** When the service recorded the event (the payload's `created`), ms since the epoch. */
  createdAt: number;
  firstAt: number;
  count: number;
  email: string | null;
}

/**
 * A webhook receiver on a loopback port (the cluster's instances are loopback-only, so they may call it): answers
 * 200 to every delivery and records each event by its id, however many times it comes (at least once).
 */
export async function webhookReceiver() {
  const events = new Map<string, ReceivedEvent>();
  let deliveries = 0;
  const server = createHttpServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += String(chunk);
    });
    request.on("end", () => {
      try {
        // biome-ignore lint/suspicious/noExplicitAny: a webhook payload, read field by field.
        const payload = JSON.parse(body) as any;
        deliveries += 1;
        const seen = events.get(payload.id);
        if (seen) seen.count += 1;
        else {
          const email = payload.data?.after?.email;
          events.set(payload.id, {
            type: payload.type,
            createdAt: Date.parse(payload.created),
            firstAt: Date.now(),
            count: 1,
            email: typeof email === "string" ? email : null,
          });
        }
        response.writeHead(200).end();
      } catch {
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    events,
    get deliveries() {
      return deliveries;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
