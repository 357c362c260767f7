import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
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
};

let app: FastifyInstance;
let close: () => Promise<void>;
let siteDir: string;

beforeAll(async () => {
  siteDir = mkdtempSync(join(tmpdir(), "flotilla-site-"));
  for (const [path, body] of Object.entries(FILES)) {
    mkdirSync(dirname(join(siteDir, path)), { recursive: true });
    writeFileSync(join(siteDir, path), body);
  }
  ({ app, close } = await createTestApp({ siteDir }));
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
});
