/**
 * Security headers on real responses: every page of the built site (apps/web/build/client when it has
 * been built, else a miniature build like site.test.ts uses), static assets, and every API operation of
 * the OpenAPI document. HSTS with the production configuration only; no cookies from /api; the
 * development issuer's cookies HttpOnly and SameSite.
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSignIn } from "./helpers/dev-sign-in";
import { apiOperations, type Operation, operationUrl } from "./helpers/openapi";
import { createTestApp, createTestAppFromEnv, newSigningKeyPem } from "./helpers/test-app";

const BUILT_SITE = fileURLToPath(new URL("../../web/build/client", import.meta.url));
const usingRealBuild = existsSync(join(BUILT_SITE, "index.html"));

/** The miniature build output site.test.ts uses, when the real one has not been built. */
const MINIATURE: Record<string, string> = {
  "index.html": "<h1>home</h1><script>window.__boot=1</script>",
  "pricing/index.html": "<h1>pricing</h1>",
  "docs/getting-started/index.html": '<h1>gs</h1><script>window.x=1</script><script type="module" src="/assets/a.js">',
  "404/index.html": "<h1>not found page</h1>",
  "__spa-fallback.html": "<div>spa</div><script>window.spa=1</script>",
  "assets/app-abc123.js": "console.log(1)",
};

let siteDir: string;
let development: { app: FastifyInstance; close(): Promise<void> };
let production: { app: FastifyInstance; close(): Promise<void> };
let operations: Operation[];

beforeAll(async () => {
  siteDir = mkdtempSync(join(tmpdir(), "flotilla-headers-"));
  if (usingRealBuild) {
    // A private copy: the site may be rebuilt while this runs. The video is irrelevant to headers.
    cpSync(BUILT_SITE, siteDir, { recursive: true, filter: (source) => !source.includes(`${BUILT_SITE}/video`) });
  } else {
    for (const [path, body] of Object.entries(MINIATURE)) {
      mkdirSync(dirname(join(siteDir, path)), { recursive: true });
      writeFileSync(join(siteDir, path), body);
    }
  }
  development = await createTestApp({ siteDir, env: "development" });
  production = await createTestAppFromEnv(
    {
      NODE_ENV: "production",
      PUBLIC_ORIGIN: "https://flotilla.example",
      APP_SECRET: "headers-secret-headers-secret-headers-secret",
      LICENSE_SIGNING_KEY: newSigningKeyPem(),
      GOOGLE_CLIENT_ID: "client-id",
      GOOGLE_CLIENT_SECRET: "client-secret",
    },
    { siteDir },
  );
  operations = await apiOperations(development.app);
  console.info(`security headers: site from ${usingRealBuild ? BUILT_SITE : "a miniature build"}`);
});

afterAll(async () => {
  await development?.close();
  await production?.close();
  rmSync(siteDir, { recursive: true, force: true });
});

// ── Helpers ───────────────────────────────────────────────────────────────────────────────────────

function directives(policy: string | undefined): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of (policy ?? "").split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) map.set(name.toLowerCase(), values);
  }
  return map;
}

function htmlPages(root: string): { url: string; file: string; status: number }[] {
  const pages: { url: string; file: string; status: number }[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith(".html")) {
        const file = relative(root, path);
        if (file === "__spa-fallback.html") pages.push({ url: "/dashboard", file, status: 200 });
        else if (file === "404/index.html") pages.push({ url: "/no/such/page", file, status: 404 });
        else if (file.endsWith("index.html")) {
          pages.push({ url: `/${file.slice(0, -"index.html".length).replace(/\/$/, "")}`, file, status: 200 });
        }
      }
    }
  };
  visit(root);
  return pages;
}

const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g;

function expectCommonHeaders(response: LightMyRequestResponse, label: string) {
  expect(response.headers["x-content-type-options"], label).toBe("nosniff");
  const csp = directives(response.headers["content-security-policy"] as string | undefined);
  expect(csp.size, `${label}: Content-Security-Policy`).toBeGreaterThan(0);
  expect(csp.get("frame-ancestors"), label).toEqual(["'none'"]);
  const scripts = csp.get("script-src") ?? csp.get("default-src") ?? [];
  expect(scripts, `${label}: script-src`).not.toContain("'unsafe-inline'");
  expect(scripts, `${label}: script-src`).not.toContain("'unsafe-eval'");
  expect(scripts, `${label}: script-src`).not.toContain("*");
  return csp;
}

