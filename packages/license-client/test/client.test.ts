import { LICENSE_CODE_MESSAGES } from "@flotilla/contracts/tiers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LicenseClient, type LicenseClientOptions, parseRetryAfter } from "../src/client";
import { LicenseApiError, LicenseInputError, LicenseNetworkError, LicenseProtocolError } from "../src/errors";
import { verifyLicenseToken } from "../src/offline";
import { deadUrl, type FakeServer, KEYS, startFakeServer } from "./fake-server";

let server: FakeServer;
let delays: number[];

beforeEach(async () => {
  server = await startFakeServer();
  delays = [];
});
afterEach(async () => {
  await server.close();
});

function client(options: LicenseClientOptions = {}) {
  return new LicenseClient({
    baseUrl: server.url,
    trustedKeys: server.trustedKeys,
    sleep: async (ms) => {
      delays.push(ms);
    },
    ...options,
  });
}

const MACHINE = "desktop-test-machine";

describe("validate", () => {
  it("returns VALID with license, machine and a token that verifies with the pinned key", async () => {
    const c = client();
    const result = await c.validate({ license_key: KEYS.free, machine_id: MACHINE, machine_name: "Laptop" });
    expect(result).toMatchObject({
      valid: true,
      code: "VALID",
      message: LICENSE_CODE_MESSAGES.VALID,
      license: { tier: "free", status: "active", expires_at: null, max_machines: 3 },
      machine: { display_id: "M-0001", is_primary: true },
    });
    expect(result.token).toEqual(expect.any(String));

    const verified = await verifyLicenseToken(result.token!, server.trustedKeys, {
      machineId: MACHINE,
      licenseKey: KEYS.free,
    });
    expect(verified.ok).toBe(true);

    const [request] = server.requests;
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(request?.body).toEqual({ license_key: KEYS.free, machine_id: MACHINE, machine_name: "Laptop" });
  });

  it.each([
    ["NOT_FOUND", KEYS.unknown],
    ["SUSPENDED", KEYS.suspended],
    ["EXPIRED", KEYS.expired],
  ] as const)("returns %s without a token", async (code, key) => {
    const result = await client().validate({ license_key: key, machine_id: MACHINE });
    expect(result).toMatchObject({
      valid: false,
      code,
      message: LICENSE_CODE_MESSAGES[code],
      token: null,
      machine: null,
    });
  });

  it("returns TOO_MANY_MACHINES once the slots are taken, and VALID again for a bound machine", async () => {
    const c = client();
    expect((await c.validate({ license_key: KEYS.single, machine_id: "first" })).code).toBe("VALID");
    const second = await c.validate({ license_key: KEYS.single, machine_id: "second" });
    expect(second).toMatchObject({ valid: false, code: "TOO_MANY_MACHINES", token: null });
    expect((await c.validate({ license_key: KEYS.single, machine_id: "first" })).code).toBe("VALID");
  });

  it("uses the caller's idempotency key when given", async () => {
    await client().validate({ license_key: KEYS.free, machine_id: MACHINE }, { idempotencyKey: "my-key-1" });
    expect(server.requests[0]?.headers["idempotency-key"]).toBe("my-key-1");
  });

  it("rejects input the contract refuses, without a request", async () => {
    await expect(client().validate({ license_key: "short", machine_id: MACHINE })).rejects.toBeInstanceOf(
      LicenseInputError,
    );
    await expect(client().validate({ license_key: KEYS.free, machine_id: "has space" })).rejects.toThrow(/machine_id/);
    expect(server.requests).toHaveLength(0);
  });
});

