import { LICENSE_ERRORS } from "@flotilla/contracts/licensing";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { importJWK, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSignIn } from "./helpers/dev-sign-in";
import { bearer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ app, close } = await createTestApp());
});
afterAll(async () => close());

let people = 0;
async function customer() {
  people += 1;
  return devSignIn(app, { email: `person${people}@example.com`, name: `Person ${people}` });
}
async function createLicense(token: string, tier = "free") {
  return app.inject({ method: "POST", url: "/api/customer/licenses", headers: bearer(token), payload: { tier } });
}
async function validate(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return app.inject({ method: "POST", url: "/api/license/validate", payload: body, headers });
}
async function setStatus(key: string, status: string) {
  await app.database.db.execute(sql`update licenses set status = ${status} where license_key = ${key}`);
  app.licensing.cache.invalidate(key);
}

describe("license creation", () => {
  it("creates one free license with a readable 125-bit key; a second is refused", async () => {
    const { token } = await customer();
    const created = await createLicense(token);
    expect(created.statusCode).toBe(200);
    const license = created.json().data.license;
    expect(license.license_key).toMatch(/^FLOT(-[0-9A-HJKMNP-TV-Z]{5}){5}$/);
    expect(license).toMatchObject({ tier: "free", status: "active", max_machines: 3, machine_id: null });
    expect(license.features).toEqual({
      maxConcurrentExecutions: 1,
      sharedMemory: false,
      backups: false,
      embeddingModels: false,
    });

    const again = await createLicense(token);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ success: false, error: LICENSE_ERRORS.duplicate });
  });

  it("refuses plus (coming soon) and unknown tiers", async () => {
    const { token } = await customer();
    expect((await createLicense(token, "plus")).statusCode).toBe(400);
    expect((await createLicense(token, "platinum")).statusCode).toBe(400);
    expect((await createLicense(token, "plus")).json().error).toBe(LICENSE_ERRORS.tierUnavailable);
  });

  it("50 concurrent creates give exactly one license and 49 clear errors", async () => {
    const { token, customer: who } = await customer();
    const answers = await Promise.all(Array.from({ length: 50 }, () => createLicense(token)));
    const ok = answers.filter((r) => r.statusCode === 200);
    const refused = answers.filter((r) => r.statusCode === 409);
    expect(ok).toHaveLength(1);
    expect(refused).toHaveLength(49);
    for (const r of refused) expect(r.json().error).toBe(LICENSE_ERRORS.duplicate);
    const rows = (await app.database.db.execute(
      sql`select count(*)::int as n from licenses where customer_id = ${who.id}`,
    )) as unknown as { rows: { n: number }[] };
    expect(rows.rows[0]!.n).toBe(1);
  });

  it("needs a bearer token", async () => {
    const response = await app.inject({ method: "POST", url: "/api/customer/licenses", payload: { tier: "free" } });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ success: false, error: expect.any(String) });
  });
});

