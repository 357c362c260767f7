/**
 * Cost that stays flat as data grows (issue 35, decision 0058), what it must not change: the culling job works in
 * bounded batches, one transaction each, and leaves one audit record per batch instead of one per machine (each
 * machine's cull still has its machine event and, for a subscribed endpoint, its webhook); the customer's activity and
 * the console's audit search by actor return exactly what the OR they replace returned, page after page.
 * (Their plans: flat-with-data.postgres.test.ts.)
 */
import { SEAT_RULES } from "@flotilla/contracts/seats";
import { TIERS } from "@flotilla/contracts/tiers";
import { type SQL, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cullingJob } from "../src/jobs/culling";
import { runBatches } from "../src/jobs/scheduler";
import { devSignIn } from "./helpers/dev-sign-in";
import { bearer, licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

const ADMIN = "flat.admin@example.com";
const { app, close } = await createTestApp({ adminEmails: [ADMIN], backgroundJobs: false });
afterAll(() => close());

const rows = async <T>(query: SQL) => ((await app.database.db.execute(query)) as unknown as { rows: T[] }).rows;
const FREE_SILENCE_MS = (TIERS.free.heartbeatIntervalSeconds + SEAT_RULES.driftAllowanceSeconds) * 1000;

/** `count` licenses with one machine each, validated now: silent past their window FREE_SILENCE_MS from now. */
async function fleet(prefix: string, count: number) {
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    const { key } = await licensedCustomer(app, prefix);
    const answer = await app.inject({
      method: "POST",
      url: "/api/license/validate",
      payload: { license_key: key, machine_id: `${prefix}-machine-${i}` },
    });
    expect(answer.json().data.valid).toBe(true);
    keys.push(key);
  }
  await app.licensing.recorder.flush();
  return keys;
}

/** The culling job's batches as if it were `at`. */
async function cull(at: Date, options: Parameters<typeof cullingJob>[1]) {
  await app.licensing.recorder.flush();
  return runBatches(app.database.db, cullingJob(app.licensing.seats, options), at);
}

describe("the culling job", () => {
  it("works in bounded batches, one transaction each, with one audit record per batch, not one per machine", async () => {
    // A webhook endpoint subscribed to machine.culled: each machine still gets its own webhook.
    await app.database.db.execute(sql`
      insert into webhook_endpoints (url, events, secret_ciphertext, enabled)
      values ('https://hooks.example.com/culled', '["machine.culled"]'::jsonb, 'unused', true)`);
    const keys = await fleet("flat-cull", 5);
    const at = new Date(Date.now() + FREE_SILENCE_MS + 60_000);
    const before = Number((await rows<{ n: number }>(sql`select count(*)::int as n from audit_events`))[0]!.n);

    // Two licenses a batch, at most two batches a run: four culled, the fifth waits for the next run.
    const first = await cull(at, { batchLicenses: 2, maxBatches: 2 });
    expect(first.ran).toBe(true);
    expect(first.batches).toHaveLength(2);
    expect(first.result).toMatchObject({ licenses: 4, culled: 4 });
    const second = await cull(at, { batchLicenses: 2, maxBatches: 2 });
    expect(second.batches).toHaveLength(1);
    expect(second.result).toMatchObject({ licenses: 1, culled: 1 });

    // The log: one summary per batch (three), none per machine.
    const added = await rows<{ type: string; actor_type: string; target_id: string; after: Record<string, number> }>(
      sql`select type, actor_type, target_id, after from audit_events order by seq offset ${before}`,
    );
    expect(added.map((row) => row.type)).toEqual(["machines.culled", "machines.culled", "machines.culled"]);
    expect(added.map((row) => row.after.culled)).toEqual([2, 2, 1]);
    expect(added[0]).toMatchObject({ actor_type: "system", target_id: "culling" });
    expect(added[0]!.after).toEqual({ culled: 2, forgotten: 0, executions_ended: 0, licenses: 2 });

    // Each machine's cull: its machine event, and its webhook with an event id of its own.
    const culledEvents = await rows<{ machine_id: string }>(sql`
      select e.machine_id from machine_events e join licenses l on l.id = e.license_id
      where e.kind = 'culled' and l.license_key in ${keys} order by e.machine_id`);
    expect(culledEvents.map((row) => row.machine_id)).toEqual([0, 1, 2, 3, 4].map((i) => `flat-cull-machine-${i}`));
    const hooks = await rows<{ event_id: string; payload: { id: string; data: { target: { id: string } } } }>(sql`
      select event_id, payload from outbox where channel = 'webhook' and payload->>'type' = 'machine.culled'`);
    expect(hooks.map((row) => row.payload.data.target.id).sort()).toEqual(
      [0, 1, 2, 3, 4].map((i) => `flat-cull-machine-${i}`),
    );
    expect(new Set(hooks.map((row) => row.event_id)).size).toBe(5);
    for (const hook of hooks) expect(hook.payload.id).toBe(hook.event_id);

    // Nothing due: one batch that locks nothing and records nothing.
    const idle = await cull(at, { batchLicenses: 2, maxBatches: 2 });
    expect(idle.batches).toHaveLength(1);
    expect(idle.result).toMatchObject({ licenses: 0, culled: 0 });
    const after = Number((await rows<{ n: number }>(sql`select count(*)::int as n from audit_events`))[0]!.n);
    expect(after).toBe(before + 3);
  });

  it("forgets an inactive machine past the revival window from the index of inactive machines", async () => {
    const [key] = await fleet("flat-forget", 1);
    const at = new Date(Date.now() + FREE_SILENCE_MS + 60_000);
    expect((await cull(at, {})).result).toMatchObject({ culled: 1 });
    const much = new Date(at.getTime() + SEAT_RULES.revivalWindowSeconds * 1000 + 60_000);
    // This one and the five culled above.
    expect((await cull(much, {})).result).toMatchObject({ forgotten: 6 });
    expect(
      await rows(sql`select 1 from machines m join licenses l on l.id = m.license_id where l.license_key = ${key}`),
    ).toEqual([]);
  });
});

