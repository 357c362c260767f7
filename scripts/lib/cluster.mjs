// The production topology on this machine: N instances of the built service on PostgreSQL and Redis, behind nginx
// (deploy/nginx.conf.template, the file deploy/compose.yaml uses too), loopback addresses only. Used by
// `npm run cluster` (scripts/cluster.mjs), the cluster suite and the cluster benchmark.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import pg from "pg";
import { APT_WAIT_FOR_LOCK, ROOT } from "./bootstrap.mjs";

export const DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/flotilla";
export const DEFAULT_REDIS_URL = "redis://127.0.0.1:6379";
/**
 * nginx takes an instance that failed a connection out for this long (passive health: nginx OSS has no probes). A
 * rolling restart waits this long after an instance is ready again before stopping the next one; otherwise nginx may
 * still count the restarted one out while the next goes down, and answer "no live upstreams" (deploy/compose.yaml
 * uses the same value).
 */
export const UPSTREAM_FAIL_TIMEOUT_SECONDS = 2;
const SERVER = join(ROOT, "apps/api/dist/server.js");
const TEMPLATE = join(ROOT, "deploy/nginx.conf.template");

/** nginx from Debian's packages: installed when missing and we are root, else a clear message. */
export function ensureNginx(log = console.error) {
  const found = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((path) => existsSync(path));
  if (found) return found;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot) {
    throw new Error("nginx is not installed. Install it (Debian/Ubuntu: sudo apt-get install -y nginx) and run again.");
  }
  log("Installing nginx from Debian's packages…");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const args of [
    [...APT_WAIT_FOR_LOCK, "update", "-qq"],
    [...APT_WAIT_FOR_LOCK, "install", "-y", "-qq", "--no-install-recommends", "nginx"],
  ]) {
    const result = spawnSync("apt-get", args, { stdio: "inherit", env });
    if (result.status !== 0) throw new Error(`apt-get ${args.join(" ")} failed`);
  }
  return "/usr/sbin/nginx";
}

