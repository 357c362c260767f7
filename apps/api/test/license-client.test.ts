/** The desktop SDK (packages/license-client) against the real service on a loopback port. */
import { LicenseClient, LicenseManager, MemoryStateStore, verifyLicenseToken } from "@flotilla/license-client";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSignIn } from "./helpers/dev-sign-in";
import { createTestApp } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
let baseUrl: string;
let licenseKey: string;
let bearer: { authorization: string };

beforeAll(async () => {
  ({ app, close } = await createTestApp());
  const address = await app.listen({ port: 0, host: "127.0.0.1" });
  baseUrl = address;
  const { token } = await devSignIn(app, { email: "sdk@example.com", name: "SDK Tester" });
  bearer = { authorization: `Bearer ${token}` };
  const created = await app.inject({
    method: "POST",
    url: "/api/customer/licenses",
    headers: bearer,
    payload: { tier: "free" },
  });
  licenseKey = created.json().data.license.license_key;
});
afterAll(async () => close());

describe("license-client against the service", () => {
  it("activates, verifies the token offline, reports usage once per idempotent call", async () => {
    const client = new LicenseClient({ baseUrl });
    const manager = new LicenseManager({
      client,
      store: new MemoryStateStore(),
      machineId: () => "desktop-sdk-1",
      appVersion: "1.2.3",
    });
    const activation = await manager.activate(licenseKey.toLowerCase());
    expect(activation).toMatchObject({ activated: true, result: { code: "VALID" } });

    const validation = await client.validate({ license_key: licenseKey, machine_id: "desktop-sdk-1" });
    expect(validation.code).toBe("VALID");
    const publicKey = await client.getPublicKey();
    const offline = await verifyLicenseToken(validation.token!, publicKey.jwk, {
      machineId: "desktop-sdk-1",
      licenseKey,
    });
    expect(offline.ok).toBe(true);
    const wrongMachine = await verifyLicenseToken(validation.token!, publicKey.jwk, {
      machineId: "desktop-other",
      licenseKey,
    });
    expect(wrongMachine.ok).toBe(false);

    await manager.report(5, "task-execution");
    await manager.report(7, "memory-search");
    const dashboard = (await app.inject({ url: "/api/customer/dashboard", headers: bearer })).json().data;
    expect(dashboard.usage_analytics.total_executions).toBe(12);
    expect(dashboard.usage_analytics.most_used_features).toEqual(["memory-search", "task-execution"]);

    const check = await manager.check();
    expect(check).toMatchObject({ mode: "online", valid: true, code: "VALID" });
  });

  it("reports the server's codes for unknown licenses", async () => {
    const client = new LicenseClient({ baseUrl });
    const result = await client.validate({
      license_key: "FLOT-00000-00000-00000-00000-00000",
      machine_id: "desktop-x",
    });
    expect(result).toMatchObject({ valid: false, code: "NOT_FOUND" });
  });
});
