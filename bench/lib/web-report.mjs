// Prints bench/web.mjs results as "now | before" tables, the before column from a saved baseline run, and marks
// each measure that has a target with ✓ (met) or ✗ (missed).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export const kb = (bytes) => (bytes == null ? "–" : `${(bytes / 1024).toFixed(1)} KB`);
export const ms = (value) => (value == null ? "–" : `${Math.round(value)} ms`);
const plain = (value) => (value == null ? "–" : String(value));

export function readBaseline(path) {
  if (!existsSync(path)) return null;
  return JSON.parse(readFileSync(path, "utf8"));
}

export function writeJson(path, data) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
}

/**
 * Whether `now` meets the column's target: `target` is a number that values at or under meet; `meets(now, before)`
 * says it otherwise (null: no mark).
 */
function meetsTarget(column, now, before) {
  if (now == null) return null;
  if (column.meets) return column.meets(now, before);
  return column.target == null ? null : now <= column.target;
}

/** `now | before ✓`: the mark says whether `now` meets the column's target. */
function cell(now, before, format, met) {
  const mark = met == null ? "" : met ? " ✓" : " ✗";
  return `${format(now)} | ${before === undefined ? "–" : format(before)}${mark}`;
}

/**
 * One table: a row per key, a column per measure. Each column is
 * { header, value(entry) → number, format, target? | meets? }; entries come from `now` and `before` by key.
 */
function printTable({ title, keys, now, before, columns, firstHeader = "page" }) {
  const width = 24;
  console.log(`\n${title}`);
  console.log(`${firstHeader.padEnd(38)} ${columns.map((c) => c.header.padEnd(width)).join(" ")}`);
  for (const key of keys) {
    const current = now[key];
    const previous = before?.[key];
    const cells = columns.map((column) => {
      const value = current ? column.value(current) : null;
      const old = previous ? column.value(previous) : undefined;
      return cell(value, old, column.format, meetsTarget(column, value, old)).padEnd(width);
    });
    console.log(`${key.padEnd(38)} ${cells.join(" ")}`);
  }
}

/** A target as written in the issue: "≤ 12 KB", "≤ 50 ms". */
const within = (target, format) => `≤ ${format === kb ? `${target / 1024} KB` : format(target)}`;

export function printScripts(results, baseline, targets) {
  printTable({
    title:
      "1-2. JavaScript, gzip -9 (no interaction, unthrottled). Up front = requested before the load event + inline " +
      `scripts of the HTML; first ${results.settings.windowMs / 1000} s = every script response, idle loads included.`,
    keys: Object.keys(results.pages),
    now: results.pages,
    before: baseline?.pages,
    columns: [
      {
        header: `up front ${within(targets.upFrontJs, kb)}`,
        value: (p) => p.scripts?.upFront.bytes,
        format: kb,
        target: targets.upFrontJs,
      },
      {
        header: `first 6 s ${within(targets.firstWindowJs, kb)}`,
        value: (p) => p.scripts?.firstWindow.bytes,
        format: kb,
        target: targets.firstWindowJs,
      },
      { header: "script files, 6 s", value: (p) => p.scripts?.firstWindow.files, format: plain },
      { header: "CSS (info)", value: (p) => p.scripts?.css.bytes, format: kb },
    ],
  });
}

/** The targets that are not a number to stay under, each written once for its column and for the summary. */
const noSlowerThan = (now, before) => (before == null ? null : now <= before);
const isPerfect = (score) => score === 100;
const isNone = (bytes) => bytes === 0;
const unusedJsBytes = (page) => (page.unusedJs.items ? page.unusedJs.wastedBytes : 0);

/** "No slower than before": only against a build measured in the same run (`paintBaseline`), else no mark. */
const noSlower = (paintBaseline) => (paintBaseline ? noSlowerThan : undefined);

export function printReading(results, baseline, targets, paintBaseline) {
  const { cpuRate, windowMs, readingRuns } = results.settings;
  printTable({
    title:
      `3 and 6. Reading at ${cpuRate}× CPU, 375×812 touch phone, no interaction, median of ${readingRuns}: blocking = ` +
      `Σ(long task − 50 ms) from navigation start to ${windowMs / 1000} s; after load = the part after the load event.`,
    keys: Object.keys(results.pages),
    now: results.pages,
    before: baseline?.pages,
    columns: [
      {
        header: `blocking ${within(targets.blockingMs, ms)}`,
        value: (p) => p.reading?.blockingMs,
        format: ms,
        target: targets.blockingMs,
      },
      { header: "after load", value: (p) => p.reading?.blockingAfterLoadMs, format: ms },
      {
        header: paintBaseline ? "first paint, no slower" : "first paint (FCP)",
        value: (p) => p.reading?.fcpMs,
        format: ms,
        meets: noSlower(paintBaseline),
      },
      { header: "load event", value: (p) => p.reading?.loadMs, format: ms },
    ],
  });
}

