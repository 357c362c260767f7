// `npm run bench:distribution` (issue 36, decisions 0059-0061), on one instance of the built service on loopback:
//   a. the update check (POST /api/license/updates/check, signed, a fresh download link in each answer) paced at
//      1,000 checks/s by autocannon for BENCH_SECONDS (10) over BENCH_CONNECTIONS (8): p50/p99/max and failures;
//   b. a 200 MB artifact (BENCH_DOWNLOAD_MB) uploaded through the folder's resumable PATCH, verified, published, then
//      downloaded through its link, while the instance's RSS (/proc/<pid>/status VmRSS) is sampled every 50 ms:
//      RSS before, peak during the upload and during the download, and the throughput. If the file went through
//      memory, the peak would grow by its size; streamed, it stays flat.
// Ports: BENCH_PORT (3950). Data in a temporary folder, removed at the end.
import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { checkNode, ensureBuild, ensureDependencies, ROOT } from "../scripts/lib/bootstrap.mjs";
import { importHarness } from "./lib/build-harness.mjs";

const PORT = Number(process.env.BENCH_PORT ?? 3950);
const BASE = `http://127.0.0.1:${PORT}`;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const RATE = 1_000;
const DOWNLOAD_MB = Number(process.env.BENCH_DOWNLOAD_MB ?? 200);
const ADMIN = "bench-ops@example.com";
const OUT = join(ROOT, ".cache/bench");

checkNode();
ensureDependencies();
ensureBuild();
mkdirSync(OUT, { recursive: true });

const dataDir = mkdtempSync(join(tmpdir(), "flotilla-bench-dist-"));
let child = null;
const cleanup = () => {
  child?.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
};
process.on("exit", cleanup);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(130));

const { devSignInOverHttp, loadReleaseSigningKey, signArtifact } = await importHarness("distribution");

child = spawn(process.execPath, [join(ROOT, "apps/api/dist/server.js")], {
  env: {
    ...process.env,
    PORT: String(PORT),
    HOST: "127.0.0.1",
    PUBLIC_ORIGIN: BASE,
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    ADMIN_EMAILS: ADMIN,
    BACKGROUND_JOBS: "false",
    RATE_LIMIT_PER_MINUTE: "100000000",
    RATE_LIMIT_LICENSE_PER_MINUTE: "100000000",
    RATE_LIMIT_LICENSE_KEY_PER_MINUTE: "100000000",
  },
  stdio: ["ignore", "pipe", "pipe"],
});
const log = createWriteStream(join(OUT, "distribution-server.log"));
child.stdout.pipe(log);
child.stderr.pipe(log);
let ready = false;
for (let i = 0; i < 600 && !ready && child.exitCode === null; i++) {
  ready = await fetch(`${BASE}/api/ready`).then(
    (r) => r.ok,
    () => false,
  );
  if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
}
if (!ready) throw new Error(`the server did not start (see ${join(OUT, "distribution-server.log")})`);

