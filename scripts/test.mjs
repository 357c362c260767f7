// `npm test`: install what is missing (Chromium included), build, run every suite, print one summary line.
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { checkNode, ensureBuild, ensureChromium, ensureDependencies, log, ROOT, run } from "./lib/bootstrap.mjs";

/** Which suites run: all by default; FLOTILLA_TEST_SUITES=vitest (or playwright) narrows it (CI's floor-Node pass). */
const SUITES = ["vitest", "playwright"];
const chosen = (process.env.FLOTILLA_TEST_SUITES ?? SUITES.join(","))
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

checkNode();
ensureDependencies();
if (runs("playwright")) ensureChromium();
ensureBuild();

const reports = join(ROOT, ".cache/test-reports");
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });

const totals = { passed: 0, failed: 0, skipped: 0 };
const suites = [];

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

// 1. Unit, component and API tests (Vitest projects).
if (runs("vitest")) {
  log("Unit, component and API tests (Vitest)…");
  const vitestReport = join(reports, "vitest.json");
  const vitestStatus = run("npx", [
    "vitest",
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${vitestReport}`,
  ]);
  const vitest = readJson(vitestReport);
  if (vitest) {
    totals.passed += vitest.numPassedTests;
    totals.failed += vitest.numFailedTests;
    totals.skipped += vitest.numPendingTests + (vitest.numTodoTests ?? 0);
  }
  if (!vitest || (vitestStatus !== 0 && vitest.numFailedTests === 0)) totals.failed += 1; // the run itself broke
  suites.push(["vitest", vitestStatus]);
}

// 2. End-to-end journeys in Chromium against the built app (Playwright).
if (runs("playwright")) {
  log("End-to-end tests (Playwright + Chromium)…");
  const playwrightReport = join(reports, "playwright.json");
  const e2eStatus = run("npx", ["playwright", "test", "-c", "e2e/playwright.config.ts"], {
    env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport },
  });
  const e2e = readJson(playwrightReport);
  if (e2e?.stats) {
    totals.passed += e2e.stats.expected + (e2e.stats.flaky ?? 0);
    totals.failed += e2e.stats.unexpected;
    totals.skipped += e2e.stats.skipped;
  }
  if (!e2e?.stats || (e2eStatus !== 0 && e2e.stats.unexpected === 0)) totals.failed += 1;
  suites.push(["playwright", e2eStatus]);
}

console.log("");
for (const [name, status] of suites) console.log(`${status === 0 ? "✓" : "✗"} ${name}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 || suites.some(([, status]) => status !== 0) ? 1 : 0);
