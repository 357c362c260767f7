// `npm run bench:scale`: does the cost stay flat as the data grows? (issue 35, decision 0058)
//   1. seeds two PostgreSQL databases from the app's migrations (bench/scale-seed.mjs): flotilla_scale_small
//      (scale 0.001) and flotilla_scale_large (--scale, default 1: 1 M licenses, 3.2 M machines, 61 M event rows);
//      a database already seeded at that scale is reused;
//   2. starts the built service against each in turn (background jobs off, loopback), with sessions written straight
//      into the database, and times BENCH_SAMPLES (60) sequential requests of every read and write the desktop app
//      sends, the customer dashboard's reads (a heavy customer's and a light one's) and the console's;
//   3. runs the culling job (20 minutes of backlog seeded, then again with nothing due) and retention, one run each as
//      the scheduler runs them, timing every batch (one transaction each);
//   4. prints small and large side by side, p50 and p99 in ms, and large ÷ small (p99).
// Flags: --scale <f> (the large seed's scale), --force (seed again), --skip-large (the small one only, a smoke run).
// Knobs: BENCH_SAMPLES (60), BENCH_PORT (3960), SCALE_DATABASE_HOST (postgres://postgres@127.0.0.1:5432).
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { checkNode, ensureBuild, ensureDependencies, ROOT } from "../scripts/lib/bootstrap.mjs";
import { importHarness } from "./lib/build-harness.mjs";
import { percentiles } from "./lib/execution-load.mjs";
import { ADMIN_CUSTOMER, licenseKeyOf, machineIdOf, SIZES, seed, seededCounts, seededEmail } from "./scale-seed.mjs";

const args = process.argv.slice(2);
const flagValue = (flag) => {
  const at = args.indexOf(flag);
  return at >= 0 ? args[at + 1] : undefined;
};
const LARGE_SCALE = Number(flagValue("--scale") ?? SIZES.large);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 60);
const PORT = Number(process.env.BENCH_PORT ?? 3960);
const BASE = `http://127.0.0.1:${PORT}`;

checkNode();
ensureDependencies();
ensureBuild();
const harness = await importHarness("scale");
const loadAtStart = loadavg();

const sizes = [
  { size: "small", scale: SIZES.small },
  ...(args.includes("--skip-large") ? [] : [{ size: "large", scale: LARGE_SCALE }]),
];
for (const entry of sizes) {
  Object.assign(
    entry,
    await seed({ size: entry.size, scale: entry.scale, force: args.includes("--force"), migrate: harness.migrate }),
  );
}

const sha256 = (text) => createHash("sha256").update(text).digest("hex");

/** A session for seeded customer `i`, written as sign-in writes one (only the token's SHA-256 is stored). */
async function sessionFor(db, i) {
  const token = randomBytes(32).toString("base64url");
  await db.query(
    `insert into sessions (token_hash, customer_id, expires_at, absolute_expires_at)
     values ($1, bench_uuid('c' || $2::int), now() + interval '1 day', now() + interval '1 day')`,
    [sha256(token), i],
  );
  return { authorization: `Bearer ${token}` };
}

