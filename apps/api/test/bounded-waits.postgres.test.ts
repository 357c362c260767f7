/**
 * A stalled link to PostgreSQL is a bounded wait too (decision 0037). PGlite runs inside the process, with no link to
 * stall: this file runs in the PostgreSQL project only (CI sets TEST_DATABASE_URL), through a TCP proxy that can
 * freeze every connection between the service and the server.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Config } from "../src/config";
import { devSignIn } from "./helpers/dev-sign-in";
import { bearer, licensedCustomer } from "./helpers/licensed-customer";
import { appsWithPeers, validateWithin as validate } from "./helpers/peer-apps";
import { freezableProxy, within } from "./helpers/stalling-peers";
import { createTestDatabase } from "./helpers/test-app";

const { appWith, defer } = appsWithPeers();

describe("a PostgreSQL link that stalls", () => {
  async function stallableApp(overrides: Partial<Config> = {}) {
    const database = await createTestDatabase();
    if (database.options.kind !== "postgres") throw new Error("PostgreSQL only");
    const target = new URL(database.options.url);
    const proxy = await freezableProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const app = await appWith(
      {
        ...overrides,
        database: {
          ...database.options,
          url: proxy.through(database.options.url),
          connectTimeoutMs: 1_000,
          statementTimeoutMs: 1_000,
        },
      },
      [proxy, { close: () => database.drop() }],
    );
    return { app, proxy };
  }

  it("readiness fails within a second and a half; requests needing the database get a 503 within seconds, then recover", async () => {
    const { app, proxy } = await stallableApp();
    const { token, key } = await licensedCustomer(app, "stalled-db");
    expect((await app.inject({ url: "/api/customer/dashboard", headers: bearer(token) })).statusCode).toBe(200);

    proxy.freeze();
    let started = Date.now();
    const ready = await within(5_000, app.inject("/api/ready"));
    const readyMs = Date.now() - started;
    expect(ready === "no answer" ? ready : ready.statusCode).toBe(503);
    expect(ready !== "no answer" && ready.json().checks).toMatchObject({ database: "down" });
    expect(readyMs).toBeLessThan(1_500);

    // A statement on an open connection (no answer: abandoned, connection closed), then waits for a connection.
    for (let i = 0; i < 3; i++) {
      started = Date.now();
      const answer = await within(8_000, app.inject({ url: "/api/customer/dashboard", headers: bearer(token) }));
      expect(answer === "no answer" ? answer : answer.statusCode).toBe(503);
      expect(answer !== "no answer" && answer.json()).toMatchObject({ success: false, code: "UNAVAILABLE" });
      expect(answer !== "no answer" && answer.headers["retry-after"]).toBe("1");
      expect(Date.now() - started).toBeLessThan(4_000);
    }
    // The desktop's hot path too: a clear, quick 503 (the SDK retries it), never a hang.
    started = Date.now();
    const validation = await validate(app, key);
    expect(validation === "no answer" ? validation : validation.statusCode).toBe(503);
    expect(Date.now() - started).toBeLessThan(4_000);

    proxy.thaw();
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (await app.inject("/api/ready")).statusCode !== 200) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await app.inject("/api/ready")).statusCode).toBe(200);
    expect((await app.inject({ url: "/api/customer/dashboard", headers: bearer(token) })).statusCode).toBe(200);
  });

  it("the outbox: a delivery whose outcome the stalled database did not take is recorded once it is back — delivered, not sent again", async () => {
    const admin = "outbox.stall@example.com";
    const { app, proxy } = await stallableApp({ adminEmails: [admin], backgroundJobs: false });
    // A receiver that takes the delivery, then the database link stalls before the runner can record it.
    let received = 0;
    const receiver = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        received += 1;
        proxy.freeze();
        response.end("ok");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    defer(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
    const { token } = await devSignIn(app, { email: admin, name: "Outbox Stall" });
    const registered = await app.inject({
      method: "POST",
      url: "/api/admin/webhooks",
      headers: bearer(token),
      payload: {
        url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
        events: ["license.created"],
      },
    });
    expect(registered.statusCode, registered.body).toBe(200);
    await licensedCustomer(app, "outbox-stall");

    const cut = await within(10_000, app.outbox.runOnce());
    expect(cut).toEqual({ claimed: 0, delivered: 0, retrying: 0, dead: 0 });
    expect(received).toBe(1);
    // The webhook's outcome waits in memory (and the owner's mail's too: the development mail box is a table).
    expect(app.outbox.unsettledCount).toBeGreaterThanOrEqual(1);

    proxy.thaw();
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && (await app.inject("/api/ready")).statusCode !== 200) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The next round records it first (the row is still leased to this runner for two minutes): nothing is sent again.
    await app.outbox.runOnce();
    expect(app.outbox.unsettledCount).toBe(0);
    expect(received).toBe(1);
    const rows = (await app.database.db.execute(
      sql`select o.status, o.attempts, o.locked_until, d.status_code from outbox o
          join webhook_deliveries d on d.outbox_id = o.id where o.channel = 'webhook'`,
    )) as unknown as { rows: unknown[] };
    expect(rows.rows).toEqual([{ status: "delivered", attempts: 1, locked_until: null, status_code: 200 }]);
  });

  it("every pool connection busy: a request waits DATABASE_CONNECT_TIMEOUT_MS for one, then gets a 503", async () => {
    const database = await createTestDatabase();
    if (database.options.kind !== "postgres") throw new Error("PostgreSQL only");
    const app = await appWith({ database: { ...database.options, poolSize: 1, connectTimeoutMs: 500 } }, [
      { close: () => database.drop() },
    ]);
    const { token } = await licensedCustomer(app, "busy-pool");
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holder = app.database.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      await held; // the only connection stays checked out (well within the idle-in-transaction timeout)
    });
    try {
      const started = Date.now();
      const answer = await within(5_000, app.inject({ url: "/api/customer/dashboard", headers: bearer(token) }));
      expect(answer === "no answer" ? answer : answer.statusCode).toBe(503);
      expect(Date.now() - started).toBeLessThan(2_500);
    } finally {
      release();
      await holder;
    }
    expect((await app.inject({ url: "/api/customer/dashboard", headers: bearer(token) })).statusCode).toBe(200);
  });

  it("a transaction cut by the stall is rolled back, never handed half-done to the next user of its connection", async () => {
    const { app, proxy } = await stallableApp();
    const db = app.database.db;
    await db.execute(sql`create table stall_probe (id int primary key)`);
    const started = Date.now();
    const cut = await within(
      6_000,
      db
        .transaction(async (tx) => {
          await tx.execute(sql`insert into stall_probe values (1)`);
          proxy.freeze();
          await tx.execute(sql`insert into stall_probe values (2)`);
        })
        .then(
          () => "committed",
          (error: Error) => error,
        ),
    );
    expect(cut).toBeInstanceOf(Error);
    expect(Date.now() - started).toBeLessThan(4_000);
    proxy.thaw();
    // Every connection the pool hands out now is outside any transaction, and nothing of the cut one remains.
    const deadline = Date.now() + 10_000;
    let rows: unknown[] = [{}];
    while (Date.now() < deadline) {
      try {
        rows = ((await db.execute(sql`select id from stall_probe`)) as unknown as { rows: unknown[] }).rows;
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(rows).toEqual([]);
    const states = (await Promise.all(
      Array.from({ length: 5 }, () => db.execute(sql`select now() = statement_timestamp() as outside_transaction`)),
    )) as unknown as Array<{ rows: unknown[] }>;
    expect(states.map((result) => result.rows[0])).toEqual(Array(5).fill({ outside_transaction: true }));
  });
});