describe("desktop validation", () => {
  let token: string;
  let key: string;
  beforeAll(async () => {
    ({ token } = await customer());
    key = (await createLicense(token)).json().data.license.license_key;
  });

  it("NOT_FOUND for an unknown key", async () => {
    const response = await validate({ license_key: "FLOT-00000-00000-00000-00000-00000", machine_id: "desktop-a" });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toMatchObject({ valid: false, code: "NOT_FOUND", token: null, license: null });
  });

  it("VALID binds the first machine as primary and returns a token that verifies offline", async () => {
    const response = await validate({
      license_key: key.toLowerCase(),
      machine_id: "desktop-ada-laptop",
      platform: "macos",
    });
    const data = response.json().data;
    expect(data).toMatchObject({
      valid: true,
      code: "VALID",
      machine: { display_id: "desktop-ada-laptop", is_primary: true },
    });
    expect(data.license).toMatchObject({ tier: "free", status: "active", max_machines: 3 });

    const publicKey = (await app.inject("/api/license/public-key")).json().data;
    const { payload, protectedHeader } = await jwtVerify(data.token, await importJWK(publicKey.jwk, "EdDSA"), {
      issuer: "flotilla-licensing",
      audience: "flotilla-desktop",
    });
    expect(protectedHeader).toMatchObject({ alg: "EdDSA", kid: publicKey.kid });
    expect(payload).toMatchObject({ lic: key, mid: "desktop-ada-laptop", tier: "free", max_machines: 3 });
    expect(payload.exp! - payload.iat!).toBe(7 * 24 * 60 * 60);
  });

  it("binds up to max_machines, then TOO_MANY_MACHINES; a bound machine stays valid", async () => {
    expect((await validate({ license_key: key, machine_id: "server-build-1" })).json().data.machine.is_primary).toBe(
      false,
    );
    expect((await validate({ license_key: key, machine_id: "desktop-home" })).json().data.code).toBe("VALID");
    const fourth = (await validate({ license_key: key, machine_id: "desktop-fourth" })).json().data;
    expect(fourth).toMatchObject({ valid: false, code: "TOO_MANY_MACHINES", token: null });
    expect((await validate({ license_key: key, machine_id: "desktop-ada-laptop" })).json().data.code).toBe("VALID");
  });

  it("SUSPENDED and EXPIRED come before TOO_MANY_MACHINES", async () => {
    await setStatus(key, "suspended");
    expect((await validate({ license_key: key, machine_id: "desktop-fourth" })).json().data.code).toBe("SUSPENDED");
    await setStatus(key, "expired");
    expect((await validate({ license_key: key, machine_id: "desktop-ada-laptop" })).json().data.code).toBe("EXPIRED");
    await setStatus(key, "active");
    expect((await validate({ license_key: key, machine_id: "desktop-ada-laptop" })).json().data.code).toBe("VALID");
  });

  it("a malformed body is a 400", async () => {
    for (const payload of [
      {},
      { license_key: key },
      { license_key: key, machine_id: "" },
      { license_key: 5, machine_id: "x" },
      { license_key: key, machine_id: "a b" },
    ]) {
      const response = await validate(payload);
      expect(response.statusCode).toBe(400);
      expect(response.json().success).toBe(false);
    }
  });

  it("200 distinct machines validating at once never bind more than max_machines", async () => {
    const { token: other } = await customer();
    const fresh = (await createLicense(other)).json().data.license.license_key;
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => validate({ license_key: fresh, machine_id: `desktop-race-${i}` })),
    );
    const valid = answers.filter((r) => r.json().data.code === "VALID");
    expect(valid).toHaveLength(3);
    expect(answers.filter((r) => r.json().data.code === "TOO_MANY_MACHINES")).toHaveLength(197);
    const machines = (await app.inject({ url: `/api/license/machines/${fresh}`, headers: bearer(other) })).json().data;
    expect(machines.current_count).toBe(3);
    expect(machines.machines.filter((m: { is_primary: boolean }) => m.is_primary)).toHaveLength(1);
  });

  it("validation is naturally idempotent: a repeated Idempotency-Key is decided afresh and counted", async () => {
    const { token: other } = await customer();
    const fresh = (await createLicense(other)).json().data.license.license_key;
    const body = { license_key: fresh, machine_id: "desktop-idem" };
    const headers = { "idempotency-key": "validate-key-0001" };
    const first = (await validate(body, headers)).json().data;
    const second = (await validate(body, headers)).json().data;
    expect(second).toMatchObject({ valid: true, code: "VALID", machine: first.machine });
    // The same key with another machine is simply that machine's validation.
    expect((await validate({ ...body, machine_id: "desktop-other" }, headers)).json().data.code).toBe("VALID");
    const analytics = (
      await app.inject({ url: `/api/license/machines/${fresh}/analytics?days=30`, headers: bearer(other) })
    ).json().data;
    expect(analytics.summary).toEqual({ total_attempts: 3, successful_attempts: 3, unique_machines_active: 2 });
    // Nothing is stored for validations: no signed token sits in the idempotency table.
    const stored = (await app.database.db.execute(
      sql`select count(*)::int as n from idempotency_keys where scope like 'validate:%'`,
    )) as unknown as { rows: { n: number }[] };
    expect(stored.rows[0]!.n).toBe(0);
  });
});

