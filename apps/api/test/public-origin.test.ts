/**
 * The public origin is a run-time setting: one build of the site, served by the real server process started with
 * PUBLIC_ORIGIN=A, carries A in its canonical links, Open Graph URLs, sitemap, RSS feed and robots.txt; restarted
 * with B, without a rebuild, it carries B. The placeholder origin the build writes (PUBLIC_ORIGIN_PLACEHOLDER)
 * never reaches a visitor: every built text file is asked for, in every encoding, and none answers with it.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { PUBLIC_ORIGIN_PLACEHOLDER } from "@flotilla/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSigningKeyPem } from "./helpers/test-app";

const API_DIR = fileURLToPath(new URL("..", import.meta.url));
const ROOT = join(API_DIR, "../..");
const SERVER = join(API_DIR, "dist/server.js");
const BUILT_SITE = join(ROOT, "apps/web/build/client");
const PORT = 5700 + Math.floor(Math.random() * 800);
const BASE = `http://127.0.0.1:${PORT}`;
/** What the build may write the origin into (apps/web/scripts/finish-build.mjs compresses the same kinds). */
const TEXT = /\.(html|js|css|svg|json|xml|txt|data|webmanifest)$/;
const ORIGINS = ["https://a.example", "https://flotilla-b.example:8443"] as const;

let siteDir: string;
let dataDir: string;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

beforeAll(() => {
  if (!existsSync(join(BUILT_SITE, "index.html"))) {
    spawnSync("npm", ["run", "build", "-w", "@flotilla/web"], { cwd: ROOT, stdio: "inherit" });
  }
  if (!existsSync(SERVER)) spawnSync(process.execPath, [join(API_DIR, "scripts/build.mjs")], { stdio: "inherit" });
  // A private copy: the site may be rebuilt while this runs. The video holds no URLs.
  siteDir = mkdtempSync(join(tmpdir(), "flotilla-origin-site-"));
  cpSync(BUILT_SITE, siteDir, { recursive: true, filter: (source) => !source.startsWith(join(BUILT_SITE, "video")) });
  dataDir = mkdtempSync(join(tmpdir(), "flotilla-origin-data-"));
}, 180_000);

