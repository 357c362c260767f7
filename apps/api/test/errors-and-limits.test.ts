import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validSignup } from "./fixtures";
import { createTestApp, onPostgres } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, close } = await createTestApp({
    rateLimits: {
      signupPerMinute: 3,
      perMinute: 100,
      authFailuresPerMinute: 100,
      accountPerMinute: 100,
      licensePerMinute: 100,
      licenseKeyPerMinute: 100,
    },
  }));
});
afterAll(() => close());

describe("errors, readiness, headers and rate limits", () => {
  it("answers readiness when the database is reachable", async () => {
    expect((await app.inject("/api/ready")).json()).toEqual({
      success: true,
      status: "ready",
      checks: { database: "ok", redis: "off", change_feed: onPostgres ? "ok" : "off" },
    });
  });

  it("answers unknown API routes and methods with JSON 404", async () => {
    for (const [method, url] of [
      ["GET", "/api/nope"],
      ["DELETE", "/api/signup"],
      ["PUT", "/api/health"],
    ] as const) {
      const response = await app.inject({ method, url });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ success: false, code: "NOT_FOUND" });
    }
  });

  it("publishes an OpenAPI 3 document describing the routes", async () => {
    const doc = (await app.inject("/api/openapi.json")).json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/signup", "/api/newsletter", "/api/health"]));
    expect(doc.paths["/api/signup"].post.requestBody.content["application/json"].schema.properties.email).toBeDefined();
  });

  it("refuses a NUL in what a route reads, and only there: an operation without input never answers 400", async () => {
    const unread = await app.inject("/api/license/tiers?token=%00");
    expect(unread.statusCode).toBe(200);
    const read = await app.inject("/api/newsletter/unsubscribe?token=abcdefghij%00");
    expect(read.statusCode).toBe(400);
    expect(read.json()).toMatchObject({ success: false, code: "VALIDATION_ERROR" });
  });

  it("answers a Content-Encoding it does not decode with 415 UNSUPPORTED_MEDIA_TYPE, on any operation", async () => {
    for (const method of ["GET", "POST"] as const) {
      const response = await app.inject({
        method,
        url: method === "GET" ? "/api/health" : "/api/newsletter",
        // "compress" (LZW): no Node.js decodes it. (zstd is decoded from Node.js 22.15 on, production's 24 included.)
        headers: { "content-encoding": "compress", "content-type": "application/json" },
        ...(method === "POST" ? { payload: "{}" } : {}),
      });
      expect(response.statusCode, method).toBe(415);
      expect(response.json(), method).toMatchObject({ success: false, code: "UNSUPPORTED_MEDIA_TYPE" });
    }
  });

  it("sends security headers on API responses and keeps CORS closed", async () => {
    const response = await app.inject({ url: "/api/health", headers: { origin: "https://evil.example" } });
    expect(response.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
    expect(response.headers["access-control-allow-origin"]).toBeUndefined();
    expect(response.headers["strict-transport-security"]).toBeUndefined(); // production only
  });

  it("rate-limits signups per client address with 429, Retry-After and X-RateLimit headers", async () => {
    const send = (ip: string, i: number) =>
      app.inject({
        method: "POST",
        url: "/api/signup",
        remoteAddress: ip,
        payload: validSignup({ email: `rl${i}@example.com` }),
      });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await send("10.0.0.1", i)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await send("10.0.0.1", 9);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({
      success: false,
      code: "RATE_LIMITED",
      error: expect.stringMatching(/Too many requests/),
    });
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(limited.headers["x-ratelimit-limit"]).toBe("3");
    expect(limited.headers["x-ratelimit-remaining"]).toBe("0");
    // Another address has its own budget.
    expect((await send("10.0.0.2", 10)).statusCode).toBe(200);
  });
});
