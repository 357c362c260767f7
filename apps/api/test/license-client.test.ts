/** The desktop SDK (packages/license-client) against the real service on a loopback port. */
import {
  LicenseClient,
  LicenseManager,
  LicenseTokenError,
  MemoryStateStore,
  type TrustedKey,
  trustedKey,
  verifyLicenseToken,
} from "@flotilla/license-client";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSignIn } from "./helpers/dev-sign-in";
import { createTestApp } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
let baseUrl: string;
let licenseKey: string;
let bearer: { authorization: string };
/** What a publisher pins when building the SDK: the public half of the server's signing key. */
let pinned: TrustedKey[];

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
  pinned = [trustedKey((await app.inject("/api/license/public-key")).json().data.jwk.x)];
});
afterAll(async () => close());

describe("license-client against the service", () => {
  it("activates, verifies the token offline, reports usage once per idempotent call", async () => {
    const client = new LicenseClient({ baseUrl });
    const manager = new LicenseManager({
      client,
      store: new MemoryStateStore(),
      machineId: () => "desktop-sdk-1",
      trustedKeys: pinned,
      appVersion: "1.2.3",
    });
    const activation = await manager.activate(licenseKey.toLowerCase());
    expect(activation).toMatchObject({ activated: true, result: { code: "VALID" } });

    const validation = await client.validate({ license_key: licenseKey, machine_id: "desktop-sdk-1" });
    expect(validation.code).toBe("VALID");
    const offline = await verifyLicenseToken(validation.token!, pinned, {
      machineId: "desktop-sdk-1",
      licenseKey,
    });
    expect(offline.ok).toBe(true);
    expect(offline.ok && offline.expiresAt.getTime() - offline.issuedAt.getTime()).toBe(7 * 24 * 60 * 60 * 1000);
    const wrongMachine = await verifyLicenseToken(validation.token!, pinned, {
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

  it("an SDK built without this server's key trusts none of its tokens", async () => {
    const manager = new LicenseManager({
      client: new LicenseClient({ baseUrl }),
      store: new MemoryStateStore(),
      machineId: () => "desktop-sdk-unpinned",
      trustedKeys: [],
    });
    await expect(manager.activate(licenseKey)).rejects.toBeInstanceOf(LicenseTokenError);
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
