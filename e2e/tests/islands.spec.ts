/**
 * Content pages are static HTML with islands (docs/decisions/0040). From disk: no content page carries React
 * Router's runtime, what each runs up front stays within the budget (12 KB gzip, issue 23; Starlight sends about
 * 5 KB), and with the dialogs the opener fetches when idle, within 30 KB. In Chromium: a reader who does not touch
 * anything runs no React; a click opens the dialog.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { gzipSync } from "node:zlib";
import { expect, test } from "./fixtures";
import { signInToDashboard } from "./portal";

const SITE_DIR = new URL("../../apps/web/build/client/", import.meta.url).pathname;
/** Gzip bytes of JavaScript a content page may run before any interaction. */
const UP_FRONT_JS_BUDGET = 12 * 1024;
/** Gzip bytes a reader who touches nothing may fetch, the dialogs fetched when idle included (Starlight: 32.6 KB). */
const UNTOUCHED_JS_BUDGET = 30 * 1024;

function htmlPages(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) return htmlPages(full);
    return entry.endsWith(".html") && entry !== "__spa-fallback.html" ? [full] : [];
  });
}

/** What a page loads before any interaction: the islands its #islands list names and the chunks they import. */
function upFrontScripts(html: string): string[] {
  const list = /<script type="application\/json" id="islands">([^<]*)<\/script>/.exec(html);
  if (!list) return [];
  const { entries, preload } = JSON.parse(list[1]!) as { entries: { file: string }[]; preload: string[] };
  // Any other external script would run up front too, and would be outside the islands.
  const others = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((match) => match[1]!);
  return [...new Set([...entries.map((entry) => entry.file), ...preload, ...others])];
}

test("no content page carries React Router's runtime, and each runs at most 12 KB of JavaScript up front", () => {
  const pages = htmlPages(SITE_DIR);
  expect(pages.length).toBeGreaterThanOrEqual(30);
  const report: Record<string, number> = {};
  for (const file of pages) {
    const html = readFileSync(file, "utf8");
    const page = relative(SITE_DIR, file);
    expect(html, `${page} hydrates React Router`).not.toContain("__reactRouterContext");
    expect(html, `${page} loads the app's entry`).not.toMatch(/entry\.client|manifest-[\w-]+\.js/);
    let bytes = 0;
    for (const src of upFrontScripts(html)) {
      expect(src, `${page} loads a script from outside the islands`).toMatch(/^\/assets\/islands\//);
      bytes += gzipSync(readFileSync(join(SITE_DIR, src)), { level: 9 }).length;
    }
    report[page] = bytes;
  }
  const over = Object.entries(report).filter(([, bytes]) => bytes > UP_FRONT_JS_BUDGET);
  expect(over, `over ${UP_FRONT_JS_BUDGET} B gzip up front`).toEqual([]);
  // Every page has its top bar, so every page has at least the header island.
  for (const [page, bytes] of Object.entries(report)) expect(bytes, page).toBeGreaterThan(0);
});

/** A dynamic island's chunk and every chunk it imports statically, from the islands build's manifest. */
function dialogChunks(name: string): string[] {
  type Chunk = { file: string; imports?: string[] };
  const manifest = JSON.parse(readFileSync(join(SITE_DIR, "assets/islands/manifest.json"), "utf8")) as Record<
    string,
    Chunk
  >;
  const files = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key]!;
    if (files.has(`/${chunk.file}`)) return;
    files.add(`/${chunk.file}`);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit(`app/islands/react/${name}.tsx`);
  return [...files];
}

test("with the dialogs fetched when idle, a reader who touches nothing fetches at most 30 KB of JavaScript", () => {
  const over: Record<string, number> = {};
  for (const file of htmlPages(SITE_DIR)) {
    const html = readFileSync(file, "utf8");
    const dialogs = new Set([...html.matchAll(/\sdata-opens="([a-z-]+)"/g)].map((match) => match[1]!));
    const scripts = new Set([...upFrontScripts(html), ...[...dialogs].flatMap(dialogChunks)]);
    let bytes = 0;
    for (const src of scripts) bytes += gzipSync(readFileSync(join(SITE_DIR, src)), { level: 9 }).length;
    if (bytes > UNTOUCHED_JS_BUDGET) over[relative(SITE_DIR, file)] = bytes;
  }
  expect(over, `over ${UNTOUCHED_JS_BUDGET} B gzip without a touch`).toEqual({});
});

