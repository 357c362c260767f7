/**
 * A session that ends closes the live streams it opened at once, on every instance (decision 0049): a sign-out, a
 * sign-out everywhere, an admin's sign-out everywhere and a person's erasure made through one instance end the
 * stream another instance holds with `signed-out`, without waiting for its next ping. Two instances of the service on
 * one PostgreSQL database and no Redis: the database's own change feed carries the end.
 *
 * Pings also re-check the session (every 15 s): they are silenced here, so only the session's end can end a stream,
 * and a stream that would have waited for its ping fails on the hang timeout instead.
 */
import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildApp } from "../src/app";
import type { DatabaseOptions } from "../src/db/client";
import { type EventStream, openEventStream } from "./cluster/event-stream";
import { devSignIn } from "./helpers/dev-sign-in";
import { bearer } from "./helpers/licensed-customer";
import { createTestDatabase, testConfig } from "./helpers/test-app";

const ADMIN = "live-sessions.admin@example.com";
/** Only catches a stream that never ends; well under the 15 s ping that would otherwise end it. */
const HANG_MS = 10_000;

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function instance(database: DatabaseOptions, name: string) {
  const app = await buildApp(testConfig({ database, instanceId: name, backgroundJobs: false, adminEmails: [ADMIN] }));
  cleanups.push(async () => {
    app.liveEvents.closeAll();
    await app.close();
  });
  vi.spyOn(app.liveEvents, "pingAll").mockResolvedValue(undefined);
  const origin = await app.listen({ port: 0, host: "127.0.0.1" });
  return { app, origin };
}

async function untilFeedUp(app: FastifyInstance) {
  await expect
    .poll(async () => (await app.inject("/api/ready")).json().checks?.change_feed, { timeout: HANG_MS, interval: 50 })
    .toBe("ok");
}

async function twoInstances() {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  const a = await instance(database.options, "api-a");
  const b = await instance(database.options, "api-b");
  await Promise.all([untilFeedUp(a.app), untilFeedUp(b.app)]);
  return { a, b };
}

async function readyStream(origin: string, token: string): Promise<EventStream> {
  const stream = await openEventStream(origin, token);
  cleanups.push(async () => stream.close());
  expect(stream.status).toBe(200);
  await stream.next("ready", HANG_MS);
  return stream;
}

/** Waits for `signed-out` and the stream's end; how long after `since` (the request's start) the event arrived. */
async function signedOutAfter(stream: EventStream, since: number): Promise<number> {
  const event = await stream.next("signed-out", HANG_MS);
  expect(await stream.ended(HANG_MS)).toBe(true);
  return event.at - since;
}

const figures: string[] = [];
afterEach(() => {
  if (figures.length > 0) console.info(`live sessions: ${figures.splice(0).join("; ")}`);
});

describe("a session that ends closes its live streams on every instance", () => {
  it("sign-out through one instance ends the stream the other holds", async () => {
    const { a, b } = await twoInstances();
    const { token } = await devSignIn(a.app, { email: "live-logout@example.com", name: "Live Logout" });
    const other = await devSignIn(a.app, { email: "live-logout@example.com", name: "Live Logout" });
    const stream = await readyStream(b.origin, token);
    const untouched = await readyStream(b.origin, other.token);

    const since = Date.now();
    const logout = await a.app.inject({ method: "POST", url: "/api/auth/logout", headers: bearer(token) });
    expect(logout.statusCode).toBe(200);
    figures.push(`sign-out → signed-out on the other instance ${await signedOutAfter(stream, since)} ms`);
    // The customer's other session keeps its stream.
    expect(untouched.endedAt).toBeNull();
    expect(untouched.events.map((event) => event.event)).toEqual(["ready"]);
  });

  it("sign-out everywhere ends every stream of the account, on both instances", async () => {
    const { a, b } = await twoInstances();
    const first = await devSignIn(a.app, { email: "live-everywhere@example.com", name: "Everywhere" });
    const second = await devSignIn(b.app, { email: "live-everywhere@example.com", name: "Everywhere" });
    const onB = await readyStream(b.origin, first.token);
    const onA = await readyStream(a.origin, second.token);

    const since = Date.now();
    const logout = await a.app.inject({ method: "POST", url: "/api/auth/logout-all", headers: bearer(first.token) });
    expect(logout.json().revoked).toBe(2);
    const latencies = [await signedOutAfter(onB, since), await signedOutAfter(onA, since)];
    figures.push(`sign-out everywhere → signed-out ${latencies.join(" / ")} ms (other / same instance)`);
  });

  it("an admin's sign-out everywhere for a customer ends the customer's stream on the other instance", async () => {
    const { a, b } = await twoInstances();
    const admin = await devSignIn(a.app, { email: ADMIN, name: "Admin" });
    const customer = await devSignIn(a.app, { email: "live-admin-signout@example.com", name: "Signed Out" });
    const stream = await readyStream(b.origin, customer.token);
    const profile = await a.app.inject({ url: "/api/auth/profile", headers: bearer(customer.token) });
    const customerId = profile.json().data.id as string;

    const since = Date.now();
    const answer = await a.app.inject({
      method: "POST",
      url: `/api/admin/customers/${customerId}/sign-out-everywhere`,
      headers: bearer(admin.token),
      payload: {},
    });
    expect(answer.statusCode).toBe(200);
    figures.push(`admin sign-out everywhere → signed-out ${await signedOutAfter(stream, since)} ms`);
  });

  it("a person's erasure ends their stream on the other instance", async () => {
    const { a, b } = await twoInstances();
    const admin = await devSignIn(a.app, { email: ADMIN, name: "Admin" });
    const person = await devSignIn(a.app, { email: "live-erased@example.com", name: "Erased Person" });
    const stream = await readyStream(b.origin, person.token);

    const since = Date.now();
    const erased = await a.app.inject({
      method: "POST",
      url: "/api/admin/privacy/erase",
      headers: bearer(admin.token),
      payload: { email: "live-erased@example.com", reason: "Privacy request 42" },
    });
    expect(erased.statusCode).toBe(200);
    figures.push(`erasure → signed-out ${await signedOutAfter(stream, since)} ms`);
  });
});
