import { TIERS } from "@flotilla/contracts/tiers";
import { exportJWK, generateKeyPair } from "jose";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LicenseClient } from "../src/client";
import { LicenseAnswerError, LicenseApiError, NotActivatedError } from "../src/errors";
import { LicenseManager } from "../src/license-manager";
import { MemoryStateStore } from "../src/state";
import { keyIdOf } from "../src/trusted-keys";
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

function manager(baseUrl = server.url, machineId = MACHINE) {
  return new LicenseManager({
    client: new LicenseClient({ baseUrl, sleep: async () => {}, trustedKeys: server.trustedKeys }),
    store,
    machineId: () => machineId,
    trustedKeys: server.trustedKeys,
    appVersion: "1.2.3",
    now: () => clock,
  });
}

describe("LicenseManager", () => {
  it("activates: validates, verifies the token with the pinned keys and stores it (no key in the state)", async () => {
    const activation = await manager().activate(KEYS.free, { machineName: "Laptop" });
    expect(activation.activated).toBe(true);
    const state = await store.read();
    expect(state).toMatchObject({
      server_url: server.url,
      license_key: KEYS.free,
      machine_id: MACHINE,
      machine_name: "Laptop",
      license: { tier: "free", status: "active" },
      machine: { display_id: "M-0001", is_primary: true },
      last_code: "VALID",
    });
    expect(state?.token).toEqual(expect.any(String));
    expect(state).not.toHaveProperty("public_key");
    expect(server.requests.map((r) => r.path)).toEqual(["/api/license/validate"]);
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

  it("never asks the server for a key: a server signing with a key this build does not trust is not believed", async () => {
    const impostor = await startFakeServer();
    try {
      // Activation against it fails: its answers are not signed by a pinned key.
      await expect(manager(impostor.url).activate(KEYS.free)).rejects.toBeInstanceOf(LicenseAnswerError);
      expect(await store.read()).toBeNull();
      // An activation made with the real server, then pointed at the impostor: its answer is ignored, and the
      // verdict comes from the token held (valid offline), saying why.
      await manager().activate(KEYS.free);
      const check = await manager(impostor.url).check();
      expect(check).toMatchObject({ mode: "offline", valid: true });
      expect(check.offlineCause).toMatch(/does not trust/);
      expect(impostor.requests.some((r) => r.path === "/api/license/public-key")).toBe(false);
    } finally {
      await impostor.close();
    }
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
    // The fake server has no deactivate endpoint (404): the machine is simply forgotten here.
    expect(await manager().deactivate()).toEqual({ released: false, deactivationsLeft: null, forgotten: true });
    expect(await store.read()).toBeNull();
  });
});

describe("LicenseManager from the attacker's side", () => {
  it("a hand-written state file with a self-signed ten-year ultra token is not valid offline", async () => {
    const attacker = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
    const x = (await exportJWK(attacker.publicKey)).x!;
    const iat = Math.floor(clock.getTime() / 1000);
    const token = await server.sign(
      {
        sub: "lic",
        lic: KEYS.free,
        mid: MACHINE,
        tier: "ultra",
        status: "active",
        features: TIERS.ultra.features,
        max_machines: 20,
      },
      { iat, exp: iat + 10 * 365 * 86_400, key: attacker.privateKey, kid: keyIdOf(x) },
    );
    await store.write({
      version: 2,
      server_url: "http://127.0.0.1:9",
      license_key: KEYS.free,
      machine_id: MACHINE,
      machine_name: null,
      token,
      license: { tier: "ultra", status: "active", expires_at: null, features: TIERS.ultra.features, max_machines: 20 },
      machine: null,
      activated_at: clock.toISOString(),
      last_validated_at: clock.toISOString(),
      last_code: "VALID",
      last_checked_at: clock.toISOString(),
    });
    const offline = await manager(await deadUrl()).check();
    expect(offline).toMatchObject({ mode: "offline", valid: false, reason: "untrusted_key" });
  });

  it("a state file copied to another computer is not valid there, online or offline", async () => {
    await manager().activate(KEYS.free);
    const elsewhere = manager(server.url, "desktop-someone-elses-computer");
    const before = server.requests.length;
    for (const check of [await elsewhere.check(), await elsewhere.verifyOffline(), await elsewhere.validate()]) {
      expect(check).toMatchObject({
        valid: false,
        reason: "wrong_machine",
        machineId: "desktop-someone-elses-computer",
      });
    }
    // It did not even ask the server with the original machine's id.
    expect(server.requests).toHaveLength(before);
    await expect(elsewhere.report(1)).rejects.toBeInstanceOf(NotActivatedError);
  });

  it("a clock set back before the last check forces an online check", async () => {
    await manager().activate(KEYS.free);
    clock = new Date(clock.getTime() + 2 * 86_400_000);
    const offline = manager(await deadUrl());
    expect((await offline.check()).valid).toBe(true);
    // Back to a day earlier: the token would still be inside its lifetime, but the clock went backwards.
    clock = new Date(clock.getTime() - 86_400_000);
    expect(await offline.check()).toMatchObject({ mode: "offline", valid: false, reason: "clock_rollback" });
    // Online, the server decides, and the check is valid again.
    expect(await manager().check()).toMatchObject({ mode: "online", valid: true });
  });

  it("a token issued after this machine's time (clock set back before activation's token) forces an online check", async () => {
    await manager().activate(KEYS.free);
    const state = await store.read();
    await store.write({ ...state!, last_checked_at: null });
    clock = new Date(clock.getTime() - 3 * 3_600_000);
    expect(await manager(await deadUrl()).check()).toMatchObject({ valid: false, reason: "clock_rollback" });
  });

  it("a proxy that rewrites the answer's license to ultra upgrades nothing: the rewritten answer is refused", async () => {
    // Between the app and the real server, rewriting every answer's unsigned `license` object.
    const proxyFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const body = (await response.json()) as { data?: { license?: Record<string, unknown> } };
      if (body.data?.license) {
        body.data.license = { ...body.data.license, tier: "ultra", features: TIERS.ultra.features, max_machines: 999 };
      }
      return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
    };
    const proxied = new LicenseManager({
      client: new LicenseClient({
        baseUrl: server.url,
        fetch: proxyFetch,
        sleep: async () => {},
        trustedKeys: server.trustedKeys,
      }),
      store,
      machineId: () => MACHINE,
      trustedKeys: server.trustedKeys,
      now: () => clock,
    });
    // The signature covers the body: a rewritten answer is no answer (activation fails, nothing is stored).
    await expect(proxied.activate(KEYS.free)).rejects.toBeInstanceOf(LicenseAnswerError);
    expect(await store.read()).toBeNull();
    // Activated without the proxy, a check through it decides offline from the signed token: still free.
    await manager().activate(KEYS.free);
    const check = await proxied.check();
    expect(check).toMatchObject({
      mode: "offline",
      valid: true,
      license: { tier: "free", features: TIERS.free.features },
    });
    expect(check.offlineCause).toMatch(/signature/);
  });

  it("a state without the time of its last check (deleted or garbled) forces an online check", async () => {
    await manager().activate(KEYS.free);
    const state = await store.read();
    for (const last_checked_at of [null, "not-a-date"]) {
      await store.write({ ...state!, last_checked_at });
      expect(await manager(await deadUrl()).check()).toMatchObject({ valid: false, reason: "clock_rollback" });
    }
  });

  it("offline entitlements come from the signed token, not from the state file", async () => {
    await manager().activate(KEYS.free);
    const state = await store.read();
    await store.write({
      ...state!,
      license: { ...state!.license!, tier: "ultra", features: TIERS.ultra.features, max_machines: 20 },
    });
    const check = await manager(await deadUrl()).check();
    expect(check).toMatchObject({
      valid: true,
      license: { tier: "free", features: TIERS.free.features, max_machines: 3 },
    });
  });
});
