/**
 * Security review, decision 0053: the append-only audit log is pseudonymous by construction. It names admins and
 * admin grants by id (never an address), keeps a request's network (IPv4 /24, IPv6 /48) rather than its address,
 * and recordEvent strips what a careless caller passes. Migration 0012 rewrote the rows written before. On PGlite
 * and PostgreSQL.
 */
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditNetwork, containsEmail, REDACTED } from "../src/modules/events/pseudonymous";
import { recordEvent } from "../src/modules/events/record";
import { validSignup } from "./fixtures";
import { devSignIn } from "./helpers/dev-sign-in";
import { bearer, licensedCustomer } from "./helpers/licensed-customer";
import { withDatabaseBefore } from "./helpers/migrations";
import { createTestApp } from "./helpers/test-app";

const ADMIN = "olive.config@example.com";
const ADMIN_ADDRESS = "198.51.100.77";
const { app, close } = await createTestApp({ adminEmails: [ADMIN], backgroundJobs: false });
let admin: { token: string; customer: { id: string } };

const rows = async (statement: ReturnType<typeof sql>) =>
  ((await app.database.db.execute(statement)) as unknown as { rows: Record<string, unknown>[] }).rows;
const asAdmin = (method: "GET" | "POST", url: string, payload?: Record<string, unknown>) =>
  app.inject({
    method,
    url,
    headers: bearer(admin.token),
    remoteAddress: ADMIN_ADDRESS,
    ...(payload ? { payload } : {}),
  });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(async () => {
  admin = await devSignIn(app, { email: ADMIN, name: "Olive Config" });
});
afterAll(() => close());

describe("the audit log names admins and grants by id", () => {
  it("a grant and its revocation: target, before/after and actor hold ids, no address; the console still says who", async () => {
    const granted = await asAdmin("POST", "/api/admin/admins", { email: "Pat.Granted@Example.com", reason: "on call" });
    expect(granted.statusCode, granted.body).toBe(200);
    const pat = await devSignIn(app, { email: "pat.granted@example.com", name: "Pat Granted" });
    const revoked = await asAdmin("POST", "/api/admin/admins/revoke", {
      email: "pat.granted@example.com",
      reason: "left the team",
    });
    expect(revoked.statusCode, revoked.body).toBe(200);

    const stored = await rows(sql`select * from audit_events where type in ('admin.granted', 'admin.revoked')
      order by seq`);
    expect(stored.map((row) => row.type)).toEqual(["admin.granted", "admin.revoked"]);
    for (const row of stored) {
      expect(JSON.stringify(row)).not.toMatch(/pat\.granted|olive\.config/i);
      expect(row).toMatchObject({ actor_type: "admin", actor_id: admin.customer.id, target_type: "admin" });
      expect(row.actor_email ?? null).toBeNull();
      expect(String(row.target_id)).toMatch(UUID);
    }
    // The grant and its revocation name the same grant, and the grantee by their account's id once they have one.
    expect(stored[0]!.target_id).toBe(stored[1]!.target_id);
    expect(stored[0]!.after).toEqual({ customer_ids: [] });
    expect(stored[1]!.before).toMatchObject({ customer_ids: [pat.customer.id], granted_at: expect.any(String) });

    // The console shows the admin's current address beside the id, found by exact address, not by a piece of it.
    const byAddress = (await asAdmin("GET", `/api/admin/audit?actor=${encodeURIComponent(ADMIN)}`)).json().data;
    expect(byAddress.map((event: { type: string }) => event.type)).toEqual(
      expect.arrayContaining(["admin.granted", "admin.revoked"]),
    );
    expect(byAddress[0].actor).toEqual({ type: "admin", id: admin.customer.id, email: ADMIN });
    expect((await asAdmin("GET", "/api/admin/audit?actor=olive")).json().data).toEqual([]);
  });

  it("every admin action names the admin by id only, and keeps the admin's network, not their address", async () => {
    const { key } = await licensedCustomer(app, "audit-pseudo");
    const suspended = await asAdmin("POST", `/api/admin/licenses/${key}/actions`, {
      action: "suspend",
      reason: "chargeback review",
    });
    expect(suspended.statusCode, suspended.body).toBe(200);
    const [row] = await rows(sql`select * from audit_events where type = 'license.status_changed' order by seq desc
      limit 1`);
    expect(row).toMatchObject({ actor_type: "admin", actor_id: admin.customer.id, address: "198.51.100.0/24" });
    expect(JSON.stringify(row)).not.toContain(ADMIN);
    expect(JSON.stringify(row)).not.toContain(ADMIN_ADDRESS);
  });
});

