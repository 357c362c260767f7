// `npm test`: install what is missing (Chromium included), build, run every suite, print one summary line, the time of
// each stage and the ten slowest test files (decision 0054).
//
//   FLOTILLA_TEST_SUITES   which suites run (default "vitest,playwright"): vitest, playwright, start (a smoke of
//                          `npm start`: the built server serves its first page, then stops)
//   FLOTILLA_VITEST_PROJECTS  narrows the Vitest projects (e.g. "contracts,license-client": CI's floor-Node pass)
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, relative } from "node:path";
import { checkNode, ensureBuild, ensureChromium, ensureDependencies, log, ROOT, run } from "./lib/bootstrap.mjs";

const SUITES = ["vitest", "playwright", "start"];
const DEFAULT_SUITES = ["vitest", "playwright"];
const chosen = (process.env.FLOTILLA_TEST_SUITES ?? DEFAULT_SUITES.join(","))
  .split(",")
  .map((name) => name.trim())
  .filter(Boolean);
const unknown = chosen.filter((name) => !SUITES.includes(name));
if (unknown.length > 0 || chosen.length === 0) {
  console.error(
    `FLOTILLA_TEST_SUITES: expected a list of ${SUITES.join(", ")}; got "${process.env.FLOTILLA_TEST_SUITES}"`,
  );
  process.exit(2);
}
const runs = (suite) => chosen.includes(suite);
const projects = (process.env.FLOTILLA_VITEST_PROJECTS ?? "")
  .split(",")
  .map((name) => name.trim())
  .filter(Boolean);

/** Wall time of each stage, in order: printed at the end and written for .ci/run's budget check. */
const stages = [];
function timed(name, work) {
  const started = performance.now();
  const result = work();
  stages.push({ stage: name, seconds: (performance.now() - started) / 1000 });
  return result;
}
async function timedAsync(name, work) {
  const started = performance.now();
  const result = await work();
  stages.push({ stage: name, seconds: (performance.now() - started) / 1000 });
  return result;
}

checkNode();
timed("install", () => ensureDependencies());
if (runs("playwright")) timed("chromium", () => ensureChromium());
if (runs("vitest") || runs("playwright") || runs("start")) timed("build", () => ensureBuild());

const reports = join(ROOT, ".cache/test-reports");
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

const totals = { passed: 0, failed: 0, skipped: 0 };
const suites = [];
/** Test files and how long each took: [file, seconds]. */
const files = [];

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

