/**
 * The live dashboard's event stream (issue 26, decision 0049): authorised like every customer call, it tells a
 * customer when one of their licenses changed — and nothing about anyone else's.
 */

import { eq } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sessions } from "../src/db/schema";
import { sha256Hex } from "../src/lib/tokens";
import { devSignIn } from "./helpers/dev-sign-in";
import { bearer, licensedCustomer } from "./helpers/licensed-customer";
import { plantedSession } from "./helpers/planted-session";
import { createTestApp } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
let origin: string;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false, counterFlushIntervalMs: 100 }));
  origin = await app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(() => close());

interface Received {
  event: string;
  data: unknown;
}

/** An event-stream reader over fetch, as the portal reads it. */
async function connect(token: string) {
  const controller = new AbortController();
  const response = await fetch(`${origin}/api/customer/events`, {
    headers: { ...bearer(token), accept: "text/event-stream" },
    signal: controller.signal,
  });
  const events: Received[] = [];
  const waiters: (() => void)[] = [];
  let ended = false;
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let boundary = buffer.indexOf("\n\n");
        while (boundary !== -1) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event) events.push({ event, data: data ? JSON.parse(data) : null });
          for (const wake of waiters.splice(0)) wake();
          boundary = buffer.indexOf("\n\n");
        }
      }
    } catch {
      // aborted
    }
    ended = true;
    for (const wake of waiters.splice(0)) wake();
  })();
  const next = async (name: string, timeoutMs = 2_000): Promise<Received> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = events.findIndex((event) => event.event === name);
      if (index !== -1) return events.splice(index, 1)[0]!;
      if (ended) throw new Error(`the stream ended before "${name}" (got ${JSON.stringify(events)})`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no "${name}" within ${timeoutMs} ms (got ${JSON.stringify(events)})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  return { response, events, next, close: () => controller.abort(), isEnded: () => ended };
}

async function licenseIdOf(token: string): Promise<string> {
  const dashboard = await app.inject({ method: "GET", url: "/api/customer/dashboard", headers: bearer(token) });
  return dashboard.json().data.licenses[0].id;
}

const post = (url: string, payload: Record<string, unknown>) => app.inject({ method: "POST", url, payload });