describe("usage reports and the dashboard", () => {
  it("records executions per machine and feature; totals, month, utilization and most used features", async () => {
    const { token } = await customer();
    const key = (await createLicense(token)).json().data.license.license_key;
    await validate({ license_key: key, machine_id: "desktop-usage" });
    const report = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      app.inject({
        method: "POST",
        url: "/api/license/usage",
        payload: { license_key: key, machine_id: "desktop-usage", ...body },
        headers,
      });

    expect((await report({ executions: 30, feature: "task-execution" })).json().data).toEqual({
      recorded: 30,
      current_month_executions: 30,
    });
    await report({ executions: 12, feature: "memory-search" });
    await report({ executions: 8, feature: "task-execution" });
    await report({ executions: 50 });
    // Idempotent retries count once; a reused key with another body is refused.
    const headers = { "idempotency-key": "usage-report-0001" };
    await report({ executions: 100, feature: "code-review" }, headers);
    const replay = await report({ executions: 100, feature: "code-review" }, headers);
    expect(replay.statusCode).toBe(200);
    expect((await report({ executions: 7, feature: "code-review" }, headers)).statusCode).toBe(422);

    const dashboard = (await app.inject({ url: "/api/customer/dashboard", headers: bearer(token) })).json().data;
    expect(dashboard.usage_analytics).toEqual({
      total_executions: 200,
      current_month_executions: 200,
      license_utilization: 20,
      monthly_capacity: 1_000,
      most_used_features: ["code-review", "task-execution", "memory-search"],
    });
    expect(dashboard.licenses).toHaveLength(1);
    expect(dashboard.licenses[0]).toMatchObject({ license_key: key, machine_id: "desktop-usage", status: "active" });
    expect(dashboard.licenses[0].last_seen).not.toBeNull();
  });

  it("refuses usage from an unknown license or a machine that is not activated", async () => {
    const { token } = await customer();
    const key = (await createLicense(token)).json().data.license.license_key;
    const unknown = await app.inject({
      method: "POST",
      url: "/api/license/usage",
      payload: { license_key: "FLOT-00000-00000-00000-00000-00000", machine_id: "x", executions: 1 },
    });
    expect(unknown.statusCode).toBe(404);
    const unbound = await app.inject({
      method: "POST",
      url: "/api/license/usage",
      payload: { license_key: key, machine_id: "desktop-never-validated", executions: 1 },
    });
    expect(unbound.statusCode).toBe(403);
    const bad = await app.inject({
      method: "POST",
      url: "/api/license/usage",
      payload: { license_key: key, machine_id: "x", executions: -1 },
    });
    expect(bad.statusCode).toBe(400);
  });

  it("an empty dashboard for a customer without a license", async () => {
    const { token } = await customer();
    const dashboard = (await app.inject({ url: "/api/customer/dashboard", headers: bearer(token) })).json().data;
    expect(dashboard.licenses).toEqual([]);
    expect(dashboard.usage_analytics).toEqual({
      total_executions: 0,
      current_month_executions: 0,
      license_utilization: 0,
      monthly_capacity: 0,
      most_used_features: [],
    });
  });
});

