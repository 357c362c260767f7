/**
 * A license change reaches every instance within a second whichever side of a partition made it (decision 0037):
 * the change is sent on Redis and as a PostgreSQL NOTIFY that every instance LISTENs to. Two instances of the
 * service on one PostgreSQL database, each with a Redis of its own that carries nothing to the other — so here only
 * the PostgreSQL feed can carry a change across, as when one instance cannot reach the shared Redis:
 *   - the instance that made the change has a Redis that stopped answering; the other's Redis is fine;
 *   - the other way round;
 *   - the listening connection itself stalls: the instance notices and stops trusting its cache.
 */
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { buildApp } from "../src/app";
import type { DatabaseOptions } from "../src/db/client";
import { bearer, licensedCustomer } from "./helpers/licensed-customer";
import { type FakeRedis, fakeRedis, freezableProxy } from "./helpers/stalling-peers";
import { createTestDatabase, testConfig } from "./helpers/test-app";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function instance(database: DatabaseOptions, redis: FakeRedis, name: string) {
  const app = await buildApp(testConfig({ database, redisUrl: redis.url, instanceId: name, backgroundJobs: false }));
  cleanups.push(() => app.close());
  cleanups.push(() => redis.close());
  return app;
}

async function untilFeedUp(app: FastifyInstance) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if ((await app.inject("/api/ready")).json().checks?.change_feed === "ok") return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("the change feed never came up");
}

const validate = async (app: FastifyInstance, key: string, machine: string) =>
  (
    await app.inject({
      method: "POST",
      url: "/api/license/validate",
      payload: { license_key: key, machine_id: machine },
    })
  ).json().data?.code as string | undefined;

/** Polls `app` until it answers `code` for the machine; how long that took, or Infinity after `withinMs`. */
async function timeUntil(app: FastifyInstance, key: string, machine: string, code: string, withinMs = 3_000) {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    if ((await validate(app, key, machine)) === code) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Number.POSITIVE_INFINITY;
}

async function twoInstances() {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  const [redisA, redisB] = [await fakeRedis(), await fakeRedis()];
  const a = await instance(database.options, redisA, "api-a");
  const b = await instance(database.options, redisB, "api-b");
  await Promise.all([untilFeedUp(a), untilFeedUp(b)]);
  return { a, b, redisA, redisB, database };
}

/** A license with two bound machines, both cached as VALID on `warm` (binding itself invalidates: validate twice). */
async function licenseWithTwoMachines(made: FastifyInstance, warm: FastifyInstance, prefix: string) {
  const customer = await licensedCustomer(made, prefix);
  for (const machine of ["desktop-keep", "desktop-removed", "desktop-keep", "desktop-removed"]) {
    expect(await validate(warm, customer.key, machine)).toBe("VALID");
  }
  return customer;
}

// PGlite is one process: there is no other instance to tell. The PostgreSQL project runs these (CI sets
// TEST_DATABASE_URL).
describe("license changes across a partition", () => {
  it("a device removed through an instance whose Redis stalled is seen by the other instance within a second", async () => {
    const { a, b, redisA } = await twoInstances();
    const { token, key } = await licenseWithTwoMachines(a, b, "partition-a");
    redisA.silence();
    const removal = await a.inject({
      method: "DELETE",
      url: `/api/license/machines/${key}/desktop-removed`,
      headers: bearer(token),
    });
    expect(removal.statusCode).toBe(200);
    expect(await timeUntil(b, key, "desktop-removed", "MACHINE_REMOVED")).toBeLessThanOrEqual(1_000);
  });

  it("…and a change made where Redis is fine reaches the instance whose Redis stalled", async () => {
    const { a, b, redisA } = await twoInstances();
    const { token, key } = await licenseWithTwoMachines(b, a, "partition-b");
    redisA.silence();
    const removal = await b.inject({
      method: "DELETE",
      url: `/api/license/machines/${key}/desktop-removed`,
      headers: bearer(token),
    });
    expect(removal.statusCode).toBe(200);
    expect(await timeUntil(a, key, "desktop-removed", "MACHINE_REMOVED")).toBeLessThanOrEqual(1_000);
  });

  it("an instance whose listening connection stalls stops trusting its cache within seconds, never serving VALID for long", async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    if (database.options.kind !== "postgres") throw new Error("PostgreSQL only");
    const target = new URL(database.options.url);
    const proxy = await freezableProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const a = await instance(database.options, await fakeRedis(), "api-a");
    const b = await instance(
      { ...database.options, url: proxy.through(database.options.url) },
      await fakeRedis(),
      "api-b",
    );
    cleanups.push(() => proxy.close()); // before b closes: nothing of b's then waits on a frozen link
    await Promise.all([untilFeedUp(a), untilFeedUp(b)]);
    const { token, key } = await licenseWithTwoMachines(a, b, "stalled-feed");

    proxy.freeze(); // b's database connections, its listening one included, hear nothing more
    const removedAt = Date.now();
    expect(
      (
        await a.inject({
          method: "DELETE",
          url: `/api/license/machines/${key}/desktop-removed`,
          headers: bearer(token),
        })
      ).statusCode,
    ).toBe(200);
    // b answers from its cache only until it notices the feed is silent; then it must ask the (stalled) database.
    let lastValidAt = removedAt;
    while (Date.now() - removedAt < 6_000) {
      const code = await validate(b, key, "desktop-removed");
      if (code === "VALID") lastValidAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(lastValidAt - removedAt).toBeLessThan(3_500);
    expect((await b.inject("/api/ready")).json().checks).toMatchObject({ database: "down", change_feed: "down" });
    expect((await b.inject("/metrics")).body).toMatch(
      /^flotilla_license_change_channel_up\{[^}]*channel="postgres"[^}]*\} 0$/m,
    );

    proxy.thaw();
    expect(await timeUntil(b, key, "desktop-removed", "MACHINE_REMOVED", 10_000)).toBeLessThan(10_000);
    await untilFeedUp(b);
  });
});
