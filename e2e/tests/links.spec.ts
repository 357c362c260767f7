/**
 * Content integrity of the built site, read from disk (no browser): every internal link, asset and #anchor in
 * every prerendered page resolves, every image has an alt attribute, and the sitemap lists exactly the public
 * pages. All problems are reported together.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { PUBLIC_ORIGIN_PLACEHOLDER } from "../../packages/contracts/src/brand";
import { CLIENT_ONLY_PATHS } from "../../packages/contracts/src/navigation";
import { expect, test } from "./fixtures";

const SITE_DIR = new URL("../../apps/web/build/client/", import.meta.url).pathname;
/** Served by the SPA fallback, never prerendered: links may point at them, but they hold no anchors to check. */
const CLIENT_ONLY: readonly string[] = CLIENT_ONLY_PATHS;
/** Routes that must never be in the sitemap, whatever else changes. */
const NEVER_IN_SITEMAP = [/^\/login$/, /^\/dashboard/, /^\/auth\//, /^\/404$/, /^\/newsletter\//];

interface Tag {
  name: string;
  attributes: Map<string, string | true>;
}

interface Page {
  file: string;
  /** The site path the file is served at, e.g. /docs/agents. */
  path: string;
  tags: Tag[];
  ids: Set<string>;
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = join(dir, entry);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

/** Start tags with their attributes, outside scripts, styles and comments (the hydration data repeats markup). */
function parseTags(html: string): Tag[] {
  const markup = html
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/(<script\b[^>]*>)[\s\S]*?<\/script>/gi, "$1")
    .replace(/(<style\b[^>]*>)[\s\S]*?<\/style>/gi, "$1");
  const tags: Tag[] = [];
  for (const [, name, rest] of markup.matchAll(/<([a-zA-Z][\w-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g)) {
    const attributes = new Map<string, string | true>();
    for (const [, key, double, single, bare] of rest!.matchAll(
      /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g,
    )) {
      const value = double ?? single ?? bare;
      attributes.set(key!.toLowerCase(), value === undefined ? true : decodeEntities(value));
    }
    tags.push({ name: name!.toLowerCase(), attributes });
  }
  return tags;
}

function decodeEntities(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

function sitePathOf(file: string): string {
  const rel = relative(SITE_DIR, file).split(sep).join("/");
  if (rel === "index.html") return "/";
  if (rel.endsWith("/index.html")) return `/${rel.slice(0, -"/index.html".length)}`;
  return `/${rel}`;
}

function loadPages(): Page[] {
  return walk(SITE_DIR)
    .filter((file) => file.endsWith(".html"))
    .sort()
    .map((file) => {
      const tags = parseTags(readFileSync(file, "utf8"));
      const ids = new Set(
        tags.flatMap((tag) =>
          typeof tag.attributes.get("id") === "string" ? [tag.attributes.get("id") as string] : [],
        ),
      );
      return { file, path: sitePathOf(file), tags, ids };
    });
}

const attr = (tag: Tag, name: string) => {
  const value = tag.attributes.get(name);
  return typeof value === "string" ? value : undefined;
};

/** The URL references a tag makes to be checked, with what they must lead to. */
function referencesOf(tag: Tag): { url: string; kind: "page" | "asset" }[] {
  const refs: { url: string; kind: "page" | "asset" }[] = [];
  const add = (url: string | undefined, kind: "page" | "asset") => {
    if (url !== undefined) refs.push({ url: url.trim(), kind });
  };
  switch (tag.name) {
    case "a":
      add(attr(tag, "href"), "page");
      break;
    case "img":
      add(attr(tag, "src"), "asset");
      for (const candidate of (attr(tag, "srcset") ?? "").split(",")) {
        const url = candidate.trim().split(/\s+/)[0];
        if (url) add(url, "asset");
      }
      break;
    case "script":
      add(attr(tag, "src"), "asset");
      break;
    case "video":
      add(attr(tag, "src"), "asset");
      add(attr(tag, "poster"), "asset");
      break;
    case "source":
      add(attr(tag, "src"), "asset");
      for (const candidate of (attr(tag, "srcset") ?? "").split(",")) {
        const url = candidate.trim().split(/\s+/)[0];
        if (url) add(url, "asset");
      }
      break;
    case "link": {
      const rel = (attr(tag, "rel") ?? "").toLowerCase().split(/\s+/);
      add(attr(tag, "href"), rel.includes("canonical") || rel.includes("alternate") ? "page" : "asset");
      break;
    }
    case "meta": {
      // Social preview images (og:image, twitter:image) are absolute URLs on the site.
      const property = attr(tag, "property") ?? attr(tag, "name") ?? "";
      if (/^(og|twitter):image$/.test(property)) add(attr(tag, "content"), "asset");
      break;
    }
  }
  return refs;
}

test("every internal link, asset and #anchor of the built site resolves; images have alt text", async ({ request }) => {
  expect(existsSync(join(SITE_DIR, "index.html")), `no build in ${SITE_DIR}: run npm run build`).toBe(true);
  const pages = loadPages();
  const byPath = new Map(pages.map((page) => [page.path, page]));
  const home = byPath.get("/")!;
  const canonical = home.tags.find((tag) => tag.name === "link" && attr(tag, "rel") === "canonical");
  /** The build writes absolute URLs with the placeholder origin (the server puts its PUBLIC_ORIGIN in): internal too. */
  const origin = new URL(attr(canonical!, "href")!).origin;
  expect(origin, "the build names the placeholder origin, not a build-time one").toBe(PUBLIC_ORIGIN_PLACEHOLDER);

  const problems: string[] = [];
  /** Links into the JSON API (e.g. the OpenAPI document): served by the API process, asked of the server. */
  const apiLinks = new Map<string, string>();
  let checked = 0;
  for (const page of pages) {
    const base = new URL(page.path, origin);
    const where = relative(SITE_DIR, page.file);
    for (const tag of page.tags) {
      if (tag.name === "img" && !tag.attributes.has("alt")) {
        problems.push(`${where}: <img src="${attr(tag, "src") ?? ""}"> has no alt attribute`);
      }
      for (const { url, kind } of referencesOf(tag)) {
        if (url === "") {
          problems.push(`${where}: <${tag.name}> with an empty URL`);
          continue;
        }
        let target: URL;
        try {
          target = new URL(url, base);
        } catch {
          problems.push(`${where}: <${tag.name}> has an invalid URL "${url}"`);
          continue;
        }
        if (target.origin !== origin) continue; // another site, mailto:, tel: …
        checked++;
        const path = decodeURIComponent(target.pathname);
        if (path === "/api" || path.startsWith("/api/")) {
          apiLinks.set(`${target.pathname}${target.search}`, `${where}: <${tag.name}> ${url}`);
          continue;
        }
        const fragment = decodeURIComponent(target.hash.slice(1));
        const file = join(SITE_DIR, path);
        const isFile = existsSync(file) && statSync(file).isFile();
        const targetPage = byPath.get(path.length > 1 ? path.replace(/\/$/, "") : path);
        const clientOnly = CLIENT_ONLY.includes(path);
        const found = kind === "asset" ? isFile : isFile || targetPage !== undefined || clientOnly;
        if (!found) {
          problems.push(`${where}: <${tag.name}> ${url} → nothing is built at ${path}`);
          continue;
        }
        if (fragment) {
          if (!targetPage) {
            problems.push(
              `${where}: <${tag.name}> ${url} → #${fragment} points into ${path}, which has no prerendered page`,
            );
          } else if (!targetPage.ids.has(fragment)) {
            problems.push(`${where}: <${tag.name}> ${url} → no element with id "${fragment}" on ${path}`);
          }
        }
      }
    }
  }
  for (const [path, source] of apiLinks) {
    const response = await request.get(path);
    if (!response.ok()) problems.push(`${source} → the API answers ${response.status()}`);
  }
  expect(checked, "the walk found no internal references: is the parser broken?").toBeGreaterThan(100);
  expect(problems, `${problems.length} broken reference(s) in the built site:\n${problems.join("\n")}`).toEqual([]);
});

test("sitemap.xml lists every public prerendered page, by its canonical URL, and nothing else", () => {
  const pages = loadPages();
  const sitemap = readFileSync(join(SITE_DIR, "sitemap.xml"), "utf8");
  const listed = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => decodeEntities(match[1]!.trim()));

  const problems: string[] = [];
  const expected = new Set<string>();
  for (const page of pages) {
    if (!page.file.endsWith("index.html")) continue; // the SPA fallback shell is not a page of its own
    const robots = page.tags.find((tag) => tag.name === "meta" && attr(tag, "name") === "robots");
    const noindex = /noindex/i.test(robots ? (attr(robots, "content") ?? "") : "");
    const link = page.tags.find((tag) => tag.name === "link" && attr(tag, "rel") === "canonical");
    const canonical = link ? attr(link, "href") : undefined;
    if (noindex || NEVER_IN_SITEMAP.some((pattern) => pattern.test(page.path))) continue;
    if (!canonical) {
      problems.push(`${page.path}: a public page without a canonical link`);
      continue;
    }
    expected.add(canonical);
  }

  const seen = new Set<string>();
  for (const url of listed) {
    if (seen.has(url)) problems.push(`sitemap lists ${url} twice`);
    seen.add(url);
    const path = new URL(url).pathname;
    if (NEVER_IN_SITEMAP.some((pattern) => pattern.test(path))) problems.push(`sitemap lists ${url}, a private page`);
    if (!expected.has(url)) problems.push(`sitemap lists ${url}, which is no public prerendered page's canonical URL`);
  }
  for (const url of expected) {
    if (!seen.has(url)) problems.push(`sitemap misses ${url}`);
  }
  expect(listed.length).toBeGreaterThan(20);
  expect(problems, `sitemap.xml is wrong:\n${problems.join("\n")}`).toEqual([]);
});

test("the docs search index and the RSS feed lead to existing pages and anchors", () => {
  const pages = new Map(loadPages().map((page) => [page.path, page]));
  const problems: string[] = [];

  // Search results navigate to /docs/{slug}#{heading id}.
  const index = JSON.parse(readFileSync(join(SITE_DIR, "search-index.json"), "utf8")) as {
    documentIds: Record<string, string>;
  };
  const ids = Object.values(index.documentIds);
  for (const id of ids) {
    const [slug, anchor] = id.split("#") as [string, string | undefined];
    const page = pages.get(`/docs/${slug}`);
    if (!page) problems.push(`search-index.json: ${id} → no page /docs/${slug}`);
    else if (anchor && !page.ids.has(anchor))
      problems.push(`search-index.json: ${id} → no id "${anchor}" on /docs/${slug}`);
  }

  const rss = readFileSync(join(SITE_DIR, "blog/rss.xml"), "utf8");
  const links = [...rss.matchAll(/<(?:link|guid)[^>]*>([^<]+)<\/(?:link|guid)>/g)].map((match) =>
    decodeEntities(match[1]!.trim()),
  );
  for (const link of links) {
    const path = new URL(link).pathname;
    if (!pages.has(path)) problems.push(`blog/rss.xml: ${link} → no prerendered page ${path}`);
  }

  expect(ids.length).toBeGreaterThan(50);
  expect(links.length).toBeGreaterThan(8);
  expect(problems, `${problems.length} dead end(s):\n${problems.join("\n")}`).toEqual([]);
});