test("shared chunks are as few as they can be: no two are fetched at the same moment on every page", () => {
  // Issue 35: 12 script files on a docs page against Starlight's 6. A shared chunk (imported, neither an island nor a
  // dialog) is fetched up front, when idle with the dialogs, or not at all on each page; two that always share that
  // moment could be one file at no cost, and the islands build's chunk groups should make them one.
  type Chunk = { file: string; isEntry?: boolean; isDynamicEntry?: boolean };
  const manifest = JSON.parse(readFileSync(join(SITE_DIR, "assets/islands/manifest.json"), "utf8")) as Record<
    string,
    Chunk
  >;
  const shared = Object.values(manifest)
    .filter((chunk) => !chunk.isEntry && !chunk.isDynamicEntry)
    .map((chunk) => `/${chunk.file}`);
  const moments = new Map<string, string>(shared.map((file) => [file, ""]));
  for (const file of htmlPages(SITE_DIR)) {
    const html = readFileSync(file, "utf8");
    const upFront = new Set(upFrontScripts(html));
    const dialogs = [...new Set([...html.matchAll(/\sdata-opens="([a-z-]+)"/g)].map((match) => match[1]!))];
    const idle = new Set(dialogs.flatMap(dialogChunks));
    // The dialogs' renderer is fetched only where a dialog can open (the blog's pages open none).
    if (dialogs.length === 0)
      expect(
        [...idle, ...upFront].filter((src) => /\/preact-/.test(src)),
        relative(SITE_DIR, file),
      ).toEqual([]);
    for (const chunk of shared) {
      const moment = upFront.has(chunk) ? "u" : idle.has(chunk) ? "i" : "-";
      moments.set(chunk, moments.get(chunk) + moment);
    }
  }
  // Kept apart on purpose (decision 0064): Preact and the dialog shell, so that neither makes a long compile task when
  // idle at 4× CPU.
  const apart = (pair: string) =>
    /\/preact-[\w-]+\.js \+ \/assets\/islands\/dialog-|\/dialog-[\w-]+\.js \+ \/assets\/islands\/preact-/.test(pair);
  const together = shared.flatMap((a, i) =>
    shared.slice(i + 1).flatMap((b) => (moments.get(a) === moments.get(b) ? [`${a} + ${b}`] : [])),
  );
  expect(
    together.filter((pair) => !apart(pair)),
    "shared chunks fetched at the same moment on every page",
  ).toEqual([]);
  // Where it stands (decision 0064): the docs pages fetch 9 files, the home page 11.
  const filesOf = (page: string) => {
    const html = readFileSync(join(SITE_DIR, page), "utf8");
    const dialogs = [...new Set([...html.matchAll(/\sdata-opens="([a-z-]+)"/g)].map((match) => match[1]!))];
    return new Set([...upFrontScripts(html), ...dialogs.flatMap(dialogChunks)]).size;
  };
  expect(filesOf("docs/agents/index.html")).toBeLessThanOrEqual(9);
  expect(filesOf("index.html")).toBeLessThanOrEqual(11);
});

test("the portal's shell still loads the React app", () => {
  const shell = readFileSync(join(SITE_DIR, "__spa-fallback.html"), "utf8");
  expect(shell).toContain("__reactRouterContext");
  expect(shell).not.toContain('id="islands"');
});

test("a reader who touches nothing runs no React: islands before the load, dialogs (Preact) when idle; a click opens one", async ({
  page,
}) => {
  const scripts: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script") scripts.push(new URL(request.url()).pathname);
  });
  await page.goto("/");
  // When idle, the dialogs' files are modulepreloaded (fetched and compiled), not imported: nothing of them runs. Once
  // they are, everything a reader's visit fetches on its own has been asked for.
  const signupFiles = dialogChunks("signup");
  await expect
    .poll(() =>
      page.evaluate(
        (files) => files.every((file) => document.querySelector(`link[rel="modulepreload"][href="${file}"]`)),
        signupFiles,
      ),
    )
    .toBe(true);
  const { beforeLoad, all, firstIslandAt, fcp } = await page.evaluate(() => {
    const load = performance.getEntriesByType("navigation")[0]!.toJSON().loadEventStart as number;
    const js = performance
      .getEntriesByType("resource")
      .filter((entry) => entry.name.endsWith(".js"))
      .map((entry) => ({ path: new URL(entry.name).pathname, start: entry.startTime }));
    return {
      beforeLoad: js.filter((entry) => entry.start < load).map((entry) => entry.path),
      all: js.map((e) => e.path),
      firstIslandAt: Math.min(...js.map((entry) => entry.start)),
      fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? null,
    };
  });
  expect(all.length).toBeGreaterThan(0);
  // Nothing is fetched before the first contentful paint: it waits for the HTML and the stylesheet only.
  expect(fcp).not.toBeNull();
  expect(firstIslandAt).toBeGreaterThanOrEqual(fcp!);
  expect(
    beforeLoad.some((path) => /\/(signup|preact)-/.test(path)),
    "no dialog before the load",
  ).toBe(false);
  // Everything a reader's browser fetches is an island: no React, React DOM or router chunk (build/client/assets/*).
  expect(
    all.every((path) => path.startsWith("/assets/islands/")),
    all.join(" "),
  ).toBe(true);

  const join = page.getByRole("main").getByRole("button", { name: "Get Early Access" }).first();
  await join.hover();
  await expect.poll(() => scripts.some((path) => /\/signup-[\w-]+\.js$/.test(path))).toBe(true);
  await join.click();
  const dialog = page.getByRole("dialog", { name: "Get Early Access" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel(/Email/).first()).toBeEditable();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(join).toBeFocused();
});

test("signed in, a content page's account island shows the user menu; sign out everywhere asks, then ends it", async ({
  page,
}) => {
  await signInToDashboard(page, "island-reader@example.com", "Island Reader");
  await page.goto("/docs/agents");
  const banner = page.getByRole("banner");
  await banner.getByRole("button", { name: "Account menu for Island Reader" }).click();
  await expect(banner.getByText("island-reader@example.com").filter({ visible: true })).toBeVisible();
  await banner.getByRole("button", { name: "Sign out everywhere" }).click();
  await expect(banner).toContainText("on every browser and device, this one included");
  await expect(banner.getByRole("button", { name: "Sign out all" })).toBeFocused();
  await banner.getByRole("button", { name: "Sign out all" }).click();
  await expect(page).toHaveURL(/\/login\?signed_out=everywhere$/);
  await expect(page.getByRole("status")).toHaveText(/You were signed out everywhere/);
  expect(await page.evaluate(() => localStorage.getItem("auth_token"))).toBeNull();
});