async function request(method, path, headers, body) {
  const started = performance.now();
  const response = await fetch(`${BASE}${path}`, {
    method,
    headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  const ms = performance.now() - started;
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 300)}`);
  return { ms, json: JSON.parse(text) };
}

/** Times SAMPLES sequential calls of `call` (after 3 to warm up); each returns its ms. */
async function measure(call) {
  for (let i = 0; i < 3; i++) await call(i);
  const times = [];
  for (let i = 0; i < SAMPLES; i++) times.push(await call(i + 3));
  return percentiles(times);
}

async function startServer(url, adminEmail) {
  const dataDir = mkdtempSync(join(tmpdir(), "flotilla-bench-scale-"));
  const child = spawn(process.execPath, [join(ROOT, "apps/api/dist/server.js")], {
    env: {
      ...process.env,
      PORT: String(PORT),
      HOST: "127.0.0.1",
      PUBLIC_ORIGIN: BASE,
      LOG_LEVEL: "warn",
      DATA_DIR: dataDir,
      DATABASE_URL: url,
      REDIS_URL: "",
      ADMIN_EMAILS: adminEmail,
      BACKGROUND_JOBS: "false",
      SERVE_SITE: "false",
      RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: "100000",
      RATE_LIMIT_PER_MINUTE: "100000000",
      RATE_LIMIT_LICENSE_PER_MINUTE: "100000000",
      RATE_LIMIT_LICENSE_KEY_PER_MINUTE: "100000000",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    child.kill("SIGTERM");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  process.once("exit", () => child.kill("SIGKILL"));
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`${BASE}/api/ready`)).ok) return stop;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error("the server did not become ready");
}

/** Every measured read and write on one seeded database: { label: {p50, p99} }. */
async function measureSize(entry) {
  const N = seededCounts(entry.scale).licenses;
  // Customer 1 is the heaviest (about 1 % of every event table) and Ultra; a light one is Free with a running machine.
  const heavy = 1;
  let light = Math.floor(N / 2);
  while (light % 3 === 0 || light % 5 === 0 || light % 97 === 0 || light % 1000 === 1) light += 1;
  const db = new pg.Client({ connectionString: entry.url });
  await db.connect();
  const adminEmail = seededEmail(ADMIN_CUSTOMER);
  const admin = await sessionFor(db, ADMIN_CUSTOMER);
  const heavySession = await sessionFor(db, heavy);
  const lightSession = await sessionFor(db, light);
  const { rows: ids } = await db.query("select bench_uuid('c' || $1::int)::text as id", [heavy]);
  const stop = await startServer(entry.url, adminEmail);
  const results = {};
  try {
    const key = licenseKeyOf(light);
    const machine = machineIdOf(light, 1);
    const desktop = { license_key: key, machine_id: machine };
    results["validate (light license)"] = await measure(
      async () => (await request("POST", "/api/license/validate", {}, { ...desktop, app_version: "1.4.2" })).ms,
    );
    results["validate (heavy license)"] = await measure(
      async () =>
        (
          await request(
            "POST",
            "/api/license/validate",
            {},
            { license_key: licenseKeyOf(heavy), machine_id: machineIdOf(heavy, 1), app_version: "1.4.2" },
          )
        ).ms,
    );
    results.heartbeat = await measure(async () => (await request("POST", "/api/license/heartbeat", {}, desktop)).ms);
    results["usage report"] = await measure(
      async () =>
        (await request("POST", "/api/license/usage", {}, { ...desktop, executions: 1, feature: "agent-run" })).ms,
    );
    const starts = [];
    const heartbeats = [];
    const ends = [];
    for (let i = 0; i < SAMPLES + 3; i++) {
      const started = await request("POST", "/api/license/executions", {}, { ...desktop, feature: "agent-run" });
      const id = started.json.data.execution.id;
      const beat = await request("POST", `/api/license/executions/${id}/heartbeat`, {}, desktop);
      const ended = await request("POST", `/api/license/executions/${id}/end`, {}, desktop);
      if (i >= 3) {
        starts.push(started.ms);
        heartbeats.push(beat.ms);
        ends.push(ended.ms);
      }
    }
    results["execution start"] = percentiles(starts);
    results["execution heartbeat"] = percentiles(heartbeats);
    results["execution end"] = percentiles(ends);

    for (const [who, headers, i] of [
      ["heavy", heavySession, heavy],
      ["light", lightSession, light],
    ]) {
      results[`dashboard (${who})`] = await measure(
        async () => (await request("GET", "/api/customer/dashboard", headers)).ms,
      );
      results[`activity, first page (${who})`] = await measure(
        async () => (await request("GET", "/api/customer/activity?limit=20", headers)).ms,
      );
      results[`machines (${who})`] = await measure(
        async () => (await request("GET", `/api/license/machines/${licenseKeyOf(i)}`, headers)).ms,
      );
      results[`analytics 30 days (${who})`] = await measure(
        async () => (await request("GET", `/api/license/machines/${licenseKeyOf(i)}/analytics?days=30`, headers)).ms,
      );
    }
    // The heavy customer's activity, page 5 (following cursors).
    let cursor = null;
    for (let page = 0; page < 4; page++) {
      const { json } = await request(
        "GET",
        `/api/customer/activity?limit=20${cursor ? `&cursor=${cursor}` : ""}`,
        heavySession,
      );
      cursor = json.next_cursor;
    }
    results["activity, page 5 (heavy)"] = await measure(
      async () => (await request("GET", `/api/customer/activity?limit=20&cursor=${cursor}`, heavySession)).ms,
    );

    const q = (text) => encodeURIComponent(text);
    results["console: customers, first page"] = await measure(
      async () => (await request("GET", "/api/admin/customers?limit=50", admin)).ms,
    );
    results["console: customers, search one address"] = await measure(
      async () => (await request("GET", `/api/admin/customers?limit=50&q=${q(seededEmail(N - 7))}`, admin)).ms,
    );
    results["console: customers, search a name part"] = await measure(
      async () => (await request("GET", `/api/admin/customers?limit=50&q=okafor${N - 11}`, admin)).ms,
    );
    results["console: customers, search common"] = await measure(
      async () => (await request("GET", "/api/admin/customers?limit=50&q=garcia", admin)).ms,
    );
    results["console: customer detail (heavy)"] = await measure(
      async () => (await request("GET", `/api/admin/customers/${ids[0].id}`, admin)).ms,
    );
    results["console: audit, first page"] = await measure(
      async () => (await request("GET", "/api/admin/audit?limit=50", admin)).ms,
    );
    results["console: audit by actor email"] = await measure(
      async () => (await request("GET", `/api/admin/audit?limit=50&actor=${q(adminEmail)}`, admin)).ms,
    );
    results["console: audit by actor id (heavy)"] = await measure(
      async () => (await request("GET", `/api/admin/audit?limit=50&actor=${ids[0].id}`, admin)).ms,
    );
    results["console: audit by actor type"] = await measure(
      async () => (await request("GET", "/api/admin/audit?limit=50&actor=admin", admin)).ms,
    );
    results["console: audit of a license"] = await measure(
      async () =>
        (await request("GET", `/api/admin/audit?limit=50&license_id=${await licenseId(db, heavy)}`, admin)).ms,
    );
  } finally {
    await stop();
    await db.query(
      "update sessions set revoked_at = now() where revoked_at is null and customer_id in (bench_uuid('c' || $1::int), bench_uuid('c' || $2::int), bench_uuid('c' || $3::int))",
      [ADMIN_CUSTOMER, heavy, light],
    );
  }

  // The jobs, as if it were a minute after the seed: the culling backlog it holds (machines culled by an earlier
  // bench run at this same clock are made due again first), then a run with nothing due; retention once.
  const clock = new Date(entry.ref.getTime() + 60_000);
  await db.query(
    "update machines set status = 'active', inactive_since = null where status = 'inactive' and inactive_since = $1",
    [clock.toISOString()],
  );
  await db.end();
  // Runs until one finds nothing left (a backlog larger than a run's batches takes more than one), at most 5.
  const runs = [];
  for (let run = 0; run < 5; run++) {
    runs.push(await harness.jobRun(entry.url, "culling", clock));
    if (!runs.at(-1).result.culled && !runs.at(-1).result.forgotten) break;
  }
  const retention = await harness.jobRun(entry.url, "retention", clock);
  return {
    results,
    jobs: { culling: runs[0], ...(runs.length > 2 ? { more: runs.at(-2) } : {}), idle: runs.at(-1), retention },
  };
}

async function licenseId(db, i) {
  const { rows } = await db.query("select bench_uuid('l' || $1::int)::text as id", [i]);
  return rows[0].id;
}

const measured = [];
for (const entry of sizes) {
  console.log(`\nmeasuring ${entry.size} (scale ${entry.scale})…`);
  measured.push({ entry, ...(await measureSize(entry)) });
}

const fmt = (n) => (n === undefined ? "—" : n < 10 ? n.toFixed(2) : n.toFixed(1));
const [small, large] = measured;
console.log(
  `\nbench:scale — PostgreSQL, loopback, ${SAMPLES} sequential requests each, ms (load ${loadAtStart.map((n) => n.toFixed(1)).join(" ")} → ${loadavg()
    .map((n) => n.toFixed(1))
    .join(" ")})`,
);
console.log(
  `${"".padEnd(42)}${"small p50".padStart(10)}${"p99".padStart(8)}${large ? `${"large p50".padStart(11)}${"p99".padStart(8)}${"÷ p99".padStart(8)}` : ""}`,
);
for (const label of Object.keys(small.results)) {
  const a = small.results[label];
  const b = large?.results[label];
  console.log(
    `${label.padEnd(42)}${fmt(a.p50).padStart(10)}${fmt(a.p99).padStart(8)}${b ? `${fmt(b.p50).padStart(11)}${fmt(b.p99).padStart(8)}${(b.p99 / a.p99).toFixed(1).padStart(8)}` : ""}`,
  );
}
console.log("\nbackground jobs, one run each (batches are transactions), ms:");
for (const { entry, jobs } of measured) {
  for (const [name, run] of Object.entries(jobs)) {
    const batches = run.batches;
    const label = {
      culling: "culling (20 min backlog)",
      more: "culling (what was left)",
      idle: "culling (nothing due)",
      retention: "retention",
    }[name];
    console.log(
      `${entry.size.padEnd(6)} ${label.padEnd(26)} ${String(batches.length).padStart(3)} batches, slowest ${fmt(Math.max(0, ...batches)).padStart(7)}, total ${fmt(batches.reduce((s, n) => s + n, 0)).padStart(8)}  ${JSON.stringify(run.result)}`,
    );
  }
}
process.exit(0);