/** A valid call to every documented operation (so the header checks see real answers, not only errors). */
async function tour(app: FastifyInstance): Promise<{ key: string; response: LightMyRequestResponse }[]> {
  const { token } = await devSignIn(app, { email: "headers@example.com", name: "Header Check" });
  const bearer = { authorization: `Bearer ${token}` };
  const created = await app.inject({
    method: "POST",
    url: "/api/customer/licenses",
    headers: bearer,
    payload: { tier: "free" },
  });
  const key = created.json().data.license.license_key as string;
  for (const machine of ["headers-one", "headers-two"]) {
    await app.inject({
      method: "POST",
      url: "/api/license/validate",
      payload: { license_key: key, machine_id: machine },
    });
  }
  const bodies: Record<string, unknown> = {
    "POST /api/signup": {
      email: "headers@example.com",
      name: "Header Check",
      role: "Tech Lead",
      ai_experience: "Advanced - Regularly use AI for complex tasks",
      platform: "macOS Desktop - Native app for macOS (beta now)",
    },
    "POST /api/newsletter": { email: "headers@example.com" },
    "POST /api/auth/google/url": { state: "/dashboard" },
    "POST /api/auth/google/callback": { code: "not-a-code", state: "not-a-state" },
    "POST /api/license/validate": { license_key: key, machine_id: "headers-one" },
    "POST /api/license/usage": { license_key: key, machine_id: "headers-one", executions: 3 },
    "POST /api/customer/licenses": { tier: "free" },
    "POST /api/license/executions": { license_key: key, machine_id: "headers-one" },
    "POST /api/license/executions/running": { license_key: key, machine_id: "headers-one" },
    "POST /api/license/executions/{executionId}/heartbeat": { license_key: key, machine_id: "headers-one" },
    "POST /api/license/executions/{executionId}/end": { license_key: key, machine_id: "headers-one" },
    "POST /api/license/updates/check": {
      license_key: key,
      machine_id: "headers-one",
      current_version: "1.0.0",
      platform: "macos",
      arch: "aarch64",
    },
  };
  // Admin paths are reached as a customer (403): any well-formed id shows the headers of that answer.
  const someId = "00000000-0000-4000-8000-000000000000";
  const pathValues = {
    licenseKey: key,
    machineId: "headers-two",
    customerId: someId,
    endpointId: someId,
    deliveryId: someId,
    executionId: someId,
    releaseId: someId,
    waveId: someId,
    invitationId: someId,
    uploadId: someId,
    tokenId: someId,
    artifactId: someId,
    platform: "macos",
    target: "darwin",
    arch: "aarch64",
    currentVersion: "1.0.0",
    token: "not-a-link",
  };
  const answers: { key: string; response: LightMyRequestResponse }[] = [];
  // Session-ending calls last, each with its own session.
  const ordered = [...operations].sort(
    (a, b) => Number(/logout|refresh/.test(a.key)) - Number(/logout|refresh/.test(b.key)),
  );
  for (const operation of ordered) {
    const session = /logout|refresh/.test(operation.key)
      ? {
          authorization: `Bearer ${(await devSignIn(app, { email: "headers@example.com", name: "Header Check" })).token}`,
        }
      : bearer;
    const response = await app.inject({
      method: operation.method as "GET",
      url: operationUrl(
        operation,
        pathValues,
        operation.key === "GET /api/newsletter/unsubscribe" ? { token: "x".repeat(20) } : undefined,
      ),
      headers: operation.bearer ? session : {},
      ...(operation.body ? { payload: (bodies[operation.key] ?? {}) as Record<string, unknown> } : {}),
    });
    answers.push({ key: operation.key, response });
  }
  return answers;
}

// ── The site ──────────────────────────────────────────────────────────────────────────────────────

