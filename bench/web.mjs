// `npm run bench:web`: builds the site if needed, serves it on loopback, and prints for each key page
// the gzip bytes of the JavaScript and CSS it loads, then Lighthouse mobile scores (Debian Chromium).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { CHROMIUM_PATH, checkNode, ensureBuild, ensureDependencies, ROOT } from "../scripts/lib/bootstrap.mjs";

const PAGES = ["/", "/pricing", "/docs/agents", "/blog/memory-architecture-deep-dive"];
const BUDGET = { js: 128 * 1024, css: 15 * 1024 };
const PORT = Number(process.env.BENCH_PORT ?? 3200);
const BASE = `http://127.0.0.1:${PORT}`;
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

checkNode();
ensureDependencies();
ensureBuild();

// A database of its own: the default data/ may be held by `npm start` (decision 0045).
const dataDir = mkdtempSync(join(tmpdir(), "flotilla-bench-web-"));
const server = spawn(process.execPath, [join(ROOT, "apps/api/dist/server.js")], {
  env: { ...process.env, PORT: String(PORT), HOST: "127.0.0.1", LOG_LEVEL: "warn", DATA_DIR: dataDir },
  stdio: "inherit",
});
const stop = () => server.kill("SIGTERM");
process.on("exit", stop);
process.on("exit", () => rmSync(dataDir, { recursive: true, force: true }));

async function waitForServer() {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${BASE}/api/health`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("server did not start");
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

async function measureBytes() {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS.slice(1) });
  const rows = [];
  for (const path of PAGES) {
    const page = await browser.newPage();
    const seen = new Map();
    page.on("response", async (response) => {
      const type = response.request().resourceType();
      if (type !== "script" && type !== "stylesheet") return;
      try {
        seen.set(response.url(), { type, body: await response.body() });
      } catch {}
    });
    await page.goto(`${BASE}${path}`, { waitUntil: "networkidle" });
    await page.waitForTimeout(300);
    let js = 0;
    let css = 0;
    for (const { type, body } of seen.values()) {
      const gz = gzipSync(body, { level: 9 }).length;
      if (type === "script") js += gz;
      else css += gz;
    }
    rows.push({ path, js, css, files: seen.size });
    await page.close();
  }
  await browser.close();
  return rows;
}

/** Lighthouse varies from run to run (Google recommends the median of several): each page runs RUNS times. */
const RUNS = Math.max(1, Number(process.env.LIGHTHOUSE_RUNS ?? 3));

function summarize(path, lhr) {
  const score = (id) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
  const failing = Object.values(lhr.audits)
    .filter(
      (a) =>
        a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== "informative" && a.scoreDisplayMode !== "manual",
    )
    .map((a) => a.id);
  return {
    path,
    error: lhr.runtimeError ? `${lhr.runtimeError.code}: ${lhr.runtimeError.message}` : null,
    performance: score("performance"),
    accessibility: score("accessibility"),
    bestPractices: score("best-practices"),
    seo: score("seo"),
    fcp: lhr.audits["first-contentful-paint"]?.displayValue,
    lcp: lhr.audits["largest-contentful-paint"]?.displayValue,
    tbt: lhr.audits["total-blocking-time"]?.displayValue,
    cls: lhr.audits["cumulative-layout-shift"]?.displayValue,
    failing,
  };
}

async function lighthouseScores() {
  let lighthouse;
  let launcher;
  try {
    lighthouse = (await import("lighthouse")).default;
    launcher = await import("chrome-launcher");
  } catch {
    return null;
  }
  const chrome = await launcher.launch({ chromePath: CHROMIUM_PATH, chromeFlags: FLAGS });
  const results = [];
  try {
    for (const path of PAGES) {
      const runs = [];
      for (let run = 0; run < RUNS; run++) {
        const { lhr } = await lighthouse(`${BASE}${path}`, { port: chrome.port, output: "json", logLevel: "error" });
        runs.push(summarize(path, lhr));
      }
      const ok = runs.filter((r) => !r.error).sort((a, b) => a.performance - b.performance);
      const median = ok[Math.floor((ok.length - 1) / 2)] ?? runs[0];
      results.push({
        ...median,
        all: runs.map((r) => (r.error ? "error" : String(r.performance))),
        errors: runs.filter((r) => r.error).map((r) => r.error),
      });
    }
  } finally {
    await chrome.kill();
  }
  return results;
}

try {
  await waitForServer();
  const bytes = await measureBytes();
  console.log("\nBytes loaded per page (gzip -9 of each JS/CSS response)");
  console.log("page                                   JS gz      CSS gz   within budget");
  for (const row of bytes) {
    const ok = row.js <= BUDGET.js && row.css <= BUDGET.css;
    console.log(`${row.path.padEnd(38)} ${kb(row.js).padStart(9)} ${kb(row.css).padStart(10)}   ${ok ? "yes" : "NO"}`);
  }
  console.log(`budget: JS ≤ ${kb(BUDGET.js)}, CSS ≤ ${kb(BUDGET.css)} (ARCHITECTURE.md, "Budgets")`);

  if (!existsSync(CHROMIUM_PATH)) {
    console.log("\nLighthouse skipped: Chromium not found.");
  } else {
    const scores = await lighthouseScores();
    if (!scores) console.log("\nLighthouse skipped: the lighthouse package is not installed.");
    else {
      console.log(`\nLighthouse 12, mobile (simulated throttling); median of ${RUNS} runs by performance`);
      console.log(
        "page                                   perf  a11y  best-pr  seo   FCP      LCP      TBT     CLS   perf of each run",
      );
      for (const s of scores) {
        console.log(
          `${s.path.padEnd(38)} ${String(s.performance).padStart(4)} ${String(s.accessibility).padStart(5)} ${String(s.bestPractices).padStart(8)} ${String(s.seo).padStart(4)}   ${String(s.fcp).padEnd(8)} ${String(s.lcp).padEnd(8)} ${String(s.tbt).padEnd(7)} ${String(s.cls).padEnd(5)} ${s.all.join(" ")}`,
        );
        if (s.failing.length) console.log(`  below 90: ${s.failing.join(", ")}`);
        for (const error of s.errors) console.log(`  a run failed: ${error}`);
      }
    }
  }
} finally {
  stop();
}