export function printTaps(results, baseline, targets) {
  const { cpuRate, tapRuns } = results.settings;
  printTable({
    title:
      `5. Tap → usable dialog at ${cpuRate}× CPU, warm HTTP cache (load, reload, wait 1 s, tap), median of ${tapRuns}` +
      " fresh pages; from pointerdown to a visible, enabled input in dialog[open].",
    keys: Object.keys(results.taps),
    now: results.taps,
    before: baseline?.taps,
    firstHeader: "dialog",
    columns: [
      {
        header: `tap → usable ${within(targets.tapMs, ms)}`,
        value: (t) => t.medianMs,
        format: ms,
        target: targets.tapMs,
      },
      { header: "failed taps", value: (t) => t.failures, format: plain },
    ],
  });
  for (const [id, tap] of Object.entries(results.taps)) {
    const errors = [...new Set(tap.runs.filter((r) => r.error).map((r) => r.error))];
    if (errors.length) console.log(`  ${id}: ${errors.join("; ")}`);
  }
}

const unusedJs = (value) => (value == null ? "–" : value === 0 ? "none" : kb(value));

export function printLighthouse(results, baseline, paintBaseline) {
  const lh = results.lighthouse;
  if (!lh) {
    console.log(`\n4. Lighthouse skipped: ${results.lighthouseSkipped}`);
    return;
  }
  const keys = Object.keys(lh.pages);
  printTable({
    title:
      `4. Lighthouse ${lh.version} mobile (its own simulated throttling), median of ${results.settings.lighthouseRuns} ` +
      "runs by performance; a11y dark = one run with prefers-color-scheme: dark.",
    keys,
    now: lh.pages,
    before: baseline?.lighthouse?.pages,
    columns: [
      { header: "performance = 100", value: (p) => p.performance, format: plain, meets: isPerfect },
      {
        header: paintBaseline ? "FCP, no slower" : "FCP",
        value: (p) => p.fcpMs,
        format: ms,
        meets: noSlower(paintBaseline),
      },
      { header: "LCP", value: (p) => p.lcpMs, format: ms },
      { header: "TBT", value: (p) => p.tbtMs, format: ms },
    ],
  });
  printTable({
    title: "4 (continued). Unused JavaScript (the unused-javascript audit's wasted bytes) and accessibility.",
    keys,
    now: lh.pages,
    before: baseline?.lighthouse?.pages,
    columns: [
      {
        header: "unused JS, none",
        value: unusedJsBytes,
        format: unusedJs,
        meets: isNone,
      },
      { header: "a11y light", value: (p) => p.accessibility, format: plain },
      { header: "a11y dark", value: (p) => p.accessibilityDark, format: plain },
      { header: "perf of each run", value: (p) => p.performanceOfEachRun.join(" "), format: plain },
    ],
  });
  for (const [path, page] of Object.entries(lh.pages)) {
    if (page.failing.length) console.log(`  ${path} below 90: ${page.failing.join(", ")}`);
    for (const error of page.errors) console.log(`  ${path}: a run failed: ${error}`);
  }
}

/**
 * How many measures with a target meet it: per page the byte budgets, blocking, Lighthouse performance 100 with no
 * unused JavaScript and, against a build measured in the same run, first paint and Lighthouse FCP no slower; per tap
 * the time to a usable dialog.
 */
export function printTargetSummary(results, targets, paintBaseline) {
  const checks = [];
  for (const [path, page] of Object.entries(results.pages)) {
    if (page.scripts) checks.push(page.scripts.upFront.bytes <= targets.upFrontJs);
    if (page.scripts) checks.push(page.scripts.firstWindow.bytes <= targets.firstWindowJs);
    if (page.reading) checks.push(page.reading.blockingMs <= targets.blockingMs);
    const before = paintBaseline?.pages[path]?.reading?.fcpMs;
    if (page.reading && before != null) checks.push(noSlowerThan(page.reading.fcpMs, before));
  }
  for (const [path, page] of Object.entries(results.lighthouse?.pages ?? {})) {
    checks.push(isPerfect(page.performance) && isNone(unusedJsBytes(page)));
    const before = paintBaseline?.lighthouse?.pages[path]?.fcpMs;
    if (before != null) checks.push(noSlowerThan(page.fcpMs, before));
  }
  for (const tap of Object.values(results.taps)) checks.push(tap.medianMs != null && tap.medianMs <= targets.tapMs);
  console.log(`\nTargets met: ${checks.filter(Boolean).length} of ${checks.length}.`);
}
