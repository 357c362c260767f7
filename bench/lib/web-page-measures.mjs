// The in-browser measures of bench/web.mjs (Playwright driving Debian Chromium): script bytes, main-thread
// blocking and first paint while reading, and tap → usable dialog. Each run gets a fresh browser context.
import { gzipSync } from "node:zlib";

const gz = (text) => gzipSync(text, { level: 9 }).length;

/** Script types that run; `text/x-module` (an inert copy), JSON-LD and import maps do not. */
const RUNNABLE_SCRIPT_TYPE = /^(|module|text\/javascript|application\/javascript)$/i;
const SCRIPT_TAG = /<script\b([^>]*)>([\s\S]*?)<\/script>/gi;

/** The inline scripts of the served HTML that run as it is parsed (what the page starts with, not what it adds). */
export function inlineScripts(html) {
  const scripts = [];
  for (const [, attributes, body] of html.matchAll(SCRIPT_TAG)) {
    if (/\bsrc\s*=/i.test(attributes)) continue;
    const type = /\btype\s*=\s*["']?([^"'\s>]*)/i.exec(attributes)?.[1] ?? "";
    if (RUNNABLE_SCRIPT_TYPE.test(type) && body.trim()) scripts.push(body);
  }
  return scripts;
}

async function phonePage(browser, profile, { cpuRate = 1, initScript, initArg } = {}) {
  const context = await browser.newContext(profile);
  const page = await context.newPage();
  if (cpuRate !== 1) {
    const cdp = await context.newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: cpuRate });
  }
  if (initScript) await page.addInitScript(initScript, initArg);
  return { context, page };
}

/** Waits, without touching the page, until `ms` after its navigation start. */
async function idleUntil(page, ms) {
  const now = await page.evaluate(() => performance.now());
  if (now < ms) await page.waitForTimeout(ms - now);
}

function raiseResourceBuffer() {
  performance.setResourceTimingBufferSize(1000);
}

/**
 * Measures 1 and 2, unthrottled: every script response in the first `windowMs` (no interaction), and which of them
 * were requested before the load event. Inline scripts of the HTML count as run up front.
 */
export async function measureScripts(browser, url, { profile, windowMs }) {
  const { context, page } = await phonePage(browser, profile, { initScript: raiseResourceBuffer });
  const bodies = new Map();
  page.on("response", (response) => {
    const type = response.request().resourceType();
    if (type === "script" || type === "stylesheet")
      bodies.set(response.url(), { type, body: response.body().catch(() => null) });
  });
  try {
    const navigation = await page.goto(url, { waitUntil: "load" });
    const html = (await navigation?.text()) ?? "";
    await idleUntil(page, windowMs);
    const { loadStart, starts } = await page.evaluate(() => ({
      loadStart: performance.getEntriesByType("navigation")[0]?.loadEventStart ?? 0,
      starts: Object.fromEntries(performance.getEntriesByType("resource").map((e) => [e.name, e.startTime])),
    }));
    const files = [];
    for (const [fileUrl, { type, body }] of bodies) {
      const startTime = starts[fileUrl];
      if (startTime === undefined || startTime > windowMs) continue;
      const content = await body;
      const bytes = content ? gz(content) : 0;
      files.push({ url: new URL(fileUrl).pathname, type, bytes, startTime: Math.round(startTime) });
    }
    const scripts = files.filter((file) => file.type === "script");
    const upFront = scripts.filter((file) => file.startTime < loadStart);
    const inline = inlineScripts(html);
    const inlineBytes = inline.length ? gz(inline.join("\n")) : 0;
    const sum = (list) => list.reduce((total, file) => total + file.bytes, 0);
    return {
      status: navigation?.status() ?? null,
      upFront: { bytes: sum(upFront) + inlineBytes, files: upFront.length, inlineBytes, inlineScripts: inline.length },
      firstWindow: { bytes: sum(scripts), files: scripts.length },
      css: { bytes: sum(files.filter((file) => file.type === "stylesheet")) },
      scripts: scripts.map(({ url, bytes, startTime }) => ({ url, bytes, startTime, upFront: startTime < loadStart })),
    };
  } finally {
    await context.close();
  }
}