describe("devices: list, analytics, removal — owner only", () => {
  it("lists machines, counts attempts per machine, removes one but never the last", async () => {
    const owner = await customer();
    const key = (await createLicense(owner.token)).json().data.license.license_key;
    await validate({ license_key: key, machine_id: "desktop-one", machine_name: "Ada's MacBook" });
    await validate({ license_key: key, machine_id: "server-prod-runner" });
    await validate({ license_key: key, machine_id: "server-prod-runner" });
    await validate({ license_key: key, machine_id: "mobile-3" });
    await validate({ license_key: key, machine_id: "desktop-too-many" });

    const list = (await app.inject({ url: `/api/license/machines/${key}`, headers: bearer(owner.token) })).json().data;
    expect(list.current_count).toBe(3);
    expect(list.max_machines).toBe(3);
    expect(list.machines[0]).toMatchObject({
      machine_id: "desktop-one",
      machine_name: "Ada's MacBook",
      is_primary: true,
    });

    const analytics = (
      await app.inject({ url: `/api/license/machines/${key}/analytics?days=30`, headers: bearer(owner.token) })
    ).json().data;
    expect(analytics.summary).toEqual({ total_attempts: 5, successful_attempts: 4, unique_machines_active: 3 });
    expect(analytics.machine_stats[0]).toEqual({
      machine_id: "server-prod-runner",
      machine_name: null,
      bound: true,
      total_attempts: 2,
      successful_attempts: 2,
      failed_attempts: 0,
      executions: 0,
    });
    // The refused machine holds no slot, but the owner sees it, with its failed attempt (issue 25, decision 0045).
    expect(
      analytics.machine_stats.find((row: { machine_id: string }) => row.machine_id === "desktop-too-many"),
    ).toMatchObject({ bound: false, failed_attempts: 1, successful_attempts: 0 });

    const intruder = await customer();
    for (const url of [`/api/license/machines/${key}`, `/api/license/machines/${key}/analytics?days=30`]) {
      const response = await app.inject({ url, headers: bearer(intruder.token) });
      expect(response.statusCode).toBe(404);
      expect(response.body).not.toContain("desktop-one");
    }
    const stolen = await app.inject({
      method: "DELETE",
      url: `/api/license/machines/${key}/desktop-one`,
      headers: bearer(intruder.token),
    });
    expect(stolen.statusCode).toBe(404);

    const removed = await app.inject({
      method: "DELETE",
      url: `/api/license/machines/${key}/desktop-one`,
      headers: bearer(owner.token),
    });
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toMatchObject({ success: true, message: expect.any(String) });
    // The primary moved to the oldest remaining machine; the freed slot can be used again.
    const after = (await app.inject({ url: `/api/license/machines/${key}`, headers: bearer(owner.token) })).json().data;
    expect(after.machines.find((m: { is_primary: boolean }) => m.is_primary).machine_id).toBe("server-prod-runner");
    expect((await validate({ license_key: key, machine_id: "desktop-too-many" })).json().data.code).toBe("VALID");

    await app.inject({ method: "DELETE", url: `/api/license/machines/${key}/mobile-3`, headers: bearer(owner.token) });
    await app.inject({
      method: "DELETE",
      url: `/api/license/machines/${key}/desktop-too-many`,
      headers: bearer(owner.token),
    });
    const last = await app.inject({
      method: "DELETE",
      url: `/api/license/machines/${key}/server-prod-runner`,
      headers: bearer(owner.token),
    });
    expect(last.statusCode).toBe(409);
    expect(last.json().error).toBe("Cannot remove the last device");
    const missing = await app.inject({
      method: "DELETE",
      url: `/api/license/machines/${key}/nope`,
      headers: bearer(owner.token),
    });
    expect(missing.statusCode).toBe(404);
  });

  it("the machine calls need a bearer token", async () => {
    const response = await app.inject({ url: "/api/license/machines/FLOT-00000-00000-00000-00000-00000" });
    expect(response.statusCode).toBe(401);
  });
});

describe("public licensing endpoints", () => {
  it("tiers, configurations and health", async () => {
    const tiers = (await app.inject("/api/license/tiers")).json().data.tiers;
    expect(tiers.map((t: { tier: string }) => t.tier)).toEqual(["free", "plus", "pro", "pro+", "ultra"]);
    const configuration = (await app.inject("/api/license/configurations")).json().data;
    expect(configuration).toMatchObject({ heartbeat_interval_seconds: 600, offline_grace_seconds: 604800 });
    expect(configuration.tiers.free).toMatchObject({
      max_concurrent_executions: 1,
      heartbeat_interval_seconds: 900,
      inactive_after_seconds: 1200,
    });
    expect((await app.inject("/api/license/health")).json()).toMatchObject({ success: true, status: "ok" });
  });
});