describe("the site's pages", () => {
  it("every page: a CSP without 'unsafe-inline' scripts that still allows each of its inline scripts by hash", async () => {
    const pages = htmlPages(siteDir);
    expect(pages.length).toBeGreaterThanOrEqual(usingRealBuild ? 20 : 4);
    for (const page of pages) {
      const response = await development.app.inject(page.url);
      const label = `${page.url} (${page.file})`;
      expect(response.statusCode, label).toBe(page.status);
      expect(response.headers["content-type"], label).toContain("text/html");
      const csp = expectCommonHeaders(response, label);
      expect(csp.get("object-src"), label).toEqual(["'none'"]);
      expect(csp.has("base-uri"), label).toBe(true);
      // The policy is strict and the page still works: every inline script is allowed by its own hash.
      const allowed = csp.get("script-src") ?? [];
      const html = readFileSync(join(siteDir, page.file), "utf8");
      for (const [, body] of html.matchAll(INLINE_SCRIPT)) {
        if (!body) continue;
        const hash = `'sha256-${createHash("sha256").update(body).digest("base64")}'`;
        expect(allowed, `${label}: inline script not allowed by the CSP`).toContain(hash);
      }
      expect(response.headers["set-cookie"], label).toBeUndefined();
    }
  });

  it("scripts and styles carry nosniff and CORP, and none of the headers meant for documents", async () => {
    const assets = readdirSync(join(siteDir, "assets")).filter((name) => /\.(js|css)$/.test(name));
    expect(assets.some((name) => name.endsWith(".js")) && assets.some((name) => name.endsWith(".css"))).toBe(true);
    for (const asset of assets) {
      const response = await development.app.inject(`/assets/${asset}?v=1`);
      expect(response.statusCode).toBe(200);
      expect(response.headers["x-content-type-options"], asset).toBe("nosniff");
      expect(response.headers["cross-origin-resource-policy"], asset).toBe("same-origin");
      for (const documentOnly of [
        "content-security-policy",
        "x-frame-options",
        "referrer-policy",
        "cross-origin-opener-policy",
        "origin-agent-cluster",
        "x-xss-protection",
        "x-request-id",
      ]) {
        expect(response.headers[documentOnly], `${asset}: ${documentOnly}`).toBeUndefined();
      }
    }
    // An SVG can be opened as a page, with scripts: it keeps the locked-down CSP.
    const svg = await development.app.inject("/favicon.svg");
    expect(svg.statusCode).toBe(200);
    expect(svg.headers["content-security-policy"]).toContain("default-src 'none'");
  });
});

// ── The API ───────────────────────────────────────────────────────────────────────────────────────

describe("the API's responses", () => {
  it("every documented operation — successes and errors alike: locked-down CSP, nosniff, no cookies", async () => {
    const answers = await tour(development.app);
    expect(answers.length).toBe(operations.length);
    expect(answers.filter((answer) => answer.response.statusCode < 300).length).toBeGreaterThan(10);
    for (const { key, response } of answers) {
      const label = `${key} → ${response.statusCode}`;
      const csp = expectCommonHeaders(response, label);
      expect(csp.get("default-src"), label).toEqual(["'none'"]);
      if (key.endsWith(" /api/auth/google/url") && response.statusCode === 200) {
        // The one cookie of the API: the sign-in binding, unreadable by scripts, sent only to /api/auth.
        const line = String(response.headers["set-cookie"]);
        expect(line, label).toMatch(/^flotilla_signin=[A-Za-z0-9_-]{43};/);
        expect(line, label).toMatch(/; HttpOnly/);
        expect(line, label).toMatch(/; SameSite=Lax/);
        expect(line, label).toMatch(/; Path=\/api\/auth/);
      } else {
        expect(response.headers["set-cookie"], `${label}: an /api route set a cookie`).toBeUndefined();
      }
      expect(response.headers["referrer-policy"], label).toBe("strict-origin-when-cross-origin");
    }
  });

  it("errors raised before any route (bad URL, unknown route and method) carry the same headers", async () => {
    for (const [method, url] of [
      ["GET", "/api/nope"],
      ["PROPFIND", "/api/health"],
      ["GET", "/api/license/machines/%E0%A4%A"],
      ["GET", `/api/license/machines/${"x".repeat(500)}`],
    ] as const) {
      const response = await development.app.inject({ method, url });
      const label = `${method} ${url.slice(0, 40)} → ${response.statusCode}`;
      expect(response.statusCode, label).toBeGreaterThanOrEqual(400);
      expect(response.json(), label).toMatchObject({ success: false, error: expect.any(String) });
      expect(response.headers["set-cookie"], label).toBeUndefined();
      expectCommonHeaders(response, label);
    }
  });

  it("CORS stays closed: no Access-Control-Allow-Origin for another origin, preflight or not", async () => {
    for (const options of [
      { method: "GET" as const, url: "/api/health", headers: { origin: "https://evil.example" } },
      {
        method: "OPTIONS" as const,
        url: "/api/customer/dashboard",
        headers: {
          origin: "https://evil.example",
          "access-control-request-method": "GET",
          "access-control-request-headers": "authorization",
        },
      },
    ]) {
      const response = await development.app.inject(options);
      expect(response.headers["access-control-allow-origin"]).toBeUndefined();
      expect(response.headers["access-control-allow-credentials"]).toBeUndefined();
    }
  });
});

// ── HSTS ──────────────────────────────────────────────────────────────────────────────────────────

