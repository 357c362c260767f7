import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LicenseClient } from "../src/client";
import { LicenseApiError, NotActivatedError } from "../src/errors";
import { LicenseManager } from "../src/license-manager";
import { MemoryStateStore } from "../src/state";
import { deadUrl, type FakeServer, GRACE_SECONDS, KEYS, startFakeServer } from "./fake-server";

const MACHINE = "desktop-manager-test";
let server: FakeServer;
let store: MemoryStateStore;
let clock: Date;

beforeEach(async () => {
  server = await startFakeServer();
  store = new MemoryStateStore();
  clock = new Date();
});
afterEach(async () => {
  await server.close();
});

function manager(baseUrl = server.url) {
  return new LicenseManager({
    client: new LicenseClient({ baseUrl, sleep: async () => {} }),
    store,
    machineId: () => MACHINE,
    appVersion: "1.2.3",
    now: () => clock,
  });
}

describe("LicenseManager", () => {
  it("activates: validates, fetches the public key and stores the token", async () => {
    const activation = await manager().activate(KEYS.free, { machineName: "Laptop" });
    expect(activation.activated).toBe(true);
    const state = await store.read();
    expect(state).toMatchObject({
      server_url: server.url,
      license_key: KEYS.free,
      machine_id: MACHINE,
      machine_name: "Laptop",
      public_key: { kid: server.kid, alg: "EdDSA" },
      license: { tier: "free", status: "active" },
      machine: { display_id: "M-0001", is_primary: true },
      last_code: "VALID",
    });
    expect(state?.token).toEqual(expect.any(String));
    expect(server.requests[0]?.body).toMatchObject({
      platform: `${process.platform}-${process.arch}`,
      app_version: "1.2.3",
    });
  });

  it("stores the key upper-case, as the server compares it", async () => {
    expect((await manager().activate(` ${KEYS.free.toLowerCase()} `)).activated).toBe(true);
    expect((await store.read())?.license_key).toBe(KEYS.free);
  });

  it("does not store anything when the key is refused", async () => {
    const activation = await manager().activate(KEYS.suspended);
    expect(activation).toMatchObject({ activated: false, result: { code: "SUSPENDED" } });
    expect(await store.read()).toBeNull();
  });

  it("checks online when the server answers and records the validation", async () => {
    const m = manager();
    await m.activate(KEYS.free);
    clock = new Date(clock.getTime() + 60_000);
    const check = await m.check();
    expect(check).toMatchObject({ mode: "online", valid: true, code: "VALID", license: { tier: "free" } });
    expect(check.tokenExpiresAt).toBeInstanceOf(Date);
    expect(check.lastValidatedAt).toEqual(clock);
    expect((await store.read())?.last_validated_at).toBe(clock.toISOString());
    expect(server.requests.filter((r) => r.path === "/api/license/validate")).toHaveLength(2);
  });

  it("falls back to the stored token when the server is unreachable, within the grace period only", async () => {
    await manager().activate(KEYS.free);
    const offline = manager(await deadUrl());
    clock = new Date(clock.getTime() + 3 * 86_400_000);
    const within = await offline.check();
    expect(within).toMatchObject({ mode: "offline", valid: true, code: "VALID", license: { tier: "free" } });
    expect(within.offlineCause).toMatch(/Cannot reach/);

    clock = new Date(clock.getTime() + GRACE_SECONDS * 1000);
    const after = await offline.check();
    expect(after).toMatchObject({ mode: "offline", valid: false, code: null, reason: "expired" });
  });

  it("falls back offline on 5xx too", async () => {
    await manager().activate(KEYS.free);
    server.script("/api/license/validate", ...Array(3).fill({ status: 503 }));
    expect(await manager().check()).toMatchObject({ mode: "offline", valid: true });
  });

  it("drops the token when the server says the license is no longer valid", async () => {
    await manager().activate(KEYS.free);
    const license = server.licenses.get(KEYS.free)!;
    license.status = "suspended";
    expect(await manager().check()).toMatchObject({ mode: "online", valid: false, code: "SUSPENDED" });
    expect((await store.read())?.token).toBeNull();
    license.status = "active";
    const offline = await manager(await deadUrl()).check();
    expect(offline).toMatchObject({ mode: "offline", valid: false, reason: "no_token" });
    expect(offline.message).toContain("SUSPENDED");
  });

  it("fetches the public key again when the server starts signing with another kid", async () => {
    await manager().activate(KEYS.free);
    const state = await store.read();
    await store.write({ ...state!, public_key: { ...state!.public_key!, kid: "old-key" } });
    const check = await manager().check();
    expect(check.warning).toBeUndefined();
    expect((await store.read())?.public_key?.kid).toBe(server.kid);
    expect(server.requests.filter((r) => r.path === "/api/license/public-key")).toHaveLength(2);
  });

  it("verifies offline only when asked, with no request", async () => {
    await manager().activate(KEYS.free);
    const before = server.requests.length;
    expect(await manager().verifyOffline()).toMatchObject({ mode: "offline", valid: true });
    expect(server.requests).toHaveLength(before);
  });

  it("reports usage for the activated machine", async () => {
    const m = manager();
    await m.activate(KEYS.free);
    expect(await m.report(3, "code-review")).toEqual({ recorded: 3, current_month_executions: 3 });
    expect(await m.report(2)).toEqual({ recorded: 2, current_month_executions: 5 });
    expect(server.requests.at(-2)?.body).toEqual({
      license_key: KEYS.free,
      machine_id: MACHINE,
      executions: 3,
      feature: "code-review",
    });
  });

  it("surfaces a definitive 4xx instead of falling back offline", async () => {
    await manager().activate(KEYS.free);
    server.script("/api/license/validate", { status: 403, body: { success: false, error: "Forbidden", code: "X" } });
    await expect(manager().check()).rejects.toBeInstanceOf(LicenseApiError);
  });

  it("requires an activation, and forgets it on deactivate", async () => {
    await expect(manager().check()).rejects.toBeInstanceOf(NotActivatedError);
    await expect(manager().report(1)).rejects.toBeInstanceOf(NotActivatedError);
    await manager().activate(KEYS.free);
    expect(await manager().deactivate()).toBe(true);
    expect(await store.read()).toBeNull();
  });
});
