// `npm run bench:web`: builds the site if needed, serves it on loopback with the API server, and measures each
// content page in Debian Chromium, beside a saved baseline run ("now | before"), each target marked ✓ or ✗:
//   1. JS run up front: gzip -9 bytes of the scripts requested before the load event, plus the HTML's inline scripts.
//   2. JS in the first 6 s: every script response from navigation start to 6 s, no interaction (idle loads count).
//   3. Main-thread blocking while reading: Σ(long task − 50 ms) up to 6 s at 4× CPU on a 375×812 touch phone, no
//      interaction (PerformanceObserver "longtask"), and the part of it after the load event.
//   4. Lighthouse mobile (median of LIGHTHOUSE_RUNS): performance, FCP, LCP, TBT, unused JS, accessibility in the
//      light and the dark theme. Only LIGHTHOUSE_PAGES unless BENCH_LIGHTHOUSE_PAGES=all.
//   5. Tap → usable dialog at 4× CPU, warm cache: from pointerdown to an enabled, visible input in dialog[open].
//   6. First paint: FCP from the paint timeline at 4× CPU (median, alongside 3).
// No network throttling (loopback) except Lighthouse's own simulation. Other processes on the machine add noise.
//
// Environment: BENCH_PORT (3200), LIGHTHOUSE_RUNS (3), BENCH_LIGHTHOUSE_PAGES=all, BENCH_PAGES=/a,/b,
// BENCH_READING_RUNS (3; 5 with BENCH_BEFORE), BENCH_BASELINE (the before column; default below), BENCH_WRITE_BASELINE=path
// (also save this run there). BENCH_BEFORE=<git ref> instead builds that commit, serves it on BENCH_PORT + 1 and
// measures it in this run, interleaved with this build, as the before column (bench/lib/web-before.mjs): then first
// paint is a target too, "no slower than before". The latest run is always saved to bench/results/web-latest.json.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { CHROMIUM_PATH, checkNode, ensureBuild, ensureDependencies, ROOT } from "../scripts/lib/bootstrap.mjs";
import { prepareBefore, turn } from "./lib/web-before.mjs";
import { lighthouseScores } from "./lib/web-lighthouse.mjs";
import { measureReading, measureScripts, measureTap } from "./lib/web-page-measures.mjs";
import {
  printLighthouse,
  printReading,
  printScripts,
  printTaps,
  printTargetSummary,
  readBaseline,
  writeJson,
} from "./lib/web-report.mjs";

const ALL_PAGES = [
  "/",
  "/pricing",
  "/about",
  "/terms",
  "/privacy",
  "/docs",
  "/docs/agents",
  "/blog",
  "/blog/memory-architecture-deep-dive",
  "/publishers-guide",
  "/api-reference",
  "/this-page-does-not-exist",
];
/** BENCH_PAGES=/,/pricing measures only those pages (a quick look; not for a baseline). */
const PAGES = process.env.BENCH_PAGES ? process.env.BENCH_PAGES.split(",") : ALL_PAGES;
const LIGHTHOUSE_PAGES = ["/", "/pricing", "/docs/agents", "/blog/memory-architecture-deep-dive"];

/** Targets: a measure at or under its target meets it. */
const TARGETS = {
  upFrontJs: 12 * 1024,
  firstWindowJs: 30 * 1024,
  blockingMs: 50,
  tapMs: 200,
};

/** What to tap and when the dialog counts as usable: adjust here when the markup changes. */
const TAP_TARGETS = {
  "early access on /": {
    path: "/",
    button: { within: "main", name: /Get Early Access/ },
    usable: "dialog[open] input[type=email]",
  },
  "docs search on /docs/agents": {
    path: "/docs/agents",
    button: { within: null, name: /search/i },
    usable: "dialog[open] input[role=combobox]",
  },
};