describe("the audit log keeps a request's network, not its address", () => {
  it("IPv4 to /24, IPv6 to /48, IPv4-mapped IPv6 as IPv4", async () => {
    for (const [remoteAddress, network] of [
      ["203.0.113.9", "203.0.113.0/24"],
      ["2001:db8:abcd:12::5", "2001:db8:abcd::/48"],
      ["::ffff:192.0.2.44", "192.0.2.0/24"],
    ] as const) {
      const email = `net.${network.replace(/\W/g, "")}@example.com`;
      const response = await app.inject({
        method: "POST",
        url: "/api/signup",
        payload: validSignup({ email }),
        remoteAddress,
      });
      expect(response.statusCode).toBe(200);
      const [signup] = await rows(sql`select id from signups where email = ${email}`);
      const [row] = await rows(sql`select address from audit_events where type = 'signup.created'
        and target_id = ${String(signup!.id)}`);
      expect(row!.address, remoteAddress).toBe(network);
    }
    const full = await rows(sql`select 1 from audit_events
      where address in ('203.0.113.9', '2001:db8:abcd:12::5', '::ffff:192.0.2.44', ${ADMIN_ADDRESS})`);
    expect(full).toEqual([]);
  });
});

describe("recordEvent: no caller can put an address in the log", () => {
  it("strips addresses from the target, the actor, before/after and the reason; the webhook and mail keep them", async () => {
    const { customer } = await devSignIn(app, { email: "careless.caller@example.com", name: "Careless Caller" });
    const event = await recordEvent(app.database.db, {
      type: "signup.created",
      actor: { type: "admin", id: "boss@example.com", email: "boss@example.com" },
      target: { type: "admin", id: "careless.caller@example.com" },
      before: { granted_by: "Boss <boss@example.com>", nested: { contact: "careless.caller@example.com", n: 1 } },
      after: { email: "careless.caller@example.com", list: ["careless.caller@example.com", "kept"] },
      reason: "asked by careless.caller@example.com",
      address: "203.0.113.200",
      customerId: customer.id,
      recipient: "careless.caller@example.com",
    });
    const [row] = await rows(sql`select * from audit_events where id = ${event.id}`);
    expect(row).toMatchObject({
      actor_id: REDACTED,
      target_id: REDACTED,
      before: { nested: { n: 1 } },
      after: { list: ["kept"] },
      reason: `asked by ${REDACTED}`,
      address: "203.0.113.0/24",
    });
    expect(containsEmail(JSON.stringify(row))).toBe(false);
    // The messages that report the event carry the values: they are what the event is for, and they can be erased.
    const [mail] = await rows(sql`select payload from outbox where event_id = ${event.id} and channel = 'email'`);
    expect(JSON.stringify(mail!.payload)).toContain("careless.caller@example.com");
  });

  it("after all of the above, no row of the log holds an address", async () => {
    const all = await rows(sql`select * from audit_events`);
    expect(all.length).toBeGreaterThan(5);
    expect(all.filter((row) => containsEmail(JSON.stringify(row)))).toEqual([]);
  });
});