afterAll(() => {
  rmSync(siteDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

async function startServer(origin: string): Promise<{ child: ChildProcess; output: () => string }> {
  let output = "";
  const child = spawn(process.execPath, [SERVER], {
    env: {
      ...process.env,
      PORT: String(PORT),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      PUBLIC_ORIGIN: origin,
      SITE_DIR: siteDir,
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      BACKGROUND_JOBS: "false",
      // The origin is not loopback: the development sign-in has to be asked for (nobody else reaches this port),
      // and the secrets set, not generated (decision 0038).
      DEV_SIGN_IN: "true",
      APP_SECRET: "origin-secret-origin-secret-origin-secret",
      LICENSE_SIGNING_KEY: newSigningKeyPem(),
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr!.on("data", (chunk) => {
    output += String(chunk);
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      if ((await fetch(`${BASE}/api/ready`)).ok) return { child, output: () => output };
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`server did not become ready: ${output}`);
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

const text = async (path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`${BASE}${path}`, { headers });
  return { response, body: await response.text() };
};

const attribute = (html: string, pattern: RegExp) => pattern.exec(html)?.[1];

/** Each served page's own URL per the origin in charge: / → origin/, /pricing → origin/pricing. */
const PAGES = ["/", "/pricing", "/docs/agents", "/blog/pricing-philosophy"];
const etags = new Map<string, string>();

describe.each(ORIGINS)("one build, started with PUBLIC_ORIGIN=%s", (origin) => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer(origin);
  }, 90_000);
  afterAll(async () => {
    if (server) await stopServer(server.child);
  });

  it("canonical links, og:url and og:image carry the origin; links between pages stay relative", async () => {
    const escaped = origin.replace(/[.:/]/g, "\\$&");
    for (const path of PAGES) {
      const { response, body } = await text(path);
      expect(response.status, path).toBe(200);
      const url = `${origin}${path}`;
      expect(attribute(body, /<link rel="canonical" href="([^"]+)"/), path).toBe(url);
      expect(attribute(body, /<meta property="og:url" content="([^"]+)"/), path).toBe(url);
      expect(attribute(body, /<meta property="og:image" content="([^"]+)"/), path).toMatch(
        new RegExp(`^${escaped}/images/`),
      );
      // Links between pages stay relative: the origin is only where an absolute URL is needed.
      expect(body, path).toMatch(/<a [^>]*href="\/pricing"/);
      expect(body, path).not.toMatch(new RegExp(`<a [^>]*href="${escaped}`));
    }
    const home = await fetch(`${BASE}/`);
    etags.set(origin, String(home.headers.get("etag")));
  });

  it("sitemap.xml, the blog's RSS feed and robots.txt carry the origin", async () => {
    const sitemap = (await text("/sitemap.xml")).body;
    const locs = [...sitemap.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!);
    expect(locs.length).toBeGreaterThan(10);
    for (const loc of locs) expect(loc.startsWith(`${origin}/`), loc).toBe(true);
    expect(locs).toContain(`${origin}/pricing`);

    const rss = (await text("/blog/rss.xml")).body;
    expect(rss).toContain(`<link>${origin}/blog</link>`);
    expect(rss).toContain(`<atom:link href="${origin}/blog/rss.xml"`);
    const items = [...rss.matchAll(/<item>[\s\S]*?<link>([^<]+)<\/link>/g)].map((match) => match[1]!);
    expect(items.length).toBeGreaterThan(0);
    for (const link of items) expect(link.startsWith(`${origin}/blog/`), link).toBe(true);

    const robots = (await text("/robots.txt")).body;
    expect(robots).toContain(`Sitemap: ${origin}/sitemap.xml`);
  });

  it("the CSP still allows exactly the inline scripts of the page as served", async () => {
    for (const path of PAGES) {
      const { response, body } = await text(path);
      const policy = String(response.headers.get("content-security-policy"));
      const inline = [...body.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)]
        .map((match) => match[1]!)
        .filter((script) => script.length > 0);
      expect(inline.length, path).toBeGreaterThan(0);
      for (const script of inline) {
        expect(policy, path).toContain(`'sha256-${createHash("sha256").update(script).digest("base64")}'`);
      }
    }
  });

  it("a revalidation with the current ETag is answered 304", async () => {
    for (const path of ["/", "/sitemap.xml"]) {
      const etag = (await fetch(`${BASE}${path}`)).headers.get("etag");
      expect(etag, path).toBeTruthy();
      const again = await fetch(`${BASE}${path}`, { headers: { "if-none-match": etag! } });
      expect(again.status, path).toBe(304);
    }
  });

  it("no answer carries the placeholder: every built text file, its .br and .gz, in every encoding", async () => {
    // The build writes the placeholder wherever it needs the origin (pages, sitemap, feeds, robots, scripts).
    const written = files(siteDir).filter(
      (file) => TEXT.test(file) && readFileSync(file).includes(PUBLIC_ORIGIN_PLACEHOLDER),
    );
    expect(written.length, "files of the build holding the placeholder").toBeGreaterThan(20);
    const paths = files(siteDir)
      .map((file) => `/${relative(siteDir, file)}`)
      .filter((path) => TEXT.test(path.replace(/\.(br|gz)$/, "")));
    // Pages by their addresses, and the answers that are not a file of their own.
    paths.push(...PAGES, "/docs", "/no/such/page", "/dashboard", "/login", "/docs/no-such-page", "/docs/x.data");
    let checked = 0;
    const leaks: string[] = [];
    for (const path of paths) {
      for (const encoding of ["br", "gzip", "identity"]) {
        const response = await fetch(`${BASE}${path}`, { headers: { "accept-encoding": encoding } });
        // fetch undoes the Content-Encoding; a .br/.gz file answered as itself is undone here.
        let body = Buffer.from(await response.arrayBuffer());
        for (const decode of [brotliDecompressSync, gunzipSync]) {
          try {
            body = decode(body);
          } catch {}
        }
        checked++;
        if (body.includes(PUBLIC_ORIGIN_PLACEHOLDER)) leaks.push(`${path} (${encoding}) → ${response.status}`);
      }
    }
    expect(checked).toBeGreaterThan(300);
    expect(leaks, `the placeholder origin was served:\n${leaks.join("\n")}`).toEqual([]);
  });
});

describe("across a restart with another origin", () => {
  it("the home page's ETag changed with its content, so caches fetch the new one", () => {
    expect(etags.size).toBe(2);
    expect(etags.get(ORIGINS[0])).not.toBe(etags.get(ORIGINS[1]));
  });
});
