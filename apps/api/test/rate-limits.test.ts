/**
 * Rate limits from the attacker's side: one license key from many addresses, forged X-Forwarded-For, rotating
 * IPv6 addresses, a flood of new addresses that would push live counters out of a bounded cache, guessing at
 * the sign-in callback — and, from the honest side, an office behind one address signing in all at once.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../src/config";
import { MemoryWindows, onSharedScale } from "../src/plugins/rate-limit-store";
import { browseDevSignIn, devSignIn } from "./helpers/dev-sign-in";
import { createTestApp } from "./helpers/test-app";

const GENEROUS = 100_000;
function limits(overrides: Partial<Config["rateLimits"]>): Config["rateLimits"] {
  return {
    signupPerMinute: GENEROUS,
    perMinute: GENEROUS,
    authFailuresPerMinute: GENEROUS,
    accountPerMinute: GENEROUS,
    licensePerMinute: GENEROUS,
    licenseKeyPerMinute: GENEROUS,
    ...overrides,
  };
}

async function licenseKeyOf(app: FastifyInstance, email: string): Promise<string> {
  const { token } = await devSignIn(app, { email, name: "Rate Limited" });
  const created = await app.inject({
    method: "POST",
    url: "/api/customer/licenses",
    headers: { authorization: `Bearer ${token}` },
    payload: { tier: "free" },
  });
  return created.json().data.license.license_key;
}

function validate(app: FastifyInstance, licenseKey: string, remoteAddress: string, headers = {}) {
  return app.inject({
    method: "POST",
    url: "/api/license/validate",
    remoteAddress,
    headers,
    payload: { license_key: licenseKey, machine_id: "desktop-rl" },
  });
}

describe("per license key and per address, both enforced", () => {
  let app: FastifyInstance;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ app, close } = await createTestApp({ rateLimits: limits({ licenseKeyPerMinute: 120, licensePerMinute: 5 }) }));
  });
  afterAll(() => close());

  it("130 validations of one key from 130 addresses: 120 pass, then 429 with the key's limit in the headers", async () => {
    const key = await licenseKeyOf(app, "per-key@example.com");
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof validate>> | undefined;
    for (let i = 0; i < 130; i++) {
      const response = await validate(app, key, `10.1.${Math.floor(i / 250)}.${i % 250}`);
      statuses.push(response.statusCode);
      if (response.statusCode === 429) refused ??= response;
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(120);
    expect(statuses.slice(120)).toEqual(Array(10).fill(429));
    expect(refused!.json()).toMatchObject({ success: false, code: "RATE_LIMITED" });
    expect(refused!.headers["x-ratelimit-limit"]).toBe("120");
    expect(refused!.headers["x-ratelimit-remaining"]).toBe("0");
    expect(Number(refused!.headers["retry-after"])).toBeGreaterThan(0);
    // Another key is not affected.
    const other = await licenseKeyOf(app, "per-key-other@example.com");
    expect((await validate(app, other, "10.9.9.9")).statusCode).toBe(200);
  });

  it("the per-address limit still holds on the same route, and its headers show when it binds", async () => {
    const key = await licenseKeyOf(app, "per-address@example.com");
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await validate(app, key, "10.2.0.1"));
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200, 200, 429]);
    // 5 per address binds before 120 per key: the headers report the address budget.
    expect(answers[0]!.headers["x-ratelimit-limit"]).toBe("5");
    expect(answers[0]!.headers["x-ratelimit-remaining"]).toBe("4");
    expect(answers[5]!.headers["x-ratelimit-limit"]).toBe("5");
  });
});

describe("the headers show whichever limit is closer to running out", () => {
  it("a key budget smaller than the address budget is what the headers report", async () => {
    const { app, close } = await createTestApp({
      rateLimits: limits({ licenseKeyPerMinute: 3, licensePerMinute: 50 }),
    });
    try {
      const key = await licenseKeyOf(app, "headers@example.com");
      const first = await validate(app, key, "10.3.0.1");
      expect(first.headers["x-ratelimit-limit"]).toBe("3");
      expect(first.headers["x-ratelimit-remaining"]).toBe("2");
      await validate(app, key, "10.3.0.2");
      await validate(app, key, "10.3.0.3");
      const refused = await validate(app, key, "10.3.0.4");
      expect(refused.statusCode).toBe(429);
      expect(refused.headers["x-ratelimit-limit"]).toBe("3");
    } finally {
      await close();
    }
  });
});

describe("client addresses behind a proxy", () => {
  it("TRUST_PROXY=1: a forged X-Forwarded-For entry cannot rotate the client's address", async () => {
    const { app, close } = await createTestApp({ trustProxy: 1, rateLimits: limits({ licensePerMinute: 3 }) });
    try {
      const key = await licenseKeyOf(app, "forged-xff@example.com");
      const statuses = [];
      for (let i = 0; i < 5; i++) {
        // The client wrote the first entry; the proxy (127.0.0.1) appended the real address.
        const forwarded = { "x-forwarded-for": `198.51.100.${i}, 203.0.113.7` };
        statuses.push((await validate(app, key, "127.0.0.1", forwarded)).statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
    } finally {
      await close();
    }
  });

  it("TRUST_PROXY with addresses: only a listed proxy is believed; anyone else's header is ignored", async () => {
    const { app, close } = await createTestApp({
      trustProxy: ["127.0.0.1"],
      rateLimits: limits({ licensePerMinute: 2 }),
    });
    try {
      const key = await licenseKeyOf(app, "listed-proxy@example.com");
      const direct = [];
      for (let i = 0; i < 3; i++) {
        // Straight from the internet with a made-up header: counted under its own address.
        direct.push((await validate(app, key, "198.51.100.77", { "x-forwarded-for": `192.0.2.${i}` })).statusCode);
      }
      expect(direct).toEqual([200, 200, 429]);
      // Through the listed proxy: the forwarded address is the client's.
      expect((await validate(app, key, "127.0.0.1", { "x-forwarded-for": "192.0.2.50" })).statusCode).toBe(200);
    } finally {
      await close();
    }
  });

  it("IPv6 clients are limited per /64: rotating the interface id does not buy a new budget", async () => {
    const { app, close } = await createTestApp({ rateLimits: limits({ licensePerMinute: 3 }) });
    try {
      const key = await licenseKeyOf(app, "ipv6@example.com");
      const statuses = [];
      for (let i = 1; i <= 5; i++)
        statuses.push((await validate(app, key, `2001:db8:aa:bb::${i.toString(16)}`)).statusCode);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      // Another /64 has its own budget; an IPv4-mapped address counts as its IPv4 address.
      expect((await validate(app, key, "2001:db8:aa:cc::1")).statusCode).toBe(200);
      expect((await validate(app, key, "::ffff:192.0.2.1")).statusCode).toBe(200);
    } finally {
      await close();
    }
  });
});

describe("the in-process counters never forget a live window", () => {
  it("a flood of 6,000 new addresses does not reset the first address's count", async () => {
    const { app, close } = await createTestApp({ rateLimits: limits({ perMinute: 3 }) });
    try {
      const probe = (remoteAddress: string) => app.inject({ method: "GET", url: "/api/auth/profile", remoteAddress });
      for (let i = 0; i < 3; i++) expect((await probe("10.4.0.1")).statusCode).toBe(401);
      for (let i = 0; i < 6_000; i++) await probe(`10.5.${Math.floor(i / 250)}.${i % 250}`);
      expect((await probe("10.4.0.1")).statusCode).toBe(429);
    } finally {
      await close();
    }
  }, 60_000);

  it("MemoryWindows: counts per key inside a window, starts again after it, sweeps only expired keys", () => {
    const windows = new MemoryWindows();
    const t0 = 1_000_000;
    expect(windows.incr("a", 60_000, t0)).toEqual({ current: 1, ttl: 60_000 });
    expect(windows.incr("a", 60_000, t0 + 1_000)).toEqual({ current: 2, ttl: 59_000 });
    for (let i = 0; i < 10_000; i++) windows.incr(`k${i}`, 1_000, t0 + 2_000);
    expect(windows.read("a", t0 + 30_000)).toEqual({ current: 2, ttl: 30_000 });
    // After the short windows end, the next count sweeps them away; "a" is still live and kept.
    windows.incr("b", 60_000, t0 + 20_000);
    expect(windows.size).toBe(2);
    // A refund gives one unit back inside the window, never below zero.
    windows.decr("b", t0 + 21_000);
    windows.decr("b", t0 + 21_000);
    expect(windows.read("b", t0 + 21_000)).toEqual({ current: 0, ttl: 59_000 });
    expect(windows.incr("a", 60_000, t0 + 61_000)).toEqual({ current: 1, ttl: 60_000 });
  });

  it("the two forms of starting a sign-in share one budget per address", async () => {
    const { app, close } = await createTestApp({ rateLimits: limits({ perMinute: 4 }) });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        statuses.push(
          (await app.inject({ method: "POST", url: "/api/auth/google/url", remoteAddress: "10.8.0.1", payload: {} }))
            .statusCode,
        );
        statuses.push(
          (await app.inject({ method: "GET", url: "/api/auth/google/url", remoteAddress: "10.8.0.1" })).statusCode,
        );
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    } finally {
      await close();
    }
  });
});

describe("sign-in: failures are limited, honest sign-ins are not", () => {
  let app: FastifyInstance;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ app, close } = await createTestApp({ rateLimits: limits({ authFailuresPerMinute: 5, accountPerMinute: 3 }) }));
  });
  afterAll(() => close());

  it("an office behind one address: 20 people sign in within the minute, all succeed", async () => {
    for (let i = 0; i < 20; i++) {
      const { token } = await devSignIn(app, { email: `office${i}@example.com`, name: `Office ${i}` });
      expect(token).toMatch(/^[\w-]{43}$/);
    }
  });

  it("guessing at the callback: 5 failures, then every sign-in attempt from that address waits", async () => {
    const { code, state, cookie } = await browseDevSignIn(app, { email: "guess@example.com", name: "Guess" });
    const attempt = (payload: Record<string, unknown>) =>
      app.inject({
        method: "POST",
        url: "/api/auth/google/callback",
        remoteAddress: "10.6.0.1",
        headers: { cookie },
        payload,
      });
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await attempt({ code: `guess-${i}`, state: `guess-state-${i}` })).statusCode);
    expect(statuses).toEqual([400, 400, 400, 400, 400]);
    const blocked = await attempt({ code, state });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers["retry-after"])).toBeGreaterThan(0);
    // Someone else is not held back by it.
    const other = await app.inject({
      method: "POST",
      url: "/api/auth/google/callback",
      remoteAddress: "10.6.0.2",
      headers: { cookie },
      payload: { code, state },
    });
    expect(other.statusCode).toBe(200);
  });

  it("40 concurrent bad callbacks from one address: the budget of 5 holds (charged on arrival, refunded on success)", async () => {
    const { cookie } = await browseDevSignIn(app, { email: "burst@example.com", name: "Burst" });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        app.inject({
          method: "POST",
          url: "/api/auth/google/callback",
          remoteAddress: "10.6.1.1",
          headers: { cookie },
          payload: { code: `burst-${i}`, state: `burst-state-${i}` },
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.filter((status) => status === 400)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(35);
  });

  it("session operations are limited per account, whichever address they come from", async () => {
    let { token } = await devSignIn(app, { email: "refresher@example.com", name: "Refresher" });
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      const response = await app.inject({
        method: "POST",
        url: "/api/auth/refresh",
        remoteAddress: `10.7.0.${i}`,
        headers: { authorization: `Bearer ${token}` },
      });
      statuses.push(response.statusCode);
      if (response.statusCode === 200) token = response.json().data.token;
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe("counting alone while Redis is out: each instance's share of a limit", () => {
  /** How many requests one instance admits alone: counts on the limit's scale, refused once above it. */
  const admittedAlone = (max: number, instances: number) => {
    let count = 0;
    while (onSharedScale(count + 1, max, instances) <= max) count += 1;
    return count;
  };

  it("the limit divided by the instances alive, at least one; one instance keeps the whole limit", () => {
    expect(admittedAlone(120, 1)).toBe(120);
    expect(admittedAlone(120, 2)).toBe(60);
    expect(admittedAlone(10, 3)).toBe(3);
    expect(admittedAlone(2, 5)).toBe(1);
    // So n instances admit at most max(limit, n) between them.
    for (const [max, n] of [
      [120, 2],
      [10, 3],
      [30, 7],
      [1, 4],
    ] as const) {
      expect(admittedAlone(max, n) * n).toBeLessThanOrEqual(Math.max(max, n));
    }
  });

  it("reports counts on the limit's scale, so remaining and refusals read as for a shared count", () => {
    expect(onSharedScale(30, 120, 2)).toBe(60);
    expect(onSharedScale(60, 120, 2)).toBe(120);
    expect(onSharedScale(61, 120, 2)).toBeGreaterThan(120);
    expect(onSharedScale(7, undefined, 2)).toBe(7);
  });
});
