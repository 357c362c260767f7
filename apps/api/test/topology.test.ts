/**
 * What one instance contributes to the production topology, tested in process: readiness that reports its
 * dependencies and fails first on SIGTERM, request ids that travel, Prometheus metrics, and a license cache that
 * cannot be refilled with what a change made stale. The topology itself is proven by `npm run test:cluster`.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LicenseCache } from "../src/modules/licenses/license-cache";
import type { LicenseState } from "../src/modules/licenses/queries";
import { devSignIn } from "./helpers/dev-sign-in";
import { createTestApp, onPostgres } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ instanceId: "api-test" }));
});
afterAll(() => close());

describe("readiness", () => {
  it("reports the database and Redis, and fails while the instance drains after SIGTERM", async () => {
    expect((await app.inject("/api/ready")).json()).toEqual({
      success: true,
      status: "ready",
      checks: { database: "ok", redis: "off", change_feed: onPostgres ? "ok" : "off" },
    });
    app.lifecycle.draining = true;
    try {
      const draining = await app.inject("/api/ready");
      expect(draining.statusCode).toBe(503);
      expect(draining.headers.connection).toBe("close");
    } finally {
      app.lifecycle.draining = false;
    }
  });
});

describe("request ids", () => {
  it("keeps the id the proxy sent (nginx's $request_id), answers with it, and replaces anything else", async () => {
    const id = "0123456789abcdef0123456789abcdef";
    const kept = await app.inject({ url: "/api/health", headers: { "x-request-id": id } });
    expect(kept.headers["x-request-id"]).toBe(id);
    for (const forged of ["short", "has spaces in it and more", "<script>alert(1)</script>xxxxxxxx", "x".repeat(100)]) {
      const replaced = await app.inject({ url: "/api/health", headers: { "x-request-id": forged } });
      expect(replaced.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

describe("metrics", () => {
  it("exposes request latency per route, validation codes, cache hits, flush lag and rate-limit refusals", async () => {
    const { token } = await devSignIn(app, { email: "metrics@example.com", name: "Metrics" });
    const created = await app.inject({
      method: "POST",
      url: "/api/customer/licenses",
      headers: { authorization: `Bearer ${token}` },
      payload: { tier: "free" },
    });
    const key = created.json().data.license.license_key;
    for (let i = 0; i < 3; i++) {
      await app.inject({
        method: "POST",
        url: "/api/license/validate",
        payload: { license_key: key, machine_id: "desktop-m" },
      });
    }
    await app.inject({
      method: "POST",
      url: "/api/license/validate",
      payload: { license_key: "FLOT-00000-00000-00000-00000-00000", machine_id: "desktop-m" },
    });
    const response = await app.inject("/metrics");
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^text\/plain/);
    const text = response.body;
    /** The value of the sample `name` carrying every one of `labels` (in whatever order prom-client prints them). */
    const sample = (name: string, labels: Record<string, string>) => {
      const line = text
        .split("\n")
        .find(
          (candidate) =>
            candidate.startsWith(`${name}{`) &&
            Object.entries(labels).every(([label, value]) => candidate.includes(`${label}="${value}"`)),
        );
      return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
    };
    const instance = "api-test";
    expect(
      sample("flotilla_http_request_duration_seconds_count", {
        instance,
        method: "POST",
        route: "/api/license/validate",
        status_code: "200",
      }),
    ).toBe(4);
    expect(sample("flotilla_license_validations_total", { instance, code: "VALID" })).toBe(3);
    expect(sample("flotilla_license_validations_total", { instance, code: "NOT_FOUND" })).toBe(1);
    expect(sample("flotilla_license_cache_hits_total", { instance })).toBeGreaterThanOrEqual(1);
    expect(sample("flotilla_counter_flush_lag_seconds", { instance })).toBeGreaterThanOrEqual(0);
    expect(text).toContain("# TYPE flotilla_rate_limit_refusals_total counter");
    expect(text).toContain("flotilla_process_cpu_seconds_total");
    // Not part of the API's documented surface.
    const doc = (await app.inject("/api/openapi.json")).json();
    expect(Object.keys(doc.paths)).not.toContain("/metrics");
  });
});

describe("the license cache across instances", () => {
  const state = (status: string) =>
    ({ license: { status }, machines: new Map(), removed: new Set() }) as unknown as LicenseState;

  it("a read that began before an invalidation cannot put its stale answer back afterwards", () => {
    const cache = new LicenseCache(() => 60_000);
    const before = cache.generation("K");
    // …the database read is in flight when another instance's change arrives:
    cache.invalidate("K");
    cache.set("K", state("active"), before);
    expect(cache.get("K")).toBeUndefined();
    // A read begun after the change is kept.
    cache.set("K", state("suspended"), cache.generation("K"));
    expect(cache.get("K")?.license.status).toBe("suspended");
  });

  it("clear() (after missed messages) voids every read in flight; entries live as long as the TTL says now", () => {
    let ttl = 60_000;
    const cache = new LicenseCache(() => ttl);
    const inFlight = cache.generation("A");
    cache.clear();
    cache.set("A", state("active"), inFlight);
    expect(cache.get("A")).toBeUndefined();
    ttl = 1_000; // Redis went away: new entries live a second
    cache.set("B", state("active"), cache.generation("B"), 0);
    expect(cache.get("B", 999)).toBeDefined();
    expect(cache.get("B", 1_000)).toBeUndefined();
    expect(cache.stats).toEqual({ hits: 1, misses: 2 });
  });
});