describe("GET /api/customer/events", () => {
  it("refuses without a session, and without Accept: text/event-stream", async () => {
    const anonymous = await fetch(`${origin}/api/customer/events`, { headers: { accept: "text/event-stream" } });
    expect(anonymous.status).toBe(401);
    const forged = await fetch(`${origin}/api/customer/events`, {
      headers: { ...bearer("x".repeat(43)), accept: "text/event-stream" },
    });
    expect(forged.status).toBe(401);
    const { token } = await licensedCustomer(app, "live-accept");
    const json = await fetch(`${origin}/api/customer/events`, { headers: bearer(token) });
    expect(json.status).toBe(406);
    expect(((await json.json()) as { code: string }).code).toBe("NOT_ACCEPTABLE");
  });

  it("streams unbuffered, with the security headers, and says ready", async () => {
    const { token } = await licensedCustomer(app, "live-headers");
    const stream = await connect(token);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(stream.response.headers.get("x-accel-buffering")).toBe("no");
    expect(stream.response.headers.get("cache-control")).toBe("no-store");
    expect(stream.response.headers.get("x-content-type-options")).toBe("nosniff");
    await stream.next("ready");
    stream.close();
  });

  it("tells the owner when a device binds, is seen, or runs an execution; tells nobody else", async () => {
    const owner = await licensedCustomer(app, "live-owner");
    const other = await licensedCustomer(app, "live-other");
    const ownerId = await licenseIdOf(owner.token);
    const mine = await connect(owner.token);
    const theirs = await connect(other.token);
    await mine.next("ready");
    await theirs.next("ready");

    await post("/api/license/validate", { license_key: owner.key, machine_id: "live-a", machine_name: "Live A" });
    expect((await mine.next("license")).data).toEqual({ license_ids: [ownerId] });

    // A heartbeat is announced once its last-seen time is written (the counter flush).
    await post("/api/license/heartbeat", { license_key: owner.key, machine_id: "live-a" });
    expect((await mine.next("license")).data).toEqual({ license_ids: [ownerId] });

    const started = await post("/api/license/executions", { license_key: owner.key, machine_id: "live-a" });
    expect(started.statusCode).toBe(200);
    expect((await mine.next("license")).data).toEqual({ license_ids: [ownerId] });

    // The other customer heard none of it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(theirs.events.filter((event) => event.event === "license")).toEqual([]);
    mine.close();
    theirs.close();
  });

  it("sends nothing when the owner only reads: a re-read on a notice can never feed another notice", async () => {
    const owner = await licensedCustomer(app, "live-reader");
    await post("/api/license/validate", { license_key: owner.key, machine_id: "reader-a", machine_name: "Reader A" });
    await post("/api/license/heartbeat", { license_key: owner.key, machine_id: "reader-a" });
    const stream = await connect(owner.token);
    await stream.next("ready");
    // Let the validation's and heartbeat's notices pass, then read everything the dashboard reads, as it does on each.
    await new Promise((resolve) => setTimeout(resolve, 400));
    stream.events.splice(0);
    for (let round = 0; round < 3; round += 1) {
      for (const url of [
        "/api/customer/dashboard",
        `/api/license/machines/${owner.key}`,
        `/api/license/machines/${owner.key}/analytics`,
      ]) {
        const answer = await app.inject({ method: "GET", url, headers: bearer(owner.token) });
        expect(answer.statusCode, url).toBe(200);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(stream.events).toEqual([]);
    stream.close();
  });

  it("follows a license created after the stream opened", async () => {
    const { token } = await devSignIn(app, { email: "live-new-license@example.com", name: "New License" });
    const stream = await connect(token);
    await stream.next("ready");
    const created = await app.inject({
      method: "POST",
      url: "/api/customer/licenses",
      headers: bearer(token),
      payload: { tier: "free" },
    });
    const { id, license_key: key } = created.json().data.license as { id: string; license_key: string };
    expect((await stream.next("license")).data).toEqual({ license_ids: [id] });
    await new Promise((resolve) => setTimeout(resolve, 200));
    stream.events.splice(0);
    await post("/api/license/validate", { license_key: key, machine_id: "new-license-a" });
    expect((await stream.next("license")).data).toEqual({ license_ids: [id] });
    stream.close();
  });

  it("follows a rotated key: changes under the new key still reach the owner", async () => {
    const owner = await licensedCustomer(app, "live-rotate");
    const id = await licenseIdOf(owner.token);
    const stream = await connect(owner.token);
    await stream.next("ready");
    const rotated = await app.inject({
      method: "POST",
      url: `/api/customer/licenses/${owner.key}/rotate`,
      headers: bearer(owner.token),
    });
    const newKey = rotated.json().data.license.license_key as string;
    await stream.next("license");
    await new Promise((resolve) => setTimeout(resolve, 200));
    stream.events.splice(0);
    await post("/api/license/validate", { license_key: newKey, machine_id: "rotated-a" });
    expect((await stream.next("license")).data).toEqual({ license_ids: [id] });
    stream.close();
  });

  it("a ping re-checks the session: one that ended unannounced ends the stream at the next ping", async () => {
    const { token } = await licensedCustomer(app, "live-signout");
    const stream = await connect(token);
    await stream.next("ready");
    // Its end moved into the past behind the service's back: no trigger announces that, no timer is due.
    await app.database.db
      .update(sessions)
      .set({ expiresAt: new Date(Date.now() - 1_000) })
      .where(eq(sessions.tokenHash, sha256Hex(token)));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stream.events).toEqual([]);
    await app.liveEvents.pingAll();
    await stream.next("signed-out");
    await expect.poll(() => stream.isEnded()).toBe(true);
  });

  it("ends the stream as its session is signed out, without waiting for a ping", async () => {
    const pings = vi.spyOn(app.liveEvents, "pingAll").mockResolvedValue(undefined);
    try {
      const { token } = await devSignIn(app, { email: "live-logout-now@example.com", name: "Logout Now" });
      const stream = await connect(token);
      await stream.next("ready");
      await app.inject({ method: "POST", url: "/api/auth/logout", headers: bearer(token) });
      // Only catches a hang: the 15 s ping, silenced here, is what ended it before.
      await stream.next("signed-out", 10_000);
      await expect.poll(() => stream.isEnded()).toBe(true);
    } finally {
      pings.mockRestore();
    }
  });

  it("ends the stream when its session reaches its end, without waiting for a ping", async () => {
    const pings = vi.spyOn(app.liveEvents, "pingAll").mockResolvedValue(undefined);
    try {
      const endsAt = new Date(Date.now() + 3_000);
      const token = await plantedSession(app, "live-session-end@example.com", { endsAt });
      const stream = await connect(token);
      await stream.next("ready");
      await stream.next("signed-out", 12_000);
      // Not before its end: the session was still live until then.
      expect(Date.now()).toBeGreaterThanOrEqual(endsAt.getTime());
      await expect.poll(() => stream.isEnded()).toBe(true);
    } finally {
      pings.mockRestore();
    }
  });

  it("keeps a few streams per customer: the oldest is replaced", async () => {
    const { token } = await licensedCustomer(app, "live-many");
    const streams = [];
    for (let i = 0; i < 6; i += 1) {
      const stream = await connect(token);
      await stream.next("ready");
      streams.push(stream);
    }
    await streams[0]!.next("replaced");
    expect(app.liveEvents.size).toBeLessThanOrEqual(5 + 10);
    for (const stream of streams) stream.close();
  });
});
