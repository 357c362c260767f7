/**
 * Code splitting of the built site, read from disk (no browser): the operator console's code lives in chunks of
 * its own, which no public page, no client-only page (the dashboard, sign-in…) and no shared entry loads.
 * React Router's route manifest names every route module (that is how a client-side navigation finds one); a page
 * only downloads the modules of the routes it renders and what they import.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { expect, test } from "./fixtures";

const SITE_DIR = new URL("../../apps/web/build/client/", import.meta.url).pathname;
const ASSETS = join(SITE_DIR, "assets");

interface RouteEntry {
  id: string;
  module: string;
  imports?: string[];
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = join(dir, entry);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

function readManifest(): { entry: { module: string; imports: string[] }; routes: Record<string, RouteEntry> } {
  const file = readdirSync(ASSETS).find((name) => /^manifest-[\w-]+\.js$/.test(name));
  if (!file) throw new Error("no route manifest in build/client/assets: run `npm run build` first");
  const text = readFileSync(join(ASSETS, file), "utf8");
  return JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1));
}

test("the admin console's code is in chunks that public pages and the dashboard never load", () => {
  const { entry, routes } = readManifest();
  const admin = routes["routes/admin"];
  expect(admin, "the /admin route is in the route manifest").toBeDefined();
  const others = Object.values(routes).filter((route) => route.id !== "routes/admin");
  expect(others.map((route) => route.id)).toEqual(expect.arrayContaining(["routes/home", "routes/dashboard"]));

  // What any other page can load: the entry, and every other route's module and imports.
  const loadedElsewhere = new Set([
    entry.module,
    ...entry.imports,
    ...others.flatMap((route) => [route.module, ...(route.imports ?? [])]),
  ]);
  const adminOnly = [admin!.module, ...(admin!.imports ?? [])].filter((file) => !loadedElsewhere.has(file));
  expect(adminOnly, "the admin route module is its own chunk").toContain(admin!.module);
  const adminFiles = adminOnly.map((file) => basename(file));

  // The console's own code (its texts) is only in those chunks.
  const withConsoleCode = readdirSync(ASSETS).filter(
    (name) =>
      name.endsWith(".js") &&
      /Operator console|Register a webhook endpoint/.test(readFileSync(join(ASSETS, name), "utf8")),
  );
  expect(withConsoleCode.length).toBeGreaterThan(0);
  for (const name of withConsoleCode) expect(adminFiles, `${name} holds console code`).toContain(name);

  // No page's HTML (prerendered pages and the client-only shell behind /dashboard, /login…) preloads them…
  const problems: string[] = [];
  const pages = walk(SITE_DIR).filter((file) => file.endsWith(".html"));
  expect(pages.some((file) => file.endsWith("__spa-fallback.html"))).toBe(true);
  for (const page of pages) {
    const html = readFileSync(page, "utf8");
    for (const name of adminFiles) if (html.includes(name)) problems.push(`${page} references ${name}`);
  }
  // …and no chunk that another page loads imports them, statically or on demand.
  for (const file of loadedElsewhere) {
    const code = readFileSync(join(SITE_DIR, file), "utf8");
    for (const name of adminFiles) if (code.includes(name)) problems.push(`${file} references ${name}`);
  }
  expect(problems).toEqual([]);
});
