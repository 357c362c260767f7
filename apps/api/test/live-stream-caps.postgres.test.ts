/**
 * A customer's live streams are bounded across the cluster, not per instance (decision 0049): at most
 * STREAMS_PER_CUSTOMER in all, the oldest `replaced` when a newer one opens, whichever instance holds it — counted in
 * Redis. While Redis is out each instance keeps its share of that number (divided by the instances alive). Two
 * instances of the service on one PostgreSQL database.
 */
import { randomBytes } from "node:crypto";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { buildApp } from "../src/app";
import type { DatabaseOptions } from "../src/db/client";
import { STREAMS_PER_CUSTOMER } from "../src/modules/live/customer-events";
import { type EventStream, openEventStream } from "./cluster/event-stream";
import { devSignIn } from "./helpers/dev-sign-in";
import { fakeRedis, freezableProxy, listenOnLoopback } from "./helpers/stalling-peers";
import { createTestDatabase, testConfig } from "./helpers/test-app";

/** Only catches a hang. */
const HANG_MS = 10_000;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function instance(database: DatabaseOptions, name: string, redisUrl: string, redisKeyPrefix: string) {
  const app = await buildApp(
    testConfig({
      database,
      instanceId: name,
      backgroundJobs: false,
      redisUrl,
      redisKeyPrefix,
      redisBreakerCoolDownMs: 200,
    }),
  );
  cleanups.push(async () => {
    app.liveEvents.closeAll();
    await app.close();
  });
  const origin = await app.listen({ port: 0, host: "127.0.0.1" });
  return { app, origin };
}

async function twoInstances(redisUrl: string) {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  // Test runs on one Redis cannot meet: both instances of this test, and nothing else, under one prefix.
  const prefix = `test-${randomBytes(6).toString("hex")}:`;
  const a = await instance(database.options, "api-a", redisUrl, prefix);
  const b = await instance(database.options, "api-b", redisUrl, prefix);
  await a.app.instances.refresh();
  await b.app.instances.refresh();
  await a.app.instances.refresh();
  return { a, b };
}

async function closedPort(): Promise<number> {
  const server = net.createServer();
  const port = await listenOnLoopback(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function readyStream(origin: string, token: string): Promise<EventStream> {
  const stream = await openEventStream(origin, token);
  cleanups.push(async () => stream.close());
  expect(stream.status).toBe(200);
  await stream.next("ready", HANG_MS);
  return stream;
}

const open = (streams: EventStream[]) => streams.filter((stream) => stream.endedAt === null).length;

describe(`at most ${STREAMS_PER_CUSTOMER} streams per customer across instances`, () => {
  it("Redis up: a stream opened on one instance replaces the customer's oldest, held by the other", async () => {
    const { a, b } = await twoInstances("redis://127.0.0.1:6379");
    const { token } = await devSignIn(a.app, { email: "cap-cluster@example.com", name: "Many Tabs" });
    const streams: EventStream[] = [];
    for (let i = 0; i < STREAMS_PER_CUSTOMER; i++) streams.push(await readyStream(a.origin, token));
    const opening = Date.now();
    streams.push(await readyStream(b.origin, token));
    const replaced = await streams[0]!.next("replaced", HANG_MS);
    console.info(
      `live stream caps: the oldest replaced on the other instance ${replaced.at - opening} ms after the sixth opened`,
    );
    expect(await streams[0]!.ended(HANG_MS)).toBe(true);
    expect(open(streams)).toBe(STREAMS_PER_CUSTOMER);
  });

  it("Redis down: each instance keeps its share (5 ÷ 2 instances = 2), the oldest there replaced", async () => {
    const { a, b } = await twoInstances(`redis://127.0.0.1:${await closedPort()}`);
    const { token } = await devSignIn(a.app, { email: "cap-down@example.com", name: "Many Tabs" });
    const onA = [await readyStream(a.origin, token), await readyStream(a.origin, token)];
    const onB = [await readyStream(b.origin, token), await readyStream(b.origin, token)];
    onA.push(await readyStream(a.origin, token));
    await onA[0]!.next("replaced", HANG_MS);
    expect(open(onA) + open(onB)).toBe(4);
  });

  it("Redis frozen: the stream still opens at once (a bounded wait), and the share holds", async () => {
    const redis = await fakeRedis();
    cleanups.push(() => redis.close());
    const { a } = await twoInstances(redis.url);
    redis.silence();
    const { token } = await devSignIn(a.app, { email: "cap-frozen@example.com", name: "Many Tabs" });
    const onA = [];
    for (let i = 0; i < 3; i++) onA.push(await readyStream(a.origin, token));
    await onA[0]!.next("replaced", HANG_MS);
    expect(open(onA)).toBe(2);
  });

  it("streams opened while Redis was out join the count when it is back: at the next ping the oldest beyond it go", async () => {
    const proxy = await freezableProxy({ host: "127.0.0.1", port: 6379 });
    cleanups.push(async () => {
      proxy.thaw();
      await proxy.close();
    });
    const { a, b } = await twoInstances(`redis://127.0.0.1:${proxy.port}`);
    const { token } = await devSignIn(a.app, { email: "cap-after@example.com", name: "Many Tabs" });
    proxy.freeze();
    const during = [
      await readyStream(a.origin, token),
      await readyStream(a.origin, token),
      await readyStream(b.origin, token),
      await readyStream(b.origin, token),
    ];
    proxy.thaw();
    // Redis answers again (the circuit's probe); two more streams are counted there, the four above are not yet.
    for (const app of [a.app, b.app]) {
      await expect
        .poll(async () => (await app.inject("/api/ready")).json().checks.redis, { timeout: HANG_MS })
        .toBe("ok");
    }
    const after = [await readyStream(a.origin, token), await readyStream(b.origin, token)];
    expect(open([...during, ...after])).toBe(6);
    await a.app.liveEvents.pingAll();
    await b.app.liveEvents.pingAll();
    await during[0]!.next("replaced", HANG_MS);
    expect(await during[0]!.ended(HANG_MS)).toBe(true);
    expect(open([...during, ...after])).toBe(STREAMS_PER_CUSTOMER);
  });
});
