/**
 * Executions in the operator's console (decision 0048): the customer detail lists each license's running and recent
 * executions; an admin ends a running one with a reason, which the audit log keeps. Attackers: customers (even the
 * owner) get 403, no token 401, another license's execution 404, no reason 400. And /metrics counts what runs and
 * what was refused.
 */
import { ADMIN_RECENT_EXECUTIONS } from "@flotilla/contracts/admin";
import { EXECUTION_CODES, EXECUTION_RULES, executionExpiresAfterSeconds } from "@flotilla/contracts/executions";
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSignIn } from "./helpers/dev-sign-in";
import { ageLease } from "./helpers/lease-time";
import { bearer, licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

const ADMIN = "exec.support@example.com";

/** The calls a test makes against one app. */
function client(app: FastifyInstance) {
  const post = (url: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
    app.inject({ method: "POST", url, payload, headers });
  return {
    post,
    async bind(key: string, machine: string, name = machine) {
      const answer = await post("/api/license/validate", { license_key: key, machine_id: machine, machine_name: name });
      expect(answer.json().data.code).toBe("VALID");
    },
    start: (key: string, machine: string, feature?: string) =>
      post("/api/license/executions", { license_key: key, machine_id: machine, ...(feature ? { feature } : {}) }),
    async started(key: string, machine: string, feature?: string): Promise<string> {
      const answer = await post("/api/license/executions", {
        license_key: key,
        machine_id: machine,
        ...(feature ? { feature } : {}),
      });
      expect(answer.statusCode, answer.body).toBe(200);
      return answer.json().data.execution.id;
    },
    heartbeat: (key: string, machine: string, id: string) =>
      post(`/api/license/executions/${id}/heartbeat`, { license_key: key, machine_id: machine }),
    end: (key: string, machine: string, id: string) =>
      post(`/api/license/executions/${id}/end`, { license_key: key, machine_id: machine }),
    age: (id: string, seconds: number) => ageLease(app, id, seconds),
  };
}

describe("executions in the customer detail, and an admin's forced end", () => {
  let app: FastifyInstance;
  let close: () => Promise<void>;
  let admin: string;
  let adminId: string;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    ({ app, close } = await createTestApp({ backgroundJobs: false, adminEmails: [ADMIN] }));
    const signedIn = await devSignIn(app, { email: ADMIN, name: "Exec Support" });
    admin = signedIn.token;
    adminId = signedIn.customer.id;
    api = client(app);
  });
  afterAll(() => close());

  async function customerIdOf(key: string): Promise<string> {
    const result = (await app.database.db.execute(
      sql`select customer_id from licenses where license_key = ${key}`,
    )) as unknown as { rows: { customer_id: string }[] };
    return result.rows[0]!.customer_id;
  }

  async function executionsOf(key: string) {
    const answer = await app.inject({
      method: "GET",
      url: `/api/admin/customers/${await customerIdOf(key)}`,
      headers: bearer(admin),
    });
    expect(answer.statusCode, answer.body).toBe(200);
    return answer.json().data.licenses[0].executions;
  }

  const endUrl = (key: string, id: string) => `/api/admin/licenses/${key}/executions/${id}/end`;
  const forceEnd = (key: string, id: string, payload: Record<string, unknown>, token = admin) =>
    api.post(endUrl(key, id), payload, bearer(token));

  async function auditRows(id: string) {
    const result = (await app.database.db.execute(sql`
      select type, actor_type, actor_id, reason, after from audit_events
      where target_type = 'execution' and target_id = ${id} order by seq`)) as unknown as {
      rows: { type: string; actor_type: string; actor_id: string; reason: string; after: unknown }[];
    };
    return result.rows;
  }

  it("lists running, expired and ended executions newest first, with the device, the limit and the running count", async () => {
    const { key } = await licensedCustomer(app, "adm-exec-list");
    await api.bind(key, "list-a", "Studio Mac");
    await api.bind(key, "list-b", "Laptop");

    const done = await api.started(key, "list-a", "code-review");
    expect((await api.end(key, "list-a", done)).statusCode).toBe(200);
    await api.age(done, 300);
    const silent = await api.started(key, "list-b", "batch-run");
    await api.age(silent, executionExpiresAfterSeconds() + 60);
    const running = await api.started(key, "list-a", "code-review");

    const shown = await executionsOf(key);
    expect(shown).toMatchObject({ limit: 1, running: 1 });
    expect(shown.list.map((row: { id: string }) => row.id)).toEqual([running, silent, done]);
    const [now, expired, ended] = shown.list;
    expect(now).toMatchObject({
      status: "running",
      display_id: expect.any(String),
      machine_name: "Studio Mac",
      feature: "code-review",
      ended_at: null,
      end_reason: null,
    });
    for (const field of ["started_at", "last_heartbeat_at", "expires_at"]) {
      expect(Number.isNaN(Date.parse(now[field])), field).toBe(false);
    }
    expect(expired).toMatchObject({ status: "expired", machine_name: "Laptop", ended_at: null, end_reason: null });
    expect(ended).toMatchObject({ status: "ended", end_reason: "completed", ended_at: expect.any(String) });
  });

  it("bounds the list: every running execution, then the most recent others", async () => {
    const { key } = await licensedCustomer(app, "adm-exec-bound");
    await app.database.db.execute(sql`update licenses set tier = 'plus' where license_key = ${key}`);
    await app.licensing.changed(key);
    await api.bind(key, "bound-a");
    const old = await api.started(key, "bound-a");
    // Started an hour ago and still sending heartbeats.
    await app.database.db.execute(
      sql`update execution_leases set started_at = started_at - interval '1 hour' where id = ${old}`,
    );
    for (let i = 0; i < ADMIN_RECENT_EXECUTIONS + 2; i += 1) {
      const id = await api.started(key, "bound-a");
      await api.end(key, "bound-a", id);
    }
    const newest = await api.started(key, "bound-a");

    const shown = await executionsOf(key);
    expect(shown).toMatchObject({ limit: null, running: 2 });
    expect(shown.list).toHaveLength(2 + ADMIN_RECENT_EXECUTIONS);
    // The oldest running one is listed (so it can be ended) although a dozen ended ones are newer.
    expect(shown.list[0].id).toBe(newest);
    expect(shown.list.at(-1)).toMatchObject({ id: old, status: "running" });
    expect(shown.list.filter((row: { status: string }) => row.status === "ended")).toHaveLength(
      ADMIN_RECENT_EXECUTIONS,
    );
  });

  it("an admin ends a running execution with a reason: it stops, the app hears it, the slot frees once it has stopped, the audit log keeps it", async () => {
    const { key } = await licensedCustomer(app, "adm-exec-end");
    await api.bind(key, "end-a", "Build box");
    await api.bind(key, "end-b");
    const id = await api.started(key, "end-a", "nightly");
    expect((await api.start(key, "end-b")).statusCode).toBe(409);

    const answer = await forceEnd(key.toLowerCase(), id, { reason: "  Stuck since Monday, customer asked  " });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json()).toMatchObject({
      success: true,
      data: { status: "stopping", end_reason: "ended_by_admin", ended_at: null, holds_slot_until: expect.any(String) },
    });
    // Until its app has stopped, the slot stays taken: no second agent runs meanwhile.
    expect((await api.start(key, "end-b")).statusCode).toBe(409);
    expect((await executionsOf(key)).list.find((row: { id: string }) => row.id === id)).toMatchObject({
      status: "stopping",
      end_reason: "ended_by_admin",
    });

    const heard = await api.heartbeat(key, "end-a", id);
    expect(heard.statusCode).toBe(410);
    expect(heard.json().code).toBe(EXECUTION_CODES.ended);
    await api.end(key, "end-a", id);
    expect((await api.start(key, "end-b")).statusCode).toBe(200);

    expect(await auditRows(id)).toEqual([
      {
        type: "execution.ended",
        actor_type: "admin",
        actor_id: adminId,
        reason: "Stuck since Monday, customer asked",
        after: { status: "stopping", end_reason: "ended_by_admin" },
      },
    ]);
    // The owner sees it as support's doing, with the reason.
    const detail = await executionsOf(key);
    expect(detail.list.find((row: { id: string }) => row.id === id)).toMatchObject({
      status: "ended",
      end_reason: "ended_by_admin",
    });

    // Again: nothing changes, it answers how it ended, and no second audit row.
    const again = await forceEnd(key, id, { reason: "double click" });
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toMatchObject({ status: "ended", end_reason: "ended_by_admin" });
    expect(await auditRows(id)).toHaveLength(1);
  });

  it("an execution the app completed answers how it ended, and is not ended again", async () => {
    const { key } = await licensedCustomer(app, "adm-exec-completed");
    await api.bind(key, "completed-a");
    const id = await api.started(key, "completed-a");
    await api.end(key, "completed-a", id);
    const answer = await forceEnd(key, id, { reason: "Customer asked" });
    expect(answer.statusCode).toBe(200);
    expect(answer.json().data.end_reason).toBe("completed");
    expect(await auditRows(id)).toEqual([]);
  });

  it("an expired lease (silent, inside its revival window) can be ended too, so it cannot come back", async () => {
    const { key } = await licensedCustomer(app, "adm-exec-expired");
    await api.bind(key, "expired-a");
    const id = await api.started(key, "expired-a");
    await api.age(id, executionExpiresAfterSeconds() + 10);
    expect((await executionsOf(key)).list[0]).toMatchObject({ id, status: "expired" });
    expect((await forceEnd(key, id, { reason: "Laptop stolen" })).json().data.end_reason).toBe("ended_by_admin");
    expect((await api.heartbeat(key, "expired-a", id)).statusCode).toBe(410);
    expect(EXECUTION_RULES.revivalWindowSeconds).toBeGreaterThan(10);
  });

  describe("attackers", () => {
    let owner: { token: string; key: string };
    let other: { token: string; key: string };
    let id: string;
    let otherId: string;
    beforeAll(async () => {
      owner = await licensedCustomer(app, "adm-exec-owner");
      other = await licensedCustomer(app, "adm-exec-other");
      await api.bind(owner.key, "atk-a");
      await api.bind(other.key, "atk-b");
      id = await api.started(owner.key, "atk-a");
      otherId = await api.started(other.key, "atk-b");
    });

    it("no token, a bad token: 401; a customer, even the license's owner: 403; nothing ends", async () => {
      const attempts: Record<string, string>[] = [
        {},
        { authorization: "Bearer" },
        { authorization: `Bearer ${"x".repeat(43)}` },
      ];
      for (const headers of attempts) {
        const answer = await api.post(endUrl(owner.key, id), { reason: "attacker" }, headers);
        expect(answer.statusCode).toBe(401);
        expect(answer.json()).toMatchObject({ success: false, error: expect.any(String) });
      }
      for (const token of [owner.token, other.token]) {
        const answer = await forceEnd(owner.key, id, { reason: "attacker" }, token);
        expect(answer.statusCode).toBe(403);
        expect(answer.body).not.toContain(id);
        const detail = await app.inject({
          method: "GET",
          url: `/api/admin/customers/${await customerIdOf(owner.key)}`,
          headers: bearer(token),
        });
        expect(detail.statusCode).toBe(403);
      }
      expect((await api.heartbeat(owner.key, "atk-a", id)).statusCode).toBe(200);
      expect(await auditRows(id)).toEqual([]);
    });

    it("another license's execution, an unknown one, an unknown license: 404; nothing ends", async () => {
      for (const [key, execution] of [
        [owner.key, otherId],
        [other.key, id],
        [owner.key, "00000000-0000-4000-8000-000000000000"],
        ["FLOT-AAAAA-AAAAA-AAAAA-AAAAA-AAAAA", id],
      ] as const) {
        const answer = await forceEnd(key, execution, { reason: "Wrong license" });
        expect(answer.statusCode, `${key} ${execution}: ${answer.body}`).toBe(404);
        expect(answer.json()).toMatchObject({ success: false, error: expect.any(String) });
      }
      expect((await api.heartbeat(owner.key, "atk-a", id)).statusCode).toBe(200);
      expect((await api.heartbeat(other.key, "atk-b", otherId)).statusCode).toBe(200);
      expect(await auditRows(id)).toEqual([]);
      expect(await auditRows(otherId)).toEqual([]);
    });

    it("no reason, a blank or too short one, extra fields, a malformed id: 400; nothing ends", async () => {
      for (const payload of [{}, { reason: "" }, { reason: "   " }, { reason: "ok" }, { reason: 42 }]) {
        const answer = await forceEnd(owner.key, id, payload);
        expect(answer.statusCode, JSON.stringify(payload)).toBe(400);
        expect(answer.json()).toMatchObject({ success: false, error: expect.any(String) });
      }
      expect((await forceEnd(owner.key, id, { reason: "" })).json().error).toBe("Give a reason for the change.");
      expect((await forceEnd(owner.key, id, { reason: "Valid reason", is_admin: true })).statusCode).toBe(400);
      expect((await forceEnd(owner.key, "not-a-uuid", { reason: "Valid reason" })).statusCode).toBe(400);
      expect((await api.heartbeat(owner.key, "atk-a", id)).statusCode).toBe(200);
      expect(await auditRows(id)).toEqual([]);
    });
  });
});