/** Whether nothing listens on this loopback port (a listener on 0.0.0.0 or [::] counts: binding here would fail). */
export function portIsFree(port) {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen({ port, host: "127.0.0.1", exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/**
 * Throws unless every port is free. Two clusters on one machine (a developer's `npm run cluster`, the cluster suite,
 * the benchmark) must not share a port: an instance that cannot bind exits, but its readiness probe could meanwhile
 * be answered by the other cluster's instance on that port, and the run would test the wrong processes.
 */
export async function ensurePortsFree(ports) {
  const taken = [];
  for (const port of ports) if (!(await portIsFree(port))) taken.push(port);
  if (taken.length > 0) {
    throw new Error(
      `Port${taken.length > 1 ? "s" : ""} ${taken.join(", ")} on 127.0.0.1 already in use (another cluster?)`,
    );
  }
}

/** Creates the database named in the URL when it does not exist yet (connecting to the server's `postgres` database). */
export async function ensureDatabase(url) {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`Unusual database name in ${url}: create it yourself.`);
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (found.rowCount === 0) await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
}

/** A secret every instance shares: from the environment, else kept in data/ like `npm start` keeps its own. */
function sharedSecret(envValue, file, make) {
  if (envValue) return envValue;
  const path = join(ROOT, "data", file);
  if (!existsSync(path)) {
    mkdirSync(join(ROOT, "data"), { recursive: true });
    writeFileSync(path, make(), { mode: 0o600 });
  }
  return readFileSync(path, "utf8").trim();
}

export function renderNginxConf(values) {
  return readFileSync(TEMPLATE, "utf8").replace(/\$\{(FLOTILLA_[A-Z_]+)\}/g, (_match, name) => {
    if (!(name in values)) throw new Error(`deploy/nginx.conf.template needs ${name}`);
    return values[name];
  });
}

async function waitReady(url, timeoutMs, isAlive = () => true) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive()) return false;
    try {
      if ((await fetch(`${url}/api/ready`, { signal: AbortSignal.timeout(2_000) })).ok) return true;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/**
 * Starts the cluster and resolves once nginx answers. `instances[i]` can be killed, stopped and started again;
 * `stop()` ends everything (nginx first, then the instances with SIGTERM). `options.node`: the Node binary the
 * instances run on (this one's by default; bench:api passes the production line's).
 */
export async function startCluster(options = {}) {
  const count = options.instances ?? 3;
  const port = options.port ?? 8080;
  const basePort = options.basePort ?? port + 1;
  const databaseUrl = options.databaseUrl ?? DEFAULT_DATABASE_URL;
  const redisUrl = options.redisUrl ?? DEFAULT_REDIS_URL;
  const log = options.log ?? ((message) => console.error(message));
  const runtime = options.runtimeDir ?? join(ROOT, ".cache/cluster");
  const nginxBinary = ensureNginx(log);
  await ensurePortsFree([port, ...Array.from({ length: count }, (_, index) => basePort + index)]);
  mkdirSync(runtime, { recursive: true });
  // nginx's workers run as an unprivileged user when the master is root: they write their temp files here.
  chmodSync(runtime, 0o777);
  await ensureDatabase(databaseUrl);

  const publicOrigin = `http://localhost:${port}`;
  const sharedEnv = {
    ...process.env,
    HOST: "127.0.0.1",
    PUBLIC_ORIGIN: publicOrigin,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    TRUST_PROXY: "127.0.0.1",
    APP_SECRET: sharedSecret(process.env.APP_SECRET, "app-secret", () => randomBytes(32).toString("base64url")),
    LICENSE_SIGNING_KEY: sharedSecret(process.env.LICENSE_SIGNING_KEY, "license-signing-key.pem", () => {
      throw new Error("data/license-signing-key.pem is missing: run npm run build first");
    }),
    LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
    ...options.env,
  };

  const instances = Array.from({ length: count }, (_, index) => {
    const instancePort = basePort + index;
    const name = `api-${index + 1}`;
    const instance = {
      index,
      name,
      port: instancePort,
      url: `http://127.0.0.1:${instancePort}`,
      process: null,
      exited: Promise.resolve(null),
      get alive() {
        return instance.process !== null && instance.process.exitCode === null && instance.process.signalCode === null;
      },
      async start() {
        const output = createWriteStream(join(runtime, `${name}.log`), { flags: "a" });
        const child = spawn(options.node ?? process.execPath, ["--enable-source-maps", SERVER], {
          env: { ...sharedEnv, PORT: String(instancePort), INSTANCE_ID: name, DATA_DIR: join(runtime, name) },
          stdio: ["ignore", "pipe", "pipe"],
        });
        child.stdout.pipe(output);
        child.stderr.pipe(output);
        instance.process = child;
        instance.exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
        const ready = await waitReady(instance.url, options.readyTimeoutMs ?? 60_000, () => instance.alive);
        if (!ready) throw new Error(`${name} did not become ready (see ${join(runtime, `${name}.log`)})`);
        return instance;
      },
      /** Freezes the process (SIGSTOP): its kernel still accepts connections, the process answers nothing. */
      freeze() {
        if (instance.alive) instance.process.kill("SIGSTOP");
      },
      /** Lets a frozen process run again (SIGCONT). */
      thaw() {
        if (instance.alive) instance.process.kill("SIGCONT");
      },
      /** Sends a signal and waits for the exit (SIGTERM drains; SIGKILL is a crash). */
      async kill(signal = "SIGTERM") {
        if (!instance.alive) return instance.exited;
        // A frozen process would never act on the signal.
        instance.process.kill("SIGCONT");
        instance.process.kill(signal);
        return instance.exited;
      },
    };
    return instance;
  });

  const conf = join(runtime, "nginx.conf");
  writeFileSync(
    conf,
    renderNginxConf({
      FLOTILLA_LISTEN: `127.0.0.1:${port}`,
      FLOTILLA_UPSTREAMS: instances
        .map(
          (instance) => `server 127.0.0.1:${instance.port} max_fails=1 fail_timeout=${UPSTREAM_FAIL_TIMEOUT_SECONDS}s;`,
        )
        .join("\n    "),
      FLOTILLA_RUNTIME: runtime,
      FLOTILLA_ACCESS_LOG: join(runtime, "nginx-access.log"),
    }),
  );
  const check = spawnSync(nginxBinary, ["-t", "-q", "-p", runtime, "-c", conf], { encoding: "utf8" });
  if (check.status !== 0) throw new Error(`nginx rejected ${conf}:\n${check.stderr}`);

  log(`Starting ${count} instances on ${databaseUrl.replace(/\/\/[^@]*@/, "//")} and ${redisUrl}…`);
  await Promise.all(instances.map((instance) => instance.start()));
  const nginxLog = createWriteStream(join(runtime, "nginx.log"), { flags: "a" });
  const nginx = spawn(nginxBinary, ["-p", runtime, "-c", conf, "-g", "daemon off;"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  nginx.stdout.pipe(nginxLog);
  nginx.stderr.pipe(nginxLog);
  const nginxExited = new Promise((resolve) => nginx.once("exit", resolve));
  const url = `http://127.0.0.1:${port}`;
  if (!(await waitReady(url, 15_000, () => nginx.exitCode === null))) {
    throw new Error(`nginx did not answer on ${url} (see ${join(runtime, "nginx.log")})`);
  }

  let stopping = null;
  return {
    url,
    publicOrigin,
    instances,
    runtime,
    databaseUrl,
    redisUrl,
    /** nginx first (finishing what it carries), then every instance drains and exits. */
    stop() {
      stopping ??= (async () => {
        if (nginx.exitCode === null) nginx.kill("SIGQUIT");
        await Promise.race([nginxExited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
        if (nginx.exitCode === null) nginx.kill("SIGKILL");
        await Promise.all(instances.map((instance) => instance.kill("SIGTERM")));
      })();
      return stopping;
    },
  };
}
