// `npm run bench:api`: the licensing hot path, measured on loopback against the built server.
//   1. throughput of POST /api/license/validate as a ratio to a bare route (GET /api/health), same run;
//   2. validate latency percentiles at a fixed 1,000 requests per second;
//   3. the 30-day device analytics with 10 k vs 1 M validation events recorded.
// Embedded database by default; BENCH_DATABASE_URL=postgres://… runs the server on PostgreSQL.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { checkNode, ensureBuild, ensureDependencies, ROOT } from "../scripts/lib/bootstrap.mjs";

const PORT = Number(process.env.BENCH_PORT ?? 3900);
const BASE = `http://127.0.0.1:${PORT}`;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const FIXED_RATE = 1_000;
const FIXED_SECONDS = Number(process.env.BENCH_FIXED_SECONDS ?? 10);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? "";

checkNode();
ensureDependencies();
ensureBuild();

const dataDir = mkdtempSync(join(tmpdir(), "flotilla-bench-api-"));
const server = spawn(process.execPath, [join(ROOT, "apps/api/dist/server.js")], {
  env: {
    ...process.env,
    PORT: String(PORT),
    HOST: "127.0.0.1",
    PUBLIC_ORIGIN: BASE,
    LOG_LEVEL: "warn",
    DATA_DIR: dataDir,
    DATABASE_URL,
    RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: "100000",
    RATE_LIMIT_PER_MINUTE: "100000000",
    RATE_LIMIT_LICENSE_PER_MINUTE: "100000000",
    RATE_LIMIT_LICENSE_KEY_PER_MINUTE: "100000000",
  },
  stdio: "inherit",
});
process.on("exit", () => {
  server.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
});

for (let i = 0; i < 200; i++) {
  try {
    if ((await fetch(`${BASE}/api/ready`)).ok) break;
  } catch {}
  await new Promise((resolve) => setTimeout(resolve, 100));
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
function send(method, path, body) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.request(
      `${BASE}${path}`,
      {
        method,
        agent,
        headers: payload ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } : {},
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve({ status: response.statusCode, ms: performance.now() - started }));
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

/** Closed loop: CONCURRENCY workers send back to back for `seconds`; returns requests per second. */
async function closedLoop(makeRequest, seconds) {
  let count = 0;
  let failures = 0;
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const { status } = await makeRequest(count);
        if (status !== 200) failures++;
        count++;
      }
    }),
  );
  return { rps: count / seconds, failures };
}

/** Open loop at a fixed rate: a request every 1/rate s whatever the answers do; returns latency percentiles. */
async function fixedRate(makeRequest, rate, seconds) {
  const latencies = [];
  const pending = [];
  const total = rate * seconds;
  const started = performance.now();
  let failures = 0;
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(
      makeRequest(i).then(({ status, ms }) => {
        if (status !== 200) failures++;
        latencies.push(ms);
      }),
    );
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
  return { achievedRps: total / elapsed, p50: at(0.5), p99: at(0.99), max: latencies.at(-1), failures };
}

// The in-process analytics harness and the HTTP sign-in helper: TypeScript sources bundled on the fly.
const harness = join(ROOT, "apps/api/dist/bench-analytics.mjs");
await build({
  entryPoints: [join(ROOT, "bench/harness/analytics.ts")],
  outfile: harness,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  logLevel: "warning",
  plugins: [
    {
      name: "externalize-third-party",
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) =>
          args.path.startsWith("@flotilla/") ? undefined : { path: args.path, external: true },
        );
      },
    },
  ],
});
const harnessModule = await import(harness);
const token = await harnessModule.devSignInOverHttp(BASE, { email: "bench@example.com", name: "Bench" });
const created = await fetch(`${BASE}/api/customer/licenses`, {
  method: "POST",
  headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
  body: JSON.stringify({ tier: "free" }),
});
const licenseKey = (await created.json()).data.license.license_key;
const MACHINES = ["desktop-bench-1", "server-bench-2", "desktop-bench-3"];
const validate = (i) =>
  send("POST", "/api/license/validate", { license_key: licenseKey, machine_id: MACHINES[i % 3], app_version: "1.0.0" });