describe("migration 0012 rewrites the rows written before", () => {
  it("emails out of targets, before/after, actors and reasons; addresses cut to their network; the trigger back on", async () => {
    await withDatabaseBefore(12, async (run, migrateAll) => {
      const [kept] = await run(sql`insert into admins (email_normalized, email, granted_by)
        values ('kim@ex.co', 'Kim@Ex.co', 'boss@ex.co') returning email_normalized`);
      expect(kept).toBeDefined();
      const boss = "9d0c6c8e-0a8f-4a3e-b2a5-0e0a3c0c8f01";
      const signup = "5b1f0c2e-7d0a-4f57-9c53-2d9f5f3a6a10";
      const license = "0e8f7a36-1a8b-4c61-8a52-8f8e5a1f2b33";
      const old = [
        [
          "admin.granted",
          "admin",
          "boss@ex.co",
          "admin",
          "pat@ex.co",
          null,
          { email: "Pat@Ex.co" },
          "on call",
          "203.0.113.9",
        ],
        [
          "admin.revoked",
          "admin",
          "boss@ex.co",
          "admin",
          "PAT@ex.co",
          { email: "Pat@Ex.co", granted_by: "boss@ex.co" },
          null,
          "left",
          "2001:db8:abcd:12::5",
        ],
        ["admin.granted", "service", null, "admin", "kim@ex.co", null, { email: "Kim@Ex.co" }, "admin CLI", null],
        [
          "signup.created",
          "anonymous",
          null,
          "signup",
          signup,
          null,
          { email: "ann@ex.co", name: "Ann", role: "Tech Lead" },
          null,
          "::ffff:198.51.100.7",
        ],
        [
          "license.status_changed",
          "admin",
          "boss@ex.co",
          "license",
          license,
          { status: "active" },
          { status: "suspended" },
          "asked by ann@ex.co",
          "not an address",
        ],
        [
          "machine.bound",
          "service",
          null,
          "machine",
          "ann@ex.co",
          null,
          { list: [{ contact: "a@b.co" }, "x"], n: 1 },
          null,
          "fe80::1",
        ],
      ] as const;
      for (const [type, actorType, actorEmail, targetType, targetId, before, after, reason, address] of old) {
        await run(sql`insert into audit_events (type, actor_type, actor_id, actor_email, target_type, target_id,
          before, after, reason, address)
          values (${type}, ${actorType}, ${actorType === "admin" ? boss : actorType === "service" ? "admin-cli" : null},
            ${actorEmail}, ${targetType}, ${targetId}, ${before === null ? null : JSON.stringify(before)}::jsonb,
            ${after === null ? null : JSON.stringify(after)}::jsonb, ${reason}, ${address})`);
      }
      const [{ n: count } = { n: 0 }] = await run(sql`select count(*)::int as n from audit_events`);

      await migrateAll();

      const after = await run(sql`select * from audit_events order by seq`);
      expect(after).toHaveLength(Number(count));
      for (const row of after) expect(containsEmail(JSON.stringify(row)), JSON.stringify(row)).toBe(false);
      expect(after.every((row) => !("actor_email" in row))).toBe(true);
      const [grantPat, revokePat, grantKim, signupRow, statusRow, machineRow] = after;
      expect(String(grantPat!.target_id)).toMatch(UUID);
      expect(revokePat!.target_id).toBe(grantPat!.target_id);
      const [kim] = await run(sql`select id from admins where email_normalized = 'kim@ex.co'`);
      expect(grantKim!.target_id).toBe(String(kim!.id));
      expect(grantPat!.after).toEqual({});
      expect(revokePat!.before).toEqual({});
      expect(signupRow!.after).toEqual({ role: "Tech Lead" });
      expect(statusRow!.reason).toBe(`asked by ${REDACTED}`);
      expect(statusRow!.actor_id).toBe(boss);
      expect(machineRow!.target_id).toBe(REDACTED);
      expect(machineRow!.after).toEqual({ list: [{}, "x"], n: 1 });
      // The migration's networks are the ones recordEvent writes.
      expect(after.map((row) => row.address)).toEqual(old.map((row) => auditNetwork(row[8])));
      expect(after.map((row) => row.address)).toEqual([
        "203.0.113.0/24",
        "2001:db8:abcd::/48",
        null,
        "198.51.100.0/24",
        null,
        "fe80::/48",
      ]);

      // The log is append-only again: the trigger is on, and refuses.
      const [trigger] = await run(sql`select tgenabled from pg_trigger where tgname = 'audit_events_no_change'`);
      expect(trigger!.tgenabled).toBe("O");
      await expect(run(sql`update audit_events set reason = 'rewritten'`)).rejects.toThrow();
      await expect(run(sql`delete from audit_events`)).rejects.toThrow();
    });
  });
});