/** In the page from its first byte: keeps every long task and nothing else. */
function observeLongTasks() {
  window.__benchLongTasks = [];
  try {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        window.__benchLongTasks.push({ start: entry.startTime, duration: entry.duration });
      }
    }).observe({ type: "longtask", buffered: true });
  } catch {}
}

/** Measures 3 and 6 for one load: long tasks (duration − 50 ms each) up to `windowMs`, and the first contentful paint. */
export async function measureReading(browser, url, { profile, cpuRate, windowMs }) {
  const { context, page } = await phonePage(browser, profile, { cpuRate, initScript: observeLongTasks });
  try {
    await page.goto(url, { waitUntil: "load" });
    await idleUntil(page, windowMs);
    const { tasks, loadStart, fcp } = await page.evaluate(() => ({
      tasks: window.__benchLongTasks,
      loadStart: performance.getEntriesByType("navigation")[0]?.loadEventStart ?? 0,
      fcp: performance.getEntriesByType("paint").find((e) => e.name === "first-contentful-paint")?.startTime ?? null,
    }));
    const inWindow = tasks.filter((task) => task.start < windowMs);
    const blocking = (list) => Math.round(list.reduce((total, task) => total + Math.max(0, task.duration - 50), 0));
    return {
      blockingMs: blocking(inWindow),
      blockingAfterLoadMs: blocking(inWindow.filter((task) => task.start >= loadStart)),
      longTasks: inWindow.length,
      loadMs: Math.round(loadStart),
      fcpMs: fcp === null ? null : Math.round(fcp),
    };
  } finally {
    await context.close();
  }
}

/**
 * In the page from its first byte: at the first pointerdown (capture phase, before the page's own listeners) note
 * the time, then check every frame for a visible, enabled element matching `usable` and note when one appears.
 */
function watchTap(usable) {
  addEventListener(
    "pointerdown",
    (event) => {
      if (window.__benchTap) return;
      const tap = { downAt: performance.now(), inputDelay: performance.now() - event.timeStamp, usableAt: null };
      window.__benchTap = tap;
      const ready = () =>
        [...document.querySelectorAll(usable)].some(
          (el) => !el.disabled && el.checkVisibility({ opacityProperty: true, visibilityProperty: true }),
        );
      const poll = () => {
        if (ready()) tap.usableAt = performance.now();
        else requestAnimationFrame(poll);
      };
      requestAnimationFrame(poll);
    },
    { capture: true },
  );
}

/** The first visible element the target's button selector matches; `within` narrows it to a landmark. */
function tapButton(page, button) {
  const scope = button.within ? page.locator(button.within) : page;
  return scope.getByRole("button", { name: button.name }).filter({ visible: true }).first();
}

/**
 * Measure 5, one tap: load `target.path`, reload (warm HTTP cache), wait, tap the button, then time from the
 * pointerdown to a usable dialog. Returns { ms } or { error: "n/a: …" | "timeout" }.
 */
export async function measureTap(browser, base, target, { profile, cpuRate, settleMs, timeoutMs }) {
  const { context, page } = await phonePage(browser, profile, {
    cpuRate,
    initScript: watchTap,
    initArg: target.usable,
  });
  try {
    await page.goto(`${base}${target.path}`, { waitUntil: "load" });
    await page.reload({ waitUntil: "load" });
    await page.waitForTimeout(settleMs);
    const button = tapButton(page, target.button);
    if ((await button.count()) === 0) return { error: "n/a: button not found" };
    await button.tap({ timeout: 5000 });
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const tap = await page.evaluate(() => window.__benchTap ?? null);
      if (tap?.usableAt != null) {
        return { ms: Math.round(tap.usableAt - tap.downAt), inputDelayMs: Math.round(tap.inputDelay) };
      }
      await page.waitForTimeout(50);
    }
    return { error: "timeout" };
  } catch (error) {
    return { error: `n/a: ${error.message.split("\n")[0]}` };
  } finally {
    await context.close();
  }
}
