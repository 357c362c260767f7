/**
 * Issue 34: the portal's figures agree with each other. "Active Devices" counted a removed device beside "2/3 Devices
 * Used"; a device that ran 12 executions showed only its one validation; Utilization had no stated 100 %. And a page
 * that asks by a key rotated a moment ago is answered, while a change by that key is still refused.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false }));
});
afterAll(() => close());

const validate = (key: string, machine: string) =>
  app.inject({ method: "POST", url: "/api/license/validate", payload: { license_key: key, machine_id: machine } });
const analyticsOf = (token: string, key: string) =>
  app.inject({ url: `/api/license/machines/${key}/analytics?days=30`, headers: bearer(token) });
const machinesOf = (token: string, key: string) =>
  app.inject({ url: `/api/license/machines/${key}`, headers: bearer(token) });

describe("the analytics agree with Devices Used", () => {
  it("a removed device is not an Active Device; executions are counted per device", async () => {
    const { token, key } = await licensedCustomer(app, "figures");
    for (const machine of ["desk-a", "laptop-b", "server-c"]) {
      expect((await validate(key, machine)).json().data.code).toBe("VALID");
    }
    const report = await app.inject({
      method: "POST",
      url: "/api/license/usage",
      payload: { license_key: key, machine_id: "desk-a", executions: 12, feature: "task-execution" },
    });
    expect(report.statusCode, report.body).toBe(200);
    const removed = await app.inject({
      method: "DELETE",
      url: `/api/license/machines/${key}/server-c`,
      headers: bearer(token),
    });
    expect(removed.statusCode, removed.body).toBe(200);

    const list = (await machinesOf(token, key)).json().data;
    expect(list.current_count).toBe(2);
    const analytics = (await analyticsOf(token, key)).json().data;
    expect(analytics.summary).toEqual({ total_attempts: 3, successful_attempts: 3, unique_machines_active: 2 });
    expect(analytics.summary.unique_machines_active).toBeLessThanOrEqual(list.current_count);
    const stat = (id: string) => analytics.machine_stats.find((row: { machine_id: string }) => row.machine_id === id);
    expect(stat("desk-a")).toMatchObject({ total_attempts: 1, executions: 12, bound: true });
    expect(stat("laptop-b")).toMatchObject({ total_attempts: 1, executions: 0 });
    expect(stat("server-c")).toMatchObject({ bound: false });
  });

  it("the dashboard says what Utilization is a share of", async () => {
    const { token } = await licensedCustomer(app, "capacity");
    const dashboard = (await app.inject({ url: "/api/customer/dashboard", headers: bearer(token) })).json().data;
    expect(dashboard.usage_analytics).toMatchObject({ license_utilization: 0, monthly_capacity: 1_000 });
  });
});

describe("a key rotated a moment ago", () => {
  it("still answers its owner's reads within the grace; a change by it, or anyone else's read, is refused", async () => {
    const { token, key } = await licensedCustomer(app, "rotated-reads");
    expect((await validate(key, "desk-a")).json().data.code).toBe("VALID");
    const rotated = await app.inject({
      method: "POST",
      url: `/api/customer/licenses/${key}/rotate`,
      headers: bearer(token),
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const fresh = rotated.json().data.license.license_key as string;

    const old = await machinesOf(token, key);
    expect(old.statusCode, old.body).toBe(200);
    expect(old.json().data).toEqual((await machinesOf(token, fresh)).json().data);

    const again = await app.inject({
      method: "POST",
      url: `/api/customer/licenses/${key}/rotate`,
      headers: bearer(token),
    });
    expect(again.statusCode).toBe(404);
    const removal = await app.inject({
      method: "DELETE",
      url: `/api/license/machines/${key}/desk-a`,
      headers: bearer(token),
    });
    expect(removal.statusCode).toBe(404);

    const stranger = await licensedCustomer(app, "rotated-stranger");
    expect((await machinesOf(stranger.token, key)).statusCode).toBe(404);
    expect((await machinesOf(stranger.token, fresh)).statusCode).toBe(404);
  });
});