const bare = () => send("GET", "/api/health");

// Warm up both paths (JIT, caches, connection pool).
await closedLoop(bare, 1);
await closedLoop(validate, 1);

const bareResult = await closedLoop(bare, SECONDS);
const validateResult = await closedLoop(validate, SECONDS);
const ratio = validateResult.rps / bareResult.rps;
const fixed = await fixedRate(validate, FIXED_RATE, FIXED_SECONDS);

const { analyticsLatency } = harnessModule;
await analyticsLatency(1_000, DATABASE_URL || null); // warm-up: JIT and module loading are not the figure
const small = await analyticsLatency(10_000, DATABASE_URL || null);
const large = await analyticsLatency(1_000_000, DATABASE_URL || null);

const results = {
  database: DATABASE_URL ? "postgresql" : "pglite",
  concurrency: CONCURRENCY,
  seconds: SECONDS,
  bareRps: Math.round(bareResult.rps),
  validateRps: Math.round(validateResult.rps),
  validateToBareRatio: Number(ratio.toFixed(3)),
  fixedRate: {
    targetRps: FIXED_RATE,
    achievedRps: Math.round(fixed.achievedRps),
    p50Ms: Number(fixed.p50.toFixed(2)),
    p99Ms: Number(fixed.p99.toFixed(2)),
    maxMs: Number(fixed.max.toFixed(2)),
    failures: fixed.failures,
  },
  analytics: {
    events10k: { medianMs: Number(small.medianMs.toFixed(2)), p95Ms: Number(small.p95Ms.toFixed(2)) },
    events1M: {
      medianMs: Number(large.medianMs.toFixed(2)),
      p95Ms: Number(large.p95Ms.toFixed(2)),
      seedMs: Math.round(large.seedMs),
    },
    ratio1Mto10k: Number((large.medianMs / small.medianMs).toFixed(3)),
  },
  failures: bareResult.failures + validateResult.failures,
};

const targets = [
  ["validate / bare route throughput", `${(ratio * 100).toFixed(1)} %`, "≥ 25 %", ratio >= 0.25],
  ["validate p99 at 1,000 req/s", `${fixed.p99.toFixed(2)} ms`, "≤ 10 ms", fixed.p99 <= 10],
  [
    "analytics 1 M / 10 k events",
    `${results.analytics.ratio1Mto10k} ×`,
    "≤ 1.2 ×",
    results.analytics.ratio1Mto10k <= 1.2,
  ],
];
console.log(`\nDatabase: ${results.database}; ${CONCURRENCY} connections, ${SECONDS} s per closed-loop run\n`);
console.log(`bare route  ${results.bareRps} req/s`);
console.log(`validate    ${results.validateRps} req/s`);
console.log(
  `fixed 1,000 req/s: achieved ${results.fixedRate.achievedRps}, p50 ${results.fixedRate.p50Ms} ms, p99 ${results.fixedRate.p99Ms} ms, max ${results.fixedRate.maxMs} ms`,
);
console.log(
  `analytics  10 k events: median ${results.analytics.events10k.medianMs} ms; 1 M events: median ${results.analytics.events1M.medianMs} ms\n`,
);
for (const [name, value, target, ok] of targets)
  console.log(`${ok ? "✓" : "✗"} ${name.padEnd(36)} ${value.padStart(10)}   target ${target}`);
mkdirSync(join(ROOT, ".cache/bench"), { recursive: true });
writeFileSync(join(ROOT, ".cache/bench/api.json"), `${JSON.stringify(results, null, 2)}\n`);
console.log("\nFigures written to .cache/bench/api.json");
process.exit(0);
