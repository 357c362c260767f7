import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { PUBLIC_ORIGIN_PLACEHOLDER as PLACEHOLDER } from "@flotilla/contracts";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp } from "./helpers/test-app";

/** A miniature build output: the shape React Router's prerender writes. */
const FILES: Record<string, string> = {
  "index.html": "<h1>home</h1>",
  "pricing/index.html": "<h1>pricing</h1>",
  "docs/getting-started/index.html": "<h1>getting started</h1>",
  "docs/getting-started.data": "gs-data",
  "docs/agents/index.html":
    '<h1>agents</h1><script>window.x=1</script><script type="module" src="/assets/a.js"></script>',
  "docs/agents.data": "agents-data",
  "404/index.html": "<h1>not found page</h1>",
  "__spa-fallback.html": "<div>spa</div>",
  "assets/app-abc123.js": "console.log(1)",
  "sitemap.xml": "<urlset/>",
  // Where the build needs an absolute URL it writes the placeholder origin; the server puts its own in.
  "blog/index.html": `<link rel="canonical" href="${PLACEHOLDER}/blog"/><a href="/pricing">pricing</a><script>window.site="${PLACEHOLDER}"</script>${"<p>post</p>".repeat(200)}`,
  "blog/index.html.br": "the build's compressed copy, placeholder and all",
  "blog/index.html.gz": "the build's compressed copy, placeholder and all",
  "robots.txt": `Sitemap: ${PLACEHOLDER}/sitemap.xml\n`,
};
const ORIGIN = "https://flotilla.example";

let app: FastifyInstance;
let close: () => Promise<void>;
let siteDir: string;

beforeAll(async () => {
  siteDir = mkdtempSync(join(tmpdir(), "flotilla-site-"));
  for (const [path, body] of Object.entries(FILES)) {
    mkdirSync(dirname(join(siteDir, path)), { recursive: true });
    writeFileSync(join(siteDir, path), body);
  }
  ({ app, close } = await createTestApp({ siteDir, publicOrigin: ORIGIN }));
});

afterAll(async () => {
  await close();
  rmSync(siteDir, { recursive: true, force: true });
});

describe("serving the prerendered site", () => {
  it("answers the health check", async () => {
    const response = await app.inject("/api/health");
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, status: "ok" });
  });

  it("answers unknown API routes with JSON 404, not the site", async () => {
    const response = await app.inject("/api/nope");
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ success: false, error: "Not found" });
  });

  it.each([
    ["/", "home"],
    ["/pricing", "pricing"],
    ["/pricing/", "pricing"],
    ["/docs/agents", "agents"],
  ])("serves the prerendered page for %s", async (url, text) => {
    const response = await app.inject(url);
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toContain("text/html");
    expect(response.body).toContain(text);
  });

  it("shows getting-started for any unknown docs path, HTML and data alike", async () => {
    const page = await app.inject("/docs/no-such-page");
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("getting started");
    const data = await app.inject("/docs/no-such-page.data");
    expect(data.body).toBe("gs-data");
  });

  it.each(["/login", "/dashboard", "/auth/callback", "/auth/callback/abc"])(
    "serves the SPA shell for %s",
    async (url) => {
      const response = await app.inject(url);
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain("spa");
    },
  );

  it.each(["/no/such/page", "/login/google", "/dashboard/licenses", "/Pricing/x", "/No-Such-Page"])(
    "answers the unknown page %s with the 404 page and status 404",
    async (url) => {
      const response = await app.inject(url);
      expect(response.statusCode).toBe(404);
      expect(response.body).toContain("not found page");
    },
  );

  it.each([
    ["/Pricing", "/pricing"],
    ["/PRICING/?ref=x", "/pricing?ref=x"],
    ["/Docs/Agents", "/docs/agents"],
    ["/Docs/whatever", "/docs/whatever"],
    ["/Dashboard", "/dashboard"],
    ["/Auth/Callback/Abc", "/auth/callback/abc"],
  ])("redirects %s, a known page in another case, to %s", async (url, location) => {
    const response = await app.inject(url);
    expect(response.statusCode).toBe(301);
    expect(response.headers.location).toBe(location);
  });

  it("never redirects off the site", async () => {
    for (const url of ["/%5CEvil.com", "/%2F%2FEvil.com", "/Docs/%5C%5CEvil"]) {
      const response = await app.inject(url);
      expect(String(response.headers.location ?? "")).not.toMatch(/^\/[\\/]|evil/i);
    }
  });

  it("never serves files outside the site folder", async () => {
    for (const url of ["/../package.json", "/%2e%2e/%2e%2e/etc/passwd", "/assets/..%2f..%2fetc%2fpasswd"]) {
      const response = await app.inject(url);
      expect(response.statusCode).toBe(404);
      expect(response.body).not.toContain("root:");
    }
  });

  it("gives each page a CSP that allows its own inline scripts by hash, and nothing inline otherwise", async () => {
    const csp = (await app.inject("/pricing")).headers["content-security-policy"] as string;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    const withScript = (await app.inject("/docs/agents")).headers["content-security-policy"] as string;
    expect(withScript).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
  });

  it("caches hashed assets for a year and pages not at all", async () => {
    const asset = await app.inject("/assets/app-abc123.js");
    expect(asset.headers["cache-control"]).toContain("immutable");
    const page = await app.inject("/pricing");
    expect(page.headers["cache-control"]).toContain("max-age=0");
  });

  it("puts its public origin where the build wrote the placeholder; relative links stay relative", async () => {
    const page = await app.inject("/blog");
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.body).toContain(`<link rel="canonical" href="${ORIGIN}/blog"/>`);
    expect(page.body).toContain('<a href="/pricing">');
    expect(page.body).not.toContain(PLACEHOLDER);
    const robots = await app.inject("/robots.txt");
    expect(robots.headers["content-type"]).toBe("text/plain; charset=utf-8");
    expect(robots.body).toBe(`Sitemap: ${ORIGIN}/sitemap.xml\n`);
  });

  it("hashes a page's inline scripts as served, the origin in them included", async () => {
    const page = await app.inject("/blog");
    const hash = createHash("sha256").update(`window.site="${ORIGIN}"`).digest("base64");
    expect(page.headers["content-security-policy"]).toContain(`'sha256-${hash}'`);
  });

  it("compresses a rewritten file itself, never serving the build's compressed copies", async () => {
    const br = await app.inject({ url: "/blog", headers: { "accept-encoding": "gzip;q=0.5, br" } });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(brotliDecompressSync(br.rawPayload).toString()).toContain(`${ORIGIN}/blog`);
    const gzip = await app.inject({ url: "/blog/", headers: { "accept-encoding": "gzip, br;q=0" } });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.rawPayload).toString()).toContain(`${ORIGIN}/blog`);
    const plain = await app.inject({ url: "/blog", headers: { "accept-encoding": "identity" } });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    for (const url of ["/blog/index.html.br", "/blog/index.html.gz"]) {
      const response = await app.inject(url);
      expect(response.statusCode, url).toBe(404);
      expect(response.body, url).toContain("not found page");
    }
  });

  it("answers a revalidation with 304 while the content is the same", async () => {
    const first = await app.inject("/blog");
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\/"[\w-]+"$/);
    const again = await app.inject({ url: "/blog", headers: { "if-none-match": etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe("");
    const stale = await app.inject({ url: "/blog", headers: { "if-none-match": 'W/"something-else"' } });
    expect(stale.statusCode).toBe(200);
  });
});