describe("Strict-Transport-Security", () => {
  it("is sent with the production configuration, on the API and on pages, for two years with subdomains", async () => {
    for (const url of ["/api/health", "/", "/pricing", "/dashboard", "/no/such/page"]) {
      const response = await production.app.inject(url);
      const hsts = String(response.headers["strict-transport-security"] ?? "");
      expect(hsts, url).toMatch(/max-age=\d+/);
      expect(Number(/max-age=(\d+)/.exec(hsts)?.[1]), url).toBeGreaterThanOrEqual(31_536_000);
      expect(hsts, url).toMatch(/includeSubDomains/i);
    }
    // And pages ask browsers to upgrade any http:// subresource.
    expect(
      directives((await production.app.inject("/")).headers["content-security-policy"] as string).has(
        "upgrade-insecure-requests",
      ),
    ).toBe(true);
  });

  it("is absent in development (localhost over http must not be pinned to https)", async () => {
    for (const url of ["/api/health", "/", "/pricing", "/dashboard", "/no/such/page"]) {
      const response = await development.app.inject(url);
      expect(response.headers["strict-transport-security"], url).toBeUndefined();
    }
  });
});

// ── Cookies of the development issuer ────────────────────────────────────────────────────────────

describe("cookies", () => {
  it("every cookie of the sign-in flow (the issuer's and the API's one sign-in cookie) is HttpOnly and SameSite", async () => {
    const app = development.app;
    const origin = "http://localhost:3000";
    const host = "localhost:3000";
    const cookies: { from: string; line: string }[] = [];
    const apiCookies: string[] = [];
    const jar = new Map<string, string>();
    const keep = (from: string, response: LightMyRequestResponse) => {
      const header = response.headers["set-cookie"];
      for (const line of Array.isArray(header) ? header : header ? [header] : []) {
        if (from.startsWith("/api/")) apiCookies.push(`${from}: ${line}`);
        cookies.push({ from, line });
        const [pair = ""] = line.split(";");
        const at = pair.indexOf("=");
        jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
      }
    };
    const cookieHeader = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");

    const start = await app.inject({ method: "POST", url: "/api/auth/google/url", payload: { state: "/dashboard" } });
    keep("/api/auth/google/url", start);
    let location = new URL(start.json().authUrl);
    let response: LightMyRequestResponse | undefined;
    for (let hops = 0; hops < 10; hops++) {
      const path = `${location.pathname}${location.search}`;
      if (location.pathname === "/auth/callback") break;
      if (response && /name="email"/.test(response.body)) {
        const action = /action="([^"]+)"/.exec(response.body)![1]!;
        response = await app.inject({
          method: "POST",
          url: action,
          headers: { host, cookie: cookieHeader(), "content-type": "application/x-www-form-urlencoded" },
          payload: "email=cookies%40example.com&name=Cookie+Check",
        });
        keep(action, response);
      } else {
        response = await app.inject({ url: path, headers: { host, cookie: cookieHeader() } });
        keep(path, response);
      }
      if (response.statusCode >= 300 && response.statusCode < 400) {
        location = new URL(String(response.headers.location), origin);
      }
    }
    expect(location.pathname).toBe("/auth/callback");
    const callback = await app.inject({
      method: "POST",
      url: "/api/auth/google/callback",
      payload: { code: location.searchParams.get("code"), state: location.searchParams.get("state") },
      headers: { cookie: cookieHeader() },
    });
    keep("/api/auth/google/callback", callback);
    expect(callback.statusCode).toBe(200);

    const issuerCookies = cookies.filter((cookie) => cookie.from.startsWith("/oidc"));
    expect(issuerCookies.length, "the sign-in flow set its interaction and session cookies").toBeGreaterThan(0);
    for (const { from, line } of issuerCookies) {
      const attributes = line
        .split(";")
        .slice(1)
        .map((part) => part.trim().toLowerCase());
      expect(attributes, `${from}: ${line}`).toContain("httponly");
      expect(
        attributes.some((attribute) => /^samesite=(lax|strict)$/.test(attribute)),
        `${from}: ${line}`,
      ).toBe(true);
    }
    // The API sets exactly one cookie, when a sign-in starts: HttpOnly, SameSite=Lax, only sent to /api/auth.
    expect(apiCookies).toHaveLength(1);
    expect(apiCookies[0]).toMatch(
      /^\/api\/auth\/google\/url: flotilla_signin=[\w-]{43}; Max-Age=\d+; Path=\/api\/auth; HttpOnly; SameSite=Lax$/,
    );
  });
});
