/**
 * Granting and revoking the admin role from the console (decision 0047), from both sides: a customer who is not an
 * admin changes nothing; an admin grants with a reason (audit row admin.granted), the address is an admin at once;
 * revoking is refused for configured addresses, one's own address and unknown ones; two admins revoking each other
 * at once leave one admin, never none.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSignIn } from "./helpers/dev-sign-in";
import { createTestApp } from "./helpers/test-app";

const CONFIGURED = "olive.config@example.com";
const { app, close } = await createTestApp({ adminEmails: [CONFIGURED], backgroundJobs: false });
/** No ADMIN_EMAILS: every admin is a granted one. */
const bare = await createTestApp({ backgroundJobs: false });
let configured: string;
let mallory: string;

beforeAll(async () => {
  configured = (await devSignIn(app, { email: CONFIGURED, name: "Olive Config" })).token;
  mallory = (await devSignIn(app, { email: "mallory@example.com", name: "Mallory" })).token;
});
afterAll(async () => {
  await close();
  await bare.close();
});

const as = (token: string | null, method: "GET" | "POST", url: string, payload?: Record<string, unknown>) =>
  app.inject({
    method,
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(payload === undefined ? {} : { payload }),
  });

async function adminEmails(): Promise<string[]> {
  return ((await as(configured, "GET", "/api/admin/admins")).json().data as { email: string }[]).map((a) => a.email);
}

/** The audit log names a grant by its id, never the address (decision 0053); none: every event of the type. */
async function auditOf(type: string, grantId?: string) {
  const target = grantId ? `&target_id=${encodeURIComponent(grantId)}` : "";
  const response = await as(configured, "GET", `/api/admin/audit?type=${type}${target}`);
  return response.json().data as { actor: { type: string; email: string | null }; reason: string | null }[];
}

async function grantIdOf(email: string): Promise<string> {
  const list = (await as(configured, "GET", "/api/admin/admins")).json().data as { id: string; email: string }[];
  return list.find((entry) => entry.email.toLowerCase() === email.toLowerCase())!.id;
}

describe("the admin role from the console", () => {
  it("a customer who is not an admin can neither list, grant nor revoke (403), and nothing changes", async () => {
    const before = await adminEmails();
    for (const [method, url, payload] of [
      ["GET", "/api/admin/admins", undefined],
      ["POST", "/api/admin/admins", { email: "mallory@example.com", reason: "let me in" }],
      ["POST", "/api/admin/admins/revoke", { email: CONFIGURED, reason: "let me in" }],
    ] as const) {
      const response = await as(mallory, method, url, payload);
      expect(response.statusCode, url).toBe(403);
      expect(response.json()).toMatchObject({ success: false, code: "FORBIDDEN" });
      expect((await as(null, method, url, payload)).statusCode, url).toBe(401);
    }
    expect(await adminEmails()).toEqual(before);
    expect(await auditOf("admin.granted")).toEqual([]);
    expect((await as(mallory, "GET", "/api/admin/me")).statusCode).toBe(403);
  });

  it("validates the address and requires a reason", async () => {
    for (const payload of [
      { email: "not-an-email", reason: "new colleague" },
      { email: "a b@example.com", reason: "new colleague" },
      { email: `${"x".repeat(250)}@example.com`, reason: "new colleague" },
      { email: "new@example.com" },
      { email: "new@example.com", reason: " " },
      { email: "new@example.com", reason: "new colleague", extra: true },
    ]) {
      const response = await as(configured, "POST", "/api/admin/admins", payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
    }
    expect((await as(configured, "POST", "/api/admin/admins", { email: "nope", reason: "x y z" })).json().error).toBe(
      "Enter an email address, like name@example.com.",
    );
    expect(await adminEmails()).toEqual([CONFIGURED]);
  });

  it("grants: the address is an admin at once, listed with who granted it, and the audit log says who and why", async () => {
    const granted = await as(configured, "POST", "/api/admin/admins", {
      email: "  Pat.Granted@Example.com ",
      reason: "joins support",
    });
    expect(granted.statusCode).toBe(200);
    expect(granted.json()).toMatchObject({ success: true, changed: true });
    const list = (await as(configured, "GET", "/api/admin/admins")).json().data;
    expect(list).toEqual([
      { id: null, email: CONFIGURED, source: "config", granted_by: null, granted_at: null },
      {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        email: "Pat.Granted@Example.com",
        source: "granted",
        granted_by: CONFIGURED,
        granted_at: expect.any(String),
      },
    ]);
    const patGrant = await grantIdOf("pat.granted@example.com");
    const [event] = await auditOf("admin.granted", patGrant);
    expect(event).toMatchObject({ actor: { type: "admin", email: CONFIGURED }, reason: "joins support" });

    const pat = (await devSignIn(app, { email: "pat.granted@example.com", name: "Pat" })).token;
    expect((await as(pat, "GET", "/api/admin/me")).json().data).toMatchObject({ source: "granted" });

    // Again, or a configured address: nothing to change, no second audit row.
    const again = await as(configured, "POST", "/api/admin/admins", {
      email: "pat.granted@example.com",
      reason: "x y z",
    });
    expect(again.json()).toMatchObject({ changed: false });
    const configuredAgain = await as(pat, "POST", "/api/admin/admins", { email: CONFIGURED, reason: "x y z" });
    expect(configuredAgain.json()).toMatchObject({ changed: false });
    expect(await auditOf("admin.granted", patGrant)).toHaveLength(1);
  });

  it("revokes a granted admin (audit row admin.revoked); refuses configured, own and unknown addresses", async () => {
    await as(configured, "POST", "/api/admin/admins", { email: "quinn@example.com", reason: "on call" });
    const quinnGrant = await grantIdOf("quinn@example.com");
    const quinn = (await devSignIn(app, { email: "quinn@example.com", name: "Quinn" })).token;

    const self = await as(quinn, "POST", "/api/admin/admins/revoke", { email: "QUINN@example.com", reason: "leaving" });
    expect(self.statusCode).toBe(409);
    expect(self.json()).toMatchObject({ code: "ADMIN_SELF" });
    const config = await as(quinn, "POST", "/api/admin/admins/revoke", { email: CONFIGURED, reason: "coup" });
    expect(config.statusCode).toBe(409);
    expect(config.json()).toMatchObject({ code: "ADMIN_CONFIGURED" });
    const unknown = await as(quinn, "POST", "/api/admin/admins/revoke", { email: "who@example.com", reason: "typo" });
    expect(unknown.statusCode).toBe(404);
    expect(await adminEmails()).toContain("quinn@example.com");

    const revoked = await as(configured, "POST", "/api/admin/admins/revoke", {
      email: "quinn@example.com",
      reason: "left the team",
    });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ success: true, changed: true });
    expect(await adminEmails()).not.toContain("quinn@example.com");
    const [event] = await auditOf("admin.revoked", quinnGrant);
    expect(event).toMatchObject({ actor: { type: "admin", email: CONFIGURED }, reason: "left the team" });
    // The admin API refuses the revoked admin's session at once.
    expect((await as(quinn, "GET", "/api/admin/me")).statusCode).toBe(403);
    expect((await as(quinn, "GET", "/api/admin/admins")).statusCode).toBe(403);
  });
});