async function call(method, path, { token, body, headers = {} } = {}) {
  const response = await fetch(`${BASE}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

// The operator: an admin session, a token, the development release key the server generated into DATA_DIR.
const admin = await devSignInOverHttp(BASE, { email: ADMIN, name: "Bench Ops" });
const operator = (await call("POST", "/api/admin/operator-tokens", { token: admin, body: { name: "bench" } })).data
  .token;
const key = loadReleaseSigningKey(readFileSync(join(dataDir, "release-signing-key.pem"), "utf8"));
await call("PUT", "/api/admin/downloads/platforms/macos", { token: admin, body: { open: true } });

async function publish(version, file) {
  const release = (await call("POST", "/api/admin/releases", { token: operator, body: { version, channel: "stable" } }))
    .data;
  const open = () => createReadStream(file, { highWaterMark: 1024 * 1024 });
  const sha256 = createHash("sha256");
  const sha512 = createHash("sha512");
  for await (const chunk of open()) {
    sha256.update(chunk);
    sha512.update(chunk);
  }
  const filename = `Flotilla-${version}.dmg`;
  const signatures = await signArtifact(key, open, filename);
  const added = (
    await call("POST", `/api/admin/releases/${release.id}/artifacts`, {
      token: operator,
      body: {
        platform: "macos",
        arch: "universal",
        filename,
        size: statSync(file).size,
        sha256: sha256.digest("hex"),
        sha512: sha512.digest("hex"),
        ...signatures,
      },
    })
  ).data;
  const uploadStarted = performance.now();
  const patched = await fetch(added.upload.url, {
    method: "PATCH",
    headers: {
      authorization: `Bearer ${operator}`,
      "content-type": "application/offset+octet-stream",
      "upload-offset": "0",
    },
    body: open(),
    duplex: "half",
    signal: AbortSignal.timeout(600_000),
  });
  if (patched.status !== 204) throw new Error(`PATCH answered ${patched.status}: ${await patched.text()}`);
  const uploadSeconds = (performance.now() - uploadStarted) / 1000;
  await call("POST", `/api/admin/uploads/${added.upload.upload_id}/complete`, { token: operator, body: {} });
  await call("POST", `/api/admin/releases/${release.id}/publish`, { token: operator, body: {} });
  return { uploadSeconds };
}

// A customer with an activated machine.
const customer = await devSignInOverHttp(BASE, { email: "bench-customer@example.com", name: "Bench Customer" });
const licenseKey = (await call("POST", "/api/customer/licenses", { token: customer, body: { tier: "free" } })).data
  .license.license_key;
await call("POST", "/api/license/validate", { body: { license_key: licenseKey, machine_id: "bench-mac" } });

// ── a. the update check at 1,000 checks/s ──
const small = join(dataDir, "small.bin");
await new Promise((resolve, reject) => {
  const out = createWriteStream(small);
  out.end(randomBytes(64 * 1024), (error) => (error ? reject(error) : resolve()));
});
await publish("1.1.0", small);
const checkBody = JSON.stringify({
  license_key: licenseKey,
  machine_id: "bench-mac",
  current_version: "1.0.0",
  platform: "macos",
  arch: "aarch64",
});
const probe = await call("POST", "/api/license/updates/check", { body: JSON.parse(checkBody) });
if (probe.data.update?.version !== "1.1.0") throw new Error(`the check offered ${JSON.stringify(probe.data)}`);
const loadBefore = loadavg()[0];
const latencies = [];
const run = autocannon({
  url: `${BASE}/api/license/updates/check`,
  connections: CONNECTIONS,
  duration: SECONDS,
  overallRate: RATE,
  requests: [
    {
      method: "POST",
      path: "/api/license/updates/check",
      headers: { "content-type": "application/json" },
      body: checkBody,
    },
  ],
});
run.on("response", (_client, _status, _bytes, ms) => latencies.push(ms));
const result = await run;
latencies.sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? Number.NaN;
const check = {
  checks: result.requests.total,
  perSecond: result.requests.total / SECONDS,
  p50: pct(50),
  p99: pct(99),
  max: latencies.at(-1),
  failures: result.non2xx + result.errors + result.timeouts,
};

// ── b. a 200 MB artifact through the folder path, RSS sampled ──
function rssMb() {
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}
function sampleRss() {
  let peak = rssMb();
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb());
  }, 50);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssMb());
  };
}
const big = join(dataDir, "big.bin");
await new Promise((resolve, reject) => {
  const out = createWriteStream(big);
  const block = randomBytes(1024 * 1024);
  let written = 0;
  const next = () => {
    while (written < DOWNLOAD_MB) {
      block.writeUInt32LE(written, 0);
      written += 1;
      if (!out.write(Buffer.from(block))) return out.once("drain", next);
    }
    out.end();
  };
  out.on("finish", resolve).on("error", reject);
  next();
});
global.gc?.();
const rssIdle = rssMb();
const stopUploadSampling = sampleRss();
const { uploadSeconds } = await publish("2.0.0", big);
const rssUploadPeak = stopUploadSampling();
const offer = (await call("POST", "/api/license/updates/check", { body: JSON.parse(checkBody) })).data.update;
const rssBeforeDownload = rssMb();
const stopDownloadSampling = sampleRss();
const downloadStarted = performance.now();
const response = await fetch(offer.download.url, { signal: AbortSignal.timeout(600_000) });
const digest = createHash("sha256");
let received = 0;
for await (const chunk of response.body) {
  received += chunk.length;
  digest.update(chunk);
}
const downloadSeconds = (performance.now() - downloadStarted) / 1000;
const rssDownloadPeak = stopDownloadSampling();
if (digest.digest("hex") !== offer.artifact.sha256) throw new Error("the download's SHA-256 is not the artifact's");

const mb = (n) => `${n.toFixed(0)} MB`;
console.log(`
Distribution bench (one instance, embedded database, loopback; load average ${loadBefore.toFixed(2)} at the start)

a. Update check paced at ${RATE}/s for ${SECONDS} s over ${CONNECTIONS} connections (signed answers, a fresh link each)
   ${check.checks} checks (${check.perSecond.toFixed(0)}/s), failures ${check.failures}
   p50 ${check.p50.toFixed(2)} ms   p99 ${check.p99.toFixed(2)} ms   max ${check.max.toFixed(2)} ms

b. ${DOWNLOAD_MB} MB artifact through the folder path (instance RSS, sampled every 50 ms)
   RSS idle ${mb(rssIdle)}
   upload (PATCH, streamed to disk, then verified): ${uploadSeconds.toFixed(1)} s, peak RSS ${mb(rssUploadPeak)} (+${mb(rssUploadPeak - rssIdle)})
   download (streamed from disk): ${(received / 1024 / 1024).toFixed(0)} MB in ${downloadSeconds.toFixed(1)} s (${(received / 1024 / 1024 / downloadSeconds).toFixed(0)} MB/s), peak RSS ${mb(rssDownloadPeak)} (+${mb(rssDownloadPeak - rssBeforeDownload)} over the ${mb(rssBeforeDownload)} before it)
   SHA-256 of what arrived matches the artifact's.
`);
process.exit(0);