describe("retries", () => {
  it("retries a 503 with the same Idempotency-Key, so a usage report is counted once", async () => {
    const c = client();
    await c.validate({ license_key: KEYS.free, machine_id: MACHINE });
    // The first attempt is recorded by the server but its answer is lost; the second fails outright.
    server.script("/api/license/usage", { status: 503, afterHandling: true }, { status: 503 });
    const result = await c.reportUsage({
      license_key: KEYS.free,
      machine_id: MACHINE,
      executions: 5,
      feature: "agents",
    });
    expect(result).toEqual({ recorded: 5, current_month_executions: 5 });

    const attempts = server.requests.filter((r) => r.path === "/api/license/usage");
    expect(attempts).toHaveLength(3);
    const keys = new Set(attempts.map((r) => r.headers["idempotency-key"]));
    expect(keys.size).toBe(1);
    expect(server.licenses.get(KEYS.free)?.executions).toBe(5);
    expect(delays).toEqual([1000, 2000]);
  });

  it("retries a 409 IDEMPOTENCY_IN_PROGRESS (the first attempt is still being processed) with the same key", async () => {
    const c = client();
    await c.validate({ license_key: KEYS.free, machine_id: MACHINE });
    server.script("/api/license/usage", {
      status: 409,
      body: {
        success: false,
        error: "A request with this Idempotency-Key is still being processed.",
        code: "IDEMPOTENCY_IN_PROGRESS",
      },
    });
    expect(await c.reportUsage({ license_key: KEYS.free, machine_id: MACHINE, executions: 2 })).toEqual({
      recorded: 2,
      current_month_executions: 2,
    });
    const attempts = server.requests.filter((r) => r.path === "/api/license/usage");
    expect(attempts).toHaveLength(2);
    expect(attempts[0]?.headers["idempotency-key"]).toBe(attempts[1]?.headers["idempotency-key"]);
  });

  it("does not retry other 409s", async () => {
    server.script("/api/license/usage", { status: 409, body: { success: false, error: "Conflict", code: "OTHER" } });
    await expect(
      client().reportUsage({ license_key: KEYS.free, machine_id: MACHINE, executions: 2 }),
    ).rejects.toMatchObject({ status: 409, code: "OTHER" });
    expect(server.requests).toHaveLength(1);
  });

  it("uses a new Idempotency-Key for each logical call", async () => {
    const c = client();
    await c.validate({ license_key: KEYS.free, machine_id: MACHINE });
    await c.reportUsage({ license_key: KEYS.free, machine_id: MACHINE, executions: 1 });
    await c.reportUsage({ license_key: KEYS.free, machine_id: MACHINE, executions: 1 });
    const keys = server.requests
      .filter((r) => r.path === "/api/license/usage")
      .map((r) => r.headers["idempotency-key"]);
    expect(new Set(keys).size).toBe(2);
    expect(server.licenses.get(KEYS.free)?.executions).toBe(2);
  });

  it("gives up after the last attempt with the server's error", async () => {
    server.script("/api/license/health", ...Array(3).fill({ status: 502, raw: "<html>bad gateway</html>" }));
    const error = await client()
      .health()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LicenseApiError);
    expect(error).toMatchObject({ status: 502, code: undefined, message: "HTTP 502: Bad Gateway" });
    expect(server.requests).toHaveLength(3);
    expect(delays).toEqual([1000, 2000]);
  });

  it("caps the backoff and respects the retries option", async () => {
    server.script("/api/license/health", ...Array(5).fill({ status: 500 }));
    await expect(client({ retries: 4, retryBaseDelayMs: 2000, retryMaxDelayMs: 5000 }).health()).rejects.toThrow();
    expect(delays).toEqual([2000, 4000, 5000, 5000]);
  });

  it("never retries a 400, and reports the server's error and code", async () => {
    server.script("/api/license/validate", {
      status: 400,
      body: { success: false, error: "machine_id is required", code: "VALIDATION_ERROR" },
    });
    const error = await client()
      .validate({ license_key: KEYS.free, machine_id: MACHINE })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LicenseApiError);
    expect(error).toMatchObject({ status: 400, code: "VALIDATION_ERROR", message: "machine_id is required" });
    expect((error as LicenseApiError).retryable).toBe(false);
    expect(server.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("never retries other 4xx answers such as a usage report for an unbound machine", async () => {
    const error = await client()
      .reportUsage({ license_key: KEYS.free, machine_id: "never-activated", executions: 1 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 403, code: "NOT_ACTIVATED" });
    expect(server.requests).toHaveLength(1);
  });

  it("waits as long as a 429's Retry-After asks before retrying", async () => {
    server.script("/api/license/validate", {
      status: 429,
      headers: { "retry-after": "2" },
      body: { success: false, error: "Too many requests. Please try again in 2 seconds.", code: "RATE_LIMITED" },
    });
    const result = await client().validate({ license_key: KEYS.free, machine_id: MACHINE });
    expect(result.code).toBe("VALID");
    expect(delays).toEqual([2000]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.headers["idempotency-key"]).toBe(server.requests[1]?.headers["idempotency-key"]);
  });

  it("really sleeps for Retry-After with the default sleep", async () => {
    server.script("/api/license/health", { status: 429, headers: { "retry-after": "0.2" } });
    const started = Date.now();
    await new LicenseClient({ baseUrl: server.url }).health();
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it("fails at once when Retry-After is longer than it is prepared to wait", async () => {
    server.script("/api/license/validate", {
      status: 429,
      headers: { "retry-after": "120" },
      body: { success: false, error: "Too many requests. Please try again in 120 seconds.", code: "RATE_LIMITED" },
    });
    const error = await client({ maxRetryAfterMs: 10_000 })
      .validate({ license_key: KEYS.free, machine_id: MACHINE })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, code: "RATE_LIMITED", retryAfterMs: 120_000 });
    expect(server.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("retries network failures and then throws a LicenseNetworkError", async () => {
    const c = new LicenseClient({ baseUrl: await deadUrl(), sleep: async (ms) => void delays.push(ms) });
    const error = await c.health().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LicenseNetworkError);
    expect(error).toMatchObject({ timedOut: false });
    expect((error as Error).message).toMatch(/Cannot reach the licensing server/);
    expect(delays).toEqual([1000, 2000]);
  });

  it("times out a server that does not answer", async () => {
    server.script("/api/license/health", { hang: true }, { hang: true });
    const error = await client({ timeoutMs: 50, retries: 1 })
      .health()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LicenseNetworkError);
    expect(error).toMatchObject({ timedOut: true });
    expect(server.requests).toHaveLength(2);
  });

  it("stops when the caller aborts", async () => {
    server.script("/api/license/health", { hang: true });
    const controller = new AbortController();
    const pending = client().health({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error("cancelled by the app")), 20);
    await expect(pending).rejects.toThrow("cancelled by the app");
  });
});

describe("other endpoints", () => {
  it("reads configuration, tiers and health", async () => {
    const c = client();
    expect(await c.getConfiguration()).toMatchObject({
      heartbeat_interval_seconds: 900,
      offline_grace_seconds: 604_800,
      usage_report_interval_seconds: 900,
      tiers: { free: { maxMachines: 3 } },
    });
    expect(await c.getTiers()).toMatchObject({ free: { tier: "free" } });
    expect(await c.health()).toEqual({ status: "ok" });
    // The licensing API answers health without a data envelope.
    server.script("/api/license/health", { status: 200, body: { success: true, status: "ok", signing_key_id: "k" } });
    expect(await c.health()).toEqual({ status: "ok", signing_key_id: "k" });
  });

  it("raises a protocol error for a 200 that is not a licensing answer", async () => {
    server.script("/api/license/configurations", { status: 200, raw: "<html>captive portal</html>" });
    await expect(client().getConfiguration()).rejects.toBeInstanceOf(LicenseProtocolError);
  });

  it("keeps a base path and refuses a non-HTTP URL", () => {
    expect(new LicenseClient({ baseUrl: "https://example.com/licensing/" }).baseUrl).toBe(
      "https://example.com/licensing",
    );
    expect(() => new LicenseClient({ baseUrl: "ftp://example.com" })).toThrow(LicenseInputError);
  });
});

describe("parseRetryAfter", () => {
  it("reads seconds and HTTP dates", () => {
    expect(parseRetryAfter("3")).toBe(3000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter("soon")).toBeUndefined();
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:10 GMT", now)).toBe(10_000);
    expect(parseRetryAfter("Tue, 31 Dec 2024 00:00:00 GMT", now)).toBe(0);
  });
});