describe("the session says whether its user may open the console (an admin's menu links it)", () => {
  const isAdmin = async (token: string) =>
    (await as(token, "GET", "/api/auth/validate")).json().user.is_admin as boolean;

  it("answers is_admin at sign-in and on every check, following grants and revocations at once", async () => {
    const signedIn = await devSignIn(app, { email: "rory@example.com", name: "Rory" });
    expect(signedIn.customer).toMatchObject({ email: "rory@example.com", is_admin: false });
    expect(await isAdmin(signedIn.token)).toBe(false);
    expect((await devSignIn(app, { email: CONFIGURED, name: "Olive Config" })).customer).toMatchObject({
      is_admin: true,
    });
    expect(await isAdmin(configured)).toBe(true);

    await as(configured, "POST", "/api/admin/admins", { email: "rory@example.com", reason: "joins support" });
    expect(await isAdmin(signedIn.token)).toBe(true);
    await as(configured, "POST", "/api/admin/admins/revoke", { email: "rory@example.com", reason: "left support" });
    expect(await isAdmin(signedIn.token)).toBe(false);
    expect((await as(mallory, "GET", "/api/auth/validate")).json().user).toMatchObject({ is_admin: false });
  });
});

describe("never no admin", () => {
  it("two granted admins revoking each other at once: one wins, the other is refused, one admin remains", async () => {
    const { grantAdmin } = await import("../src/modules/admin/roles");
    const database = (bare.app as unknown as { database: { db: Parameters<typeof grantAdmin>[0] } }).database;
    await grantAdmin(database.db, "rae@example.com", { type: "service", id: "admin-cli" });
    await grantAdmin(database.db, "sam@example.com", { type: "service", id: "admin-cli" });
    const rae = (await devSignIn(bare.app, { email: "rae@example.com", name: "Rae" })).token;
    const sam = (await devSignIn(bare.app, { email: "sam@example.com", name: "Sam" })).token;
    const revoke = (token: string, email: string) =>
      bare.app.inject({
        method: "POST",
        url: "/api/admin/admins/revoke",
        headers: { authorization: `Bearer ${token}` },
        payload: { email, reason: "race" },
      });
    const answers = await Promise.all([revoke(rae, "sam@example.com"), revoke(sam, "rae@example.com")]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 403]);
    const winner = answers[0]!.statusCode === 200 ? rae : sam;
    const list = (
      await bare.app.inject({ method: "GET", url: "/api/admin/admins", headers: { authorization: `Bearer ${winner}` } })
    ).json().data;
    expect(list).toHaveLength(1);
    // The last admin cannot be revoked: the only one left is the admin's own address.
    const last = await revoke(winner, list[0].email);
    expect(last.statusCode).toBe(409);
  });

  it("a request that passed the guard just before its admin was revoked changes nothing (checked in the transaction)", async () => {
    const { AdminRoles, grantAdmin } = await import("../src/modules/admin/roles");
    const database = (bare.app as unknown as { database: { db: Parameters<typeof grantAdmin>[0] } }).database;
    const roles = new AdminRoles(database.db, []);
    await grantAdmin(database.db, "tess@example.com", { type: "service", id: "admin-cli" });
    await grantAdmin(database.db, "uma@example.com", { type: "service", id: "admin-cli" });
    await roles.revoke("tess@example.com", { type: "admin", id: "uma", email: "uma@example.com" }, { reason: "r" });
    // Tess's request was let in before that: her revocation of Uma is refused, and Uma stays.
    await expect(
      roles.revoke("uma@example.com", { type: "admin", id: "tess", email: "tess@example.com" }, { reason: "r" }),
    ).rejects.toMatchObject({ statusCode: 403 });
    expect((await roles.list()).map((a) => a.email)).toContain("uma@example.com");
  });
});
