/**
 * A start or an end changes a license's executions, not its state (status, terms, machines): the notice it sends
 * leaves every instance's cached license state in place (decision 0057). The owner's live dashboard still hears of
 * a start (live-events.test.ts), and watching apps of a stop (execution-watch tests). A change to the license itself
 * still makes the cache forget it.
 */
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { normalizeLicenseKey } from "../src/modules/licenses/keys";
import { bearer, licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false }));
});
afterAll(() => close());

const post = (url: string, payload: Record<string, unknown>) => app.inject({ method: "POST", url, payload });
const cached = (key: string) => app.licensing.cache.get(normalizeLicenseKey(key));

describe("execution notices", () => {
  it("a start and an end keep the license's cached state; removing a machine does not", async () => {
    const { token, key } = await licensedCustomer(app, "notice");
    expect((await post("/api/license/validate", { license_key: key, machine_id: "notice-b" })).statusCode).toBe(200);
    // The first validation binds the machine (a change: the cache forgets); the second reads it into the cache.
    for (let round = 0; round < 2; round += 1) {
      expect((await post("/api/license/validate", { license_key: key, machine_id: "notice-a" })).statusCode).toBe(200);
    }
    expect(cached(key)).toBeTruthy();
    const started = await post("/api/license/executions", { license_key: key, machine_id: "notice-a" });
    expect(started.statusCode).toBe(200);
    expect(cached(key)).toBeTruthy();
    const id = started.json().data.execution.id as string;
    expect(
      (await post(`/api/license/executions/${id}/end`, { license_key: key, machine_id: "notice-a" })).statusCode,
    ).toBe(200);
    expect(cached(key)).toBeTruthy();

    const removed = await app.inject({
      method: "DELETE",
      url: `/api/license/machines/${key}/notice-b`,
      headers: bearer(token),
    });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(cached(key)).toBeUndefined();
  });
});