// 1. Unit, component and API tests (Vitest projects).
if (runs("vitest")) {
  log(`Unit, component and API tests (Vitest${projects.length ? `: ${projects.join(", ")}` : ""})…`);
  const vitestReport = join(reports, "vitest.json");
  const vitestStatus = timed("vitest", () =>
    run("npx", [
      "vitest",
      "run",
      ...projects.flatMap((name) => ["--project", name]),
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${vitestReport}`,
    ]),
  );
  const vitest = readJson(vitestReport);
  if (vitest) {
    totals.passed += vitest.numPassedTests;
    totals.failed += vitest.numFailedTests;
    totals.skipped += vitest.numPendingTests + (vitest.numTodoTests ?? 0);
    for (const file of vitest.testResults ?? []) {
      files.push([relative(ROOT, file.name), (file.endTime - file.startTime) / 1000]);
    }
  }
  if (!vitest || (vitestStatus !== 0 && vitest.numFailedTests === 0)) totals.failed += 1; // the run itself broke
  suites.push(["vitest", vitestStatus]);
}

// 2. End-to-end journeys in Chromium against the built app (Playwright).
if (runs("playwright")) {
  log("End-to-end tests (Playwright + Chromium)…");
  const playwrightReport = join(reports, "playwright.json");
  const e2ePort = await freePort();
  const e2eStatus = timed("playwright", () =>
    run("npx", ["playwright", "test", "-c", "e2e/playwright.config.ts"], {
      // A free port unless one is asked for: another build on this machine may be running its journeys too.
      env: {
        ...process.env,
        E2E_PORT: process.env.E2E_PORT ?? String(e2ePort),
        PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport,
      },
    }),
  );
  const e2e = readJson(playwrightReport);
  if (e2e?.stats) {
    totals.passed += e2e.stats.expected + (e2e.stats.flaky ?? 0);
    totals.failed += e2e.stats.unexpected;
    totals.skipped += e2e.stats.skipped;
    for (const [file, seconds] of playwrightFileTimes(e2e)) files.push([file, seconds]);
  }
  if (!e2e?.stats || (e2eStatus !== 0 && e2e.stats.unexpected === 0)) totals.failed += 1;
  suites.push(["playwright", e2eStatus]);
}

// 3. A smoke of `npm start`: the server it starts serves the first page and is ready, then stops on SIGTERM.
if (runs("start")) {
  log("npm start: the first page…");
  const outcome = await timedAsync("npm start → first page", smokeStart);
  if (outcome.ok) totals.passed += 1;
  else {
    totals.failed += 1;
    console.error(`npm start: ${outcome.error}`);
  }
  suites.push(["npm start", outcome.ok ? 0 : 1]);
}

console.log("");
console.log("Stages (wall time):");
for (const { stage, seconds } of stages) console.log(`  ${stage.padEnd(24)} ${formatSeconds(seconds)}`);
if (files.length > 0) {
  console.log("Slowest test files:");
  for (const [file, seconds] of files.sort((a, b) => b[1] - a[1]).slice(0, 10)) {
    console.log(`  ${formatSeconds(seconds).padStart(8)}  ${file}`);
  }
}
writeFileSync(join(reports, "stages.json"), `${JSON.stringify(stages, null, 2)}\n`);
console.log("");
for (const [name, status] of suites) console.log(`${status === 0 ? "✓" : "✗"} ${name}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 || suites.some(([, status]) => status !== 0) ? 1 : 0);

function formatSeconds(seconds) {
  return seconds >= 60 ? `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s` : `${seconds.toFixed(1)} s`;
}

/** Each spec file's time, summed over its tests (Playwright's report nests suites). */
function playwrightFileTimes(report) {
  const perFile = new Map();
  const visit = (suite, file) => {
    const here = suite.file ?? file;
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        for (const result of test.results ?? []) {
          perFile.set(`e2e/tests/${here}`, (perFile.get(`e2e/tests/${here}`) ?? 0) + (result.duration ?? 0) / 1000);
        }
      }
    }
    for (const child of suite.suites ?? []) visit(child, here);
  };
  for (const suite of report.suites ?? []) visit(suite, suite.file);
  return perFile;
}

/** A free loopback port. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs `npm start` as a person would (its own data folder, a free port), waits for the first page and readiness —
 * at most START_DEADLINE_MS, a hang, not slowness — then stops it with SIGTERM and waits for it to exit.
 */
async function smokeStart() {
  const START_DEADLINE_MS = 120_000;
  const port = await freePort();
  const dataDir = join(ROOT, ".cache/start-smoke");
  rmSync(dataDir, { recursive: true, force: true });
  const started = Date.now();
  const child = spawn(process.execPath, [join(ROOT, "scripts/start.mjs")], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: "warn", DATABASE_URL: "" },
  });
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  try {
    for (;;) {
      if (Date.now() - started > START_DEADLINE_MS)
        return { ok: false, error: `no first page within ${START_DEADLINE_MS} ms` };
      const page = await fetch(`http://localhost:${port}/`).catch(() => null);
      if (page?.ok && (await page.text()).includes("<html")) break;
      if (child.exitCode !== null) return { ok: false, error: `exited with ${child.exitCode} before serving` };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const firstPageMs = Date.now() - started;
    const ready = await fetch(`http://localhost:${port}/api/ready`);
    if (!ready.ok) return { ok: false, error: `/api/ready answered ${ready.status}` };
    log(`npm start served its first page ${(firstPageMs / 1000).toFixed(1)} s after it began, and is ready`);
    return { ok: true };
  } finally {
    child.kill("SIGTERM");
    const bound = new Promise((resolve) => setTimeout(() => resolve("timeout"), 30_000));
    if ((await Promise.race([exited, bound])) === "timeout") child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  }
}
