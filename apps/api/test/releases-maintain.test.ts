/**
 * Versions released before a license's end (decision 0059): with RELEASE_EXPIRED_ACCESS=maintain, a license past its
 * end date keeps the releases published before it and is offered nothing later; with the default (refuse) it gets
 * nothing at all. A suspended license gets nothing either way.
 */
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setStatus } from "./helpers/license-status";
import { licensedCustomer } from "./helpers/licensed-customer";
import { openPlatform, operator, publishRelease } from "./helpers/releases";
import { createTestApp, testConfig } from "./helpers/test-app";

const ADMIN = "release.maintain@example.com";
const MAC = [{ platform: "macos", arch: "universal" }];

async function setup(expiredAccess: "refuse" | "maintain") {
  const { app, close } = await createTestApp({
    backgroundJobs: false,
    adminEmails: [ADMIN],
    releases: { ...testConfig().releases, expiredAccess },
  });
  const { admin, token } = await operator(app, ADMIN);
  await openPlatform(app, admin, "macos");
  await publishRelease(app, token, { version: "1.1.0", targets: MAC });
  const customer = await licensedCustomer(app, `maintain-${expiredAccess}`);
  const bound = await app.inject({
    method: "POST",
    url: "/api/license/validate",
    payload: { license_key: customer.key, machine_id: "mac-m" },
  });
  expect(bound.json().data.code).toBe("VALID");
  // 1.1.0 came out two days ago, the license ended yesterday, and then 1.2.0 is published.
  await app.database.db.execute(
    sql`UPDATE licenses SET expires_at = now() - interval '1 day' WHERE license_key = ${customer.key}`,
  );
  await app.database.db.execute(
    sql`UPDATE releases SET published_at = now() - interval '2 days' WHERE version = '1.1.0'`,
  );
  await app.licensing.changed(customer.key);
  await publishRelease(app, token, { version: "1.2.0", targets: MAC });
  const check = () =>
    app.inject({
      method: "POST",
      url: "/api/license/updates/check",
      payload: {
        license_key: customer.key,
        machine_id: "mac-m",
        current_version: "1.0.0",
        platform: "macos",
        arch: "aarch64",
      },
    });
  return { app, close, customer, check };
}

describe("RELEASE_EXPIRED_ACCESS", () => {
  let maintain: Awaited<ReturnType<typeof setup>>;
  let refuse: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    maintain = await setup("maintain");
    refuse = await setup("refuse");
  }, 90_000);
  afterAll(async () => {
    await maintain?.close();
    await refuse?.close();
  });

  it("maintain: an expired license is offered the newest release published before its end, not later ones", async () => {
    const answer = await maintain.check();
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json().data.update.version).toBe("1.1.0");
  });

  it("refuse (the default): an expired license gets nothing", async () => {
    const answer = await refuse.check();
    expect(answer.statusCode).toBe(403);
    expect(answer.json().code).toBe("EXPIRED");
  });

  it("maintain never covers a suspended license", async () => {
    await setStatus(maintain.app as FastifyInstance, maintain.customer.key, "suspended");
    const answer = await maintain.check();
    expect(answer.statusCode).toBe(403);
    expect(answer.json().code).toBe("SUSPENDED");
  });
});