const WINDOW_MS = 6000;
const CPU_RATE = 4;
const BEFORE_REF = process.env.BENCH_BEFORE || null;
/** Interleaved with a before build, first paint is compared: more runs steady its median. */
const READING_RUNS = Math.max(1, Number(process.env.BENCH_READING_RUNS ?? (BEFORE_REF ? 5 : 3)));
const TAP_RUNS = 5;
const TAP_SETTLE_MS = 1000;
const TAP_TIMEOUT_MS = 10_000;
const PHONE = { viewport: { width: 375, height: 812 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const LIGHTHOUSE_RUNS = Math.max(1, Number(process.env.LIGHTHOUSE_RUNS ?? 3));
const BASELINE_PATH = process.env.BENCH_BASELINE ?? join(ROOT, "bench/baseline/web-before-islands.json");
const LATEST_PATH = join(ROOT, "bench/results/web-latest.json");

const PORT = Number(process.env.BENCH_PORT ?? 3200);
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const healthy = (base) =>
  fetch(`${base}/api/health`).then(
    (response) => response.ok,
    () => false,
  );

/**
 * Serves the build at `root` on `port`. Refuses a port that already answers (it would measure someone else's build),
 * and `alive()` tells whether our server is still up: a run whose server died must not become a baseline.
 */
async function startServer(root, port) {
  const base = `http://127.0.0.1:${port}`;
  if (await healthy(base)) throw new Error(`something already answers on ${base}: choose another BENCH_PORT`);
  // A database of its own: the default data/ may be held by `npm start` (decision 0047).
  const dataDir = mkdtempSync(join(tmpdir(), "flotilla-bench-web-"));
  process.on("exit", () => rmSync(dataDir, { recursive: true, force: true }));
  const server = spawn(process.execPath, [join(root, "apps/api/dist/server.js")], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn", DATA_DIR: dataDir },
    stdio: "inherit",
  });
  let exited = null;
  server.on("exit", (code, signal) => {
    exited = `the server exited (${signal ?? `code ${code}`})`;
  });
  const stop = () => server.kill("SIGTERM");
  process.on("exit", stop);
  // A fresh embedded database takes a few seconds to create: up to 60 s.
  for (let i = 0; i < 600 && !exited; i++) {
    if (await healthy(base)) {
      return { base, stop, alive: () => (exited ? Promise.reject(new Error(exited)) : healthy(base)) };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  stop();
  throw new Error(exited ?? "the server did not start");
}

function median(values) {
  const sorted = values.filter((v) => v != null).sort((a, b) => a - b);
  if (!sorted.length) return null;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : Math.round((sorted[middle - 1] + sorted[middle]) / 2);
}

function progress(message) {
  process.stderr.write(`\x1b[36m›\x1b[0m ${message}\n`);
}

function summarizeReading(runs) {
  return {
    blockingMs: median(runs.map((r) => r.blockingMs)),
    blockingAfterLoadMs: median(runs.map((r) => r.blockingAfterLoadMs)),
    fcpMs: median(runs.map((r) => r.fcpMs)),
    loadMs: median(runs.map((r) => r.loadMs)),
    runs,
  };
}

/** Measures 1–3 and 6 of one page on every site; returns { [site key]: page result }. */
async function measurePage(browser, sites, path) {
  progress(
    `${path}: scripts, then ${READING_RUNS} reading runs at ${CPU_RATE}× CPU${sites.length > 1 ? " on each build" : ""}`,
  );
  const scripts = {};
  for (const site of sites) {
    scripts[site.key] = await measureScripts(browser, `${site.base}${path}`, { profile: PHONE, windowMs: WINDOW_MS });
  }
  const runs = Object.fromEntries(sites.map((site) => [site.key, []]));
  for (let run = 0; run < READING_RUNS; run++) {
    for (const site of turn(sites, run)) {
      const options = { profile: PHONE, cpuRate: CPU_RATE, windowMs: WINDOW_MS };
      runs[site.key].push(await measureReading(browser, `${site.base}${path}`, options));
    }
  }
  return Object.fromEntries(
    sites.map(({ key }) => [
      key,
      { status: scripts[key].status, scripts: scripts[key], reading: summarizeReading(runs[key]) },
    ]),
  );
}

function summarizeTaps(runs) {
  // A failed tap counts as slower than any success; a majority of failures leaves no median.
  const sorted = runs.map((r) => r.ms ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);
  const middle = sorted[Math.floor((sorted.length - 1) / 2)];
  return {
    medianMs: Number.isFinite(middle) ? middle : null,
    failures: runs.filter((r) => r.ms == null).length,
    runs,
  };
}

/** Measure 5 on every site; returns { [site key]: { [tap id]: result } }. */
async function measureTaps(browser, sites) {
  const taps = Object.fromEntries(sites.map((site) => [site.key, {}]));
  for (const [id, target] of Object.entries(TAP_TARGETS)) {
    progress(`tap: ${id}, ${TAP_RUNS} times${sites.length > 1 ? " on each build" : ""}`);
    const runs = Object.fromEntries(sites.map((site) => [site.key, []]));
    for (let run = 0; run < TAP_RUNS; run++) {
      for (const site of turn(sites, run)) {
        const options = { profile: PHONE, cpuRate: CPU_RATE, settleMs: TAP_SETTLE_MS, timeoutMs: TAP_TIMEOUT_MS };
        runs[site.key].push(await measureTap(browser, site.base, target, options));
      }
    }
    for (const site of sites) taps[site.key][id] = summarizeTaps(runs[site.key]);
  }
  return taps;
}

async function measureLighthouse(sites) {
  if (!existsSync(CHROMIUM_PATH)) return { skipped: "Chromium not found." };
  const paths =
    process.env.BENCH_LIGHTHOUSE_PAGES === "all" ? PAGES : LIGHTHOUSE_PAGES.filter((p) => PAGES.includes(p));
  progress(
    `Lighthouse: ${paths.length} pages × ${LIGHTHOUSE_RUNS} runs${sites.length > 1 ? " on each build" : ""}, ` +
      "then accessibility in the dark theme",
  );
  const scores = await lighthouseScores({
    bases: Object.fromEntries(sites.map((site) => [site.key, site.base])),
    paths,
    runs: LIGHTHOUSE_RUNS,
    chromePath: CHROMIUM_PATH,
    flags: FLAGS,
  });
  return scores ? { scores } : { skipped: "the lighthouse package is not installed." };
}

/** The checked-out commit, and the last one that changed what the site is built from (the bench's own don't). */
function gitCommit() {
  const git = (...args) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8" }).stdout.trim();
  const siteInputs = ["apps", "packages", "package-lock.json"];
  return {
    commit: git("rev-parse", "HEAD"),
    siteCommit: git("log", "-1", "--format=%H", "--", ...siteInputs),
    dirty: git("status", "--porcelain", "--", ...siteInputs) !== "",
  };
}

/** Stops the run as soon as our server is gone, rather than measuring error pages or another server. */
async function checkServer(server) {
  if (!(await server.alive())) throw new Error("the server stopped answering during the run: nothing saved");
}

/** Stops the run as soon as a server is gone, rather than measuring error pages or another server. */
async function checkServers(sites) {
  for (const site of sites) await checkServer(site.server);
}

/**
 * Measures every site (this build, and the before build with BENCH_BEFORE) and returns a results object per site,
 * each shaped as a saved run: { now, before? }.
 */
async function run(sites, meta) {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS.slice(1) });
  const chromiumVersion = browser.version();
  const pages = Object.fromEntries(sites.map((site) => [site.key, {}]));
  let taps;
  try {
    for (const path of PAGES) {
      const measured = await measurePage(browser, sites, path);
      for (const site of sites) pages[site.key][path] = measured[site.key];
      await checkServers(sites);
    }
    taps = await measureTaps(browser, sites);
    await checkServers(sites);
  } finally {
    await browser.close();
  }
  const lighthouse = await measureLighthouse(sites);
  const loadAverage = loadavg().map((v) => Number(v.toFixed(2)));
  const settings = {
    network: "loopback, not throttled (Lighthouse simulates its own)",
    cpuRate: CPU_RATE,
    windowMs: WINDOW_MS,
    phone: PHONE,
    readingRuns: READING_RUNS,
    tapRuns: TAP_RUNS,
    lighthouseRuns: LIGHTHOUSE_RUNS,
    interleavedWith: sites.length > 1 ? sites.map((site) => site.key) : undefined,
  };
  const date = new Date().toISOString();
  return Object.fromEntries(
    sites.map((site) => [
      site.key,
      {
        meta: { date, ...meta[site.key], node: process.version, chromium: chromiumVersion, loadAverage },
        settings,
        targets: TARGETS,
        pages: pages[site.key],
        taps: taps[site.key],
        lighthouse: lighthouse.scores
          ? { version: lighthouse.scores.version, pages: lighthouse.scores.sites[site.key] }
          : null,
        lighthouseSkipped: lighthouse.skipped ?? null,
      },
    ]),
  );
}

/** Where the before column comes from, for the report's heading. */
function describeBefore(baseline, sameRun) {
  if (!baseline) return `before: no baseline at ${BASELINE_PATH.replace(ROOT, "")}`;
  const site = (baseline.meta.siteCommit ?? baseline.meta.commit).slice(0, 10);
  if (sameRun) return `before = ${BEFORE_REF} (site ${site}), built and measured in this run, interleaved`;
  return `before = ${BASELINE_PATH.replace(ROOT, "")} (${baseline.meta.date.slice(0, 10)}, site ${site})`;
}

function report(results, baseline, sameRun) {
  console.log(
    `\nbench:web — ${results.meta.commit.slice(0, 10)} (site ${results.meta.siteCommit.slice(0, 10)}` +
      `${results.meta.dirty ? ", modified" : ""}), Node ${results.meta.node}, ` +
      `Chromium ${results.meta.chromium}. Network: loopback, not throttled. Figures are noisy when other processes ` +
      `use the CPUs (load average ${results.meta.loadAverage.join(" ")}).\nEach cell: now | ${describeBefore(baseline, sameRun)}.`,
  );
  // First paint is compared only with a build measured in the same run: a saved run is another hour's machine.
  const paintBaseline = sameRun ? baseline : null;
  printScripts(results, baseline, TARGETS);
  printReading(results, baseline, TARGETS, paintBaseline);
  printTaps(results, baseline, TARGETS);
  printLighthouse(results, baseline, paintBaseline);
  printTargetSummary(results, TARGETS, paintBaseline);
}

checkNode();
ensureDependencies();
ensureBuild();
const before = BEFORE_REF ? prepareBefore(ROOT, BEFORE_REF, progress) : null;
const sites = [{ key: "now", root: ROOT, port: PORT }];
if (before) sites.push({ key: "before", root: before.root, port: PORT + 1 });
try {
  for (const site of sites) {
    site.server = await startServer(site.root, site.port);
    site.base = site.server.base;
  }
  const meta = { now: gitCommit() };
  if (before) meta.before = { commit: before.commit, siteCommit: before.commit, dirty: false };
  // Read first: BENCH_WRITE_BASELINE may replace it.
  const saved = before ? null : readBaseline(BASELINE_PATH);
  const measured = await run(sites, meta);
  await checkServers(sites);
  const results = measured.now;
  writeJson(LATEST_PATH, before ? { ...results, before: measured.before } : results);
  if (process.env.BENCH_WRITE_BASELINE) writeJson(process.env.BENCH_WRITE_BASELINE, results);
  report(results, before ? measured.before : saved, Boolean(before));
  console.log(
    `\nSaved: ${LATEST_PATH.replace(ROOT, "")}${process.env.BENCH_WRITE_BASELINE ? ` and ${process.env.BENCH_WRITE_BASELINE}` : ""}`,
  );
} finally {
  for (const site of sites) site.server?.stop();
}