describe("reads that no longer OR two conditions return what the OR returned", () => {
  let customerId = "";
  let licenseId = "";
  let token = "";
  let adminToken = "";
  let adminId = "";
  let otherId = "";

  beforeAll(async () => {
    const owner = await licensedCustomer(app, "flat-owner");
    token = owner.token;
    const [license] = await rows<{ id: string; customer_id: string }>(
      sql`select id, customer_id from licenses where license_key = ${owner.key}`,
    );
    licenseId = license!.id;
    customerId = license!.customer_id;
    const admin = await devSignIn(app, { email: ADMIN, name: "Flat Admin" });
    adminToken = admin.token;
    adminId = admin.customer.id;
    const other = await licensedCustomer(app, "flat-other");
    otherId = (
      await rows<{ customer_id: string }>(sql`select customer_id from licenses where license_key = ${other.key}`)
    )[0]!.customer_id;
    // 120 rows in every combination the OR saw: about the customer, about their license (with or without them, or
    // with someone else as customer), both, neither; by the admin, by the customer, by the service, by a type.
    await app.database.db.execute(sql`
      insert into audit_events (type, actor_type, actor_id, target_type, target_id, customer_id, license_id)
      select (array['machine.bound','license.updated','customer.sessions_revoked'])[1 + g % 3],
             (array['admin','customer','service','system'])[1 + g % 4],
             (array[${adminId}, ${customerId}, 'license-api', 'culling'])[1 + (g / 4) % 4],
             'machine', 'm-' || g,
             (array[${customerId}::uuid, null, ${otherId}::uuid, ${customerId}::uuid, null])[1 + g % 5],
             (array[null, ${licenseId}::uuid, ${licenseId}::uuid, ${licenseId}::uuid, null])[1 + (g / 5) % 5]
      from generate_series(1, 120) g`);
  });

  /** Every page of a listing, following its cursor: the ids in order. */
  async function allPages(url: string, headers: Record<string, string>, limit: number) {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const answer: { statusCode: number; body: string; json(): unknown } = await app.inject({
        url: `${url}${url.includes("?") ? "&" : "?"}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`,
        headers,
      });
      expect(answer.statusCode, answer.body).toBe(200);
      const body = answer.json() as { data: { id: string }[]; next_cursor: string | null };
      ids.push(...body.data.map((row) => row.id));
      cursor = body.next_cursor;
      if (!cursor) break;
    }
    return ids;
  }

  const reference = async (where: SQL) =>
    (await rows<{ id: string }>(sql`select id from audit_events where ${where} order by seq desc`)).map(
      (row) => row.id,
    );

  it("the customer's activity: every event about them or their license, newest first, none twice", async () => {
    const expected = await reference(
      sql`customer_id = ${customerId} or license_id in (select id from licenses where customer_id = ${customerId})`,
    );
    expect(expected.length).toBeGreaterThan(60);
    for (const limit of [7, 50]) {
      expect(await allPages("/api/customer/activity", bearer(token), limit)).toEqual(expected);
    }
  });

  it("the audit search by actor: a type, an id, an address (its account), alone and with other filters", async () => {
    const admin = bearer(adminToken);
    const cases: [string, SQL][] = [
      [
        `actor=${encodeURIComponent(ADMIN)}`,
        sql`actor_type = ${ADMIN} or actor_id = ${ADMIN} or actor_id = ${adminId}`,
      ],
      [`actor=${adminId}`, sql`actor_type = ${adminId} or actor_id = ${adminId}`],
      ["actor=service", sql`actor_type = 'service' or actor_id = 'service'`],
      ["actor=culling", sql`actor_type = 'culling' or actor_id = 'culling'`],
      [
        `actor=${customerId}&type=license.updated`,
        sql`(actor_type = ${customerId} or actor_id = ${customerId}) and type = 'license.updated'`,
      ],
      [
        `actor=admin&license_id=${licenseId}`,
        sql`(actor_type = 'admin' or actor_id = 'admin') and license_id = ${licenseId}`,
      ],
    ];
    for (const [query, where] of cases) {
      const expected = await reference(where);
      expect(expected.length, query).toBeGreaterThan(0);
      expect(await allPages(`/api/admin/audit?${query}`, admin, 9), query).toEqual(expected);
    }
  });
});
