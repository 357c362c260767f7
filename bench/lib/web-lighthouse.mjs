// Measure 4 of bench/web.mjs: Lighthouse mobile (its default: Moto G Power, simulated slow 4G and 4× CPU), median of
// several runs by performance score, plus one accessibility-only run per page with prefers-color-scheme: dark.

import { turn } from "./web-before.mjs";

/** Chromium's web setting for prefers-color-scheme (0 = dark): Lighthouse itself has no option for it. */
export const DARK_FLAG = "--blink-settings=preferredColorScheme=0";

async function loadLighthouse() {
  try {
    const lighthouse = (await import("lighthouse")).default;
    const launcher = await import("chrome-launcher");
    const { version } = (await import("lighthouse/package.json", { with: { type: "json" } })).default;
    return { lighthouse, launcher, version };
  } catch {
    return null;
  }
}

function unusedJavaScript(audit) {
  const items = audit?.details?.items ?? [];
  return {
    items: items.length,
    wastedBytes: items.reduce((total, item) => total + (item.wastedBytes ?? 0), 0),
    urls: items.map((item) => new URL(item.url).pathname),
  };
}

function summarize(lhr) {
  const score = (id) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
  const ms = (id) => Math.round(lhr.audits[id]?.numericValue ?? Number.NaN);
  const failing = Object.values(lhr.audits)
    .filter(
      (a) =>
        a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== "informative" && a.scoreDisplayMode !== "manual",
    )
    .map((a) => a.id);
  return {
    error: lhr.runtimeError ? `${lhr.runtimeError.code}: ${lhr.runtimeError.message}` : null,
    performance: score("performance"),
    accessibility: score("accessibility"),
    bestPractices: score("best-practices"),
    seo: score("seo"),
    fcpMs: ms("first-contentful-paint"),
    lcpMs: ms("largest-contentful-paint"),
    tbtMs: ms("total-blocking-time"),
    cls: Number((lhr.audits["cumulative-layout-shift"]?.numericValue ?? 0).toFixed(3)),
    unusedJs: unusedJavaScript(lhr.audits["unused-javascript"]),
    failing,
  };
}

function median(runs) {
  const ok = runs.filter((r) => !r.error).sort((a, b) => a.performance - b.performance);
  const middle = ok[Math.floor((ok.length - 1) / 2)] ?? runs[0];
  return {
    ...middle,
    performanceOfEachRun: runs.map((r) => (r.error ? "error" : r.performance)),
    errors: runs.filter((r) => r.error).map((r) => r.error),
  };
}

const options = (port, extra = {}) => ({ port, output: "json", logLevel: "error", ...extra });

async function withChrome(launcher, chromePath, flags, work) {
  const chrome = await launcher.launch({ chromePath, chromeFlags: flags });
  try {
    return await work(chrome.port);
  } finally {
    await chrome.kill();
  }
}

/**
 * Returns { version, sites: { [key]: { [path]: summary } } } for each site in `bases` ({ now: url, before: url }), or
 * null when lighthouse is not installed. The sites take turns run by run, so a busy minute hits both alike.
 * `accessibilityDark` is the accessibility score with the browser preferring dark (one run: it does not vary).
 */
export async function lighthouseScores({ bases, paths, runs, chromePath, flags }) {
  const lib = await loadLighthouse();
  if (!lib) return null;
  const { lighthouse, launcher, version } = lib;
  const keys = Object.keys(bases);
  const sites = Object.fromEntries(keys.map((key) => [key, {}]));
  await withChrome(launcher, chromePath, flags, async (port) => {
    for (const path of paths) {
      const each = Object.fromEntries(keys.map((key) => [key, []]));
      for (let run = 0; run < runs; run++) {
        for (const key of turn(keys, run)) {
          const url = `${bases[key]}${path}`;
          // Lighthouse sometimes fails to record the trace (NO_NAVSTART) on a busy machine: such a run is tried again once.
          let summary = summarize((await lighthouse(url, options(port))).lhr);
          if (summary.error) summary = summarize((await lighthouse(url, options(port))).lhr);
          each[key].push(summary);
        }
      }
      for (const key of keys) sites[key][path] = median(each[key]);
    }
  });
  await withChrome(launcher, chromePath, [...flags, DARK_FLAG], async (port) => {
    for (const path of paths) {
      for (const key of keys) {
        const { lhr } = await lighthouse(`${bases[key]}${path}`, options(port, { onlyCategories: ["accessibility"] }));
        sites[key][path].accessibilityDark = lhr.runtimeError
          ? null
          : Math.round(lhr.categories.accessibility.score * 100);
      }
    }
  });
  return { version, sites };
}
