/**
 * Rate limits while Redis is out (decisions 0016, 0037): every instance counts alone, at its share of the limit —
 * the limit divided by the instances it sees alive (they register in PostgreSQL) — so the cluster as a whole admits
 * about the limit, not the limit times the instances. Two instances of the service on one PostgreSQL database,
 * 300 validations of one license key spread over both:
 *   - Redis down (a closed port) or frozen (accepts, never answers) for the whole window: at most the limit;
 *   - Redis frozen in the middle of a window: what Redis admitted before plus at most the limit: at most twice it.
 */
import { randomBytes } from "node:crypto";
import net from "node:net";
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { buildApp } from "../src/app";
import type { Config } from "../src/config";
import type { DatabaseOptions } from "../src/db/client";
import { licensedCustomer } from "./helpers/licensed-customer";
import { fakeRedis, freezableProxy, listenOnLoopback } from "./helpers/stalling-peers";
import { createTestDatabase, testConfig } from "./helpers/test-app";

const LIMIT = 20;
const VALIDATIONS = 300;
const REDIS = { host: "127.0.0.1", port: 6379 };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function instance(database: DatabaseOptions, name: string, overrides: Partial<Config>) {
  const app = await buildApp(
    testConfig({
      database,
      instanceId: name,
      backgroundJobs: false,
      rateLimits: { ...testConfig().rateLimits, licenseKeyPerMinute: LIMIT },
      ...overrides,
    }),
  );
  cleanups.push(() => app.close());
  return app;
}

async function twoInstances(redisUrl: string) {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  // Test runs on one Redis cannot meet: both instances of this test, and nothing else, under one prefix.
  const redisKeyPrefix = `test-${randomBytes(6).toString("hex")}:`;
  const a = await instance(database.options, "api-a", { redisUrl, redisKeyPrefix });
  const b = await instance(database.options, "api-b", { redisUrl, redisKeyPrefix });
  // Each registers, then reads who else is alive: both see two.
  for (const app of [a, b, a]) await app.instances.refresh();
  expect([a.instances.count, b.instances.count]).toEqual([2, 2]);
  return { a, b };
}

/** A loopback port nothing listens on: Redis down. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  const port = await listenOnLoopback(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function admitted(apps: FastifyInstance[], key: string, count: number): Promise<number> {
  let through = 0;
  for (let i = 0; i < count; i++) {
    const answer = await apps[i % apps.length]!.inject({
      method: "POST",
      url: "/api/license/validate",
      payload: { license_key: key, machine_id: "desktop-limits" },
    });
    expect([200, 429]).toContain(answer.statusCode);
    if (answer.statusCode === 200) through += 1;
  }
  return through;
}

const figures: string[] = [];
afterEach(() => {
  if (figures.length > 0) console.info(`shared limits: ${figures.splice(0).join("; ")}`);
});

describe("the instances alive", () => {
  it("each sees the others within a beat, and one that stops leaves the count at once", async () => {
    const { a, b } = await twoInstances(`redis://127.0.0.1:${await closedPort()}`);
    await b.close();
    await a.instances.refresh();
    expect(a.instances.count).toBe(1);
  });
});

describe(`one key's limit (${LIMIT}/min) over two instances while Redis is out`, () => {
  it("Redis down (nothing listens): the cluster admits at most the limit", async () => {
    const { a, b } = await twoInstances(`redis://127.0.0.1:${await closedPort()}`);
    const { key } = await licensedCustomer(a, "limits-down");
    const through = await admitted([a, b], key, VALIDATIONS);
    figures.push(`Redis down: ${through} of ${VALIDATIONS} admitted (limit ${LIMIT})`);
    expect(through).toBeLessThanOrEqual(LIMIT);
    expect(through).toBeGreaterThan(0);
  });

  it("Redis frozen (accepts, never answers): the cluster admits at most the limit", async () => {
    const redis = await fakeRedis();
    cleanups.push(() => redis.close());
    const { a, b } = await twoInstances(redis.url);
    const { key } = await licensedCustomer(a, "limits-frozen");
    redis.silence();
    const through = await admitted([a, b], key, VALIDATIONS);
    figures.push(`Redis frozen: ${through} of ${VALIDATIONS} admitted (limit ${LIMIT})`);
    expect(through).toBeLessThanOrEqual(LIMIT);
    expect(through).toBeGreaterThan(0);
  });

  it("Redis frozen in the middle of the window: at most twice the limit in that window", async () => {
    const proxy = await freezableProxy(REDIS);
    cleanups.push(async () => {
      proxy.thaw();
      await proxy.close();
    });
    const { a, b } = await twoInstances(`redis://127.0.0.1:${proxy.port}`);
    const { key } = await licensedCustomer(a, "limits-midway");
    const before = await admitted([a, b], key, LIMIT / 2);
    expect(before).toBe(LIMIT / 2);
    proxy.freeze();
    const after = await admitted([a, b], key, VALIDATIONS);
    figures.push(
      `Redis frozen midway: ${before} admitted through Redis, then ${after} of ${VALIDATIONS} (limit ${LIMIT})`,
    );
    expect(before + after).toBeLessThanOrEqual(2 * LIMIT);
  });
});