describe("/metrics counts running executions and refusals", () => {
  let app: FastifyInstance;
  let close: () => Promise<void>;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    // A database of its own: the gauge counts every license's running executions.
    ({ app, close } = await createTestApp({ backgroundJobs: false }));
    api = client(app);
  });
  afterAll(() => close());

  async function metric(name: string): Promise<number | undefined> {
    const response = await app.inject("/metrics");
    expect(response.statusCode).toBe(200);
    const line = response.body.split("\n").find((candidate) => candidate.startsWith(`${name}{`));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  const running = () => metric("flotilla_executions_running");
  const refusals = () => metric("flotilla_execution_refusals_total");

  it("the gauge follows starts, ends and expiries; the counter counts refused starts and revivals", async () => {
    expect(await running()).toBe(0);
    expect(await refusals()).toBe(0);

    const one = await licensedCustomer(app, "metrics-one");
    const two = await licensedCustomer(app, "metrics-two");
    await app.database.db.execute(sql`update licenses set tier = 'plus' where license_key = ${two.key}`);
    await app.licensing.changed(two.key);
    await api.bind(one.key, "m-a");
    await api.bind(one.key, "m-b");
    await api.bind(two.key, "m-c");

    const a = await api.started(one.key, "m-a");
    expect(await running()).toBe(1);
    const c1 = await api.started(two.key, "m-c");
    await api.started(two.key, "m-c");
    await api.started(two.key, "m-c");
    expect(await running()).toBe(4);

    // Two refused starts on the free license (its one slot is taken).
    expect((await api.start(one.key, "m-b")).statusCode).toBe(409);
    expect((await api.start(one.key, "m-a")).statusCode).toBe(409);
    expect(await refusals()).toBe(2);
    expect(await running()).toBe(4);

    await api.end(two.key, "m-c", c1);
    expect(await running()).toBe(3);

    // A goes silent: it no longer runs; B takes the slot; A's revival is refused and counted.
    await api.age(a, executionExpiresAfterSeconds() + 1);
    expect(await running()).toBe(2);
    const b = await api.started(one.key, "m-b");
    expect(await running()).toBe(3);
    expect((await api.heartbeat(one.key, "m-a", a)).statusCode).toBe(409);
    expect(await refusals()).toBe(3);

    await api.end(one.key, "m-b", b);
    expect(await running()).toBe(2);
    // Successful starts, heartbeats and ends are not refusals.
    expect(await refusals()).toBe(3);
  });
});
