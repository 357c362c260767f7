/**
 * Issue 36, decision 0062: admitting early-access signups as beta testers, in waves. Every route is an admin's (a
 * stranger gets 401, a signed-in customer without the role 403); admitting is idempotent (same signup twice, in one
 * wave or two, or by two admins at once: one invitation, one mail); the mail carries a sign-in link and a reference;
 * signing in with exactly the invited address accepts (not an address that merely contains it); the funnel follows the
 * person through license, activation and execution; resend and withdraw are audited; the privacy export and erasure
 * include the invitation. Runs on PGlite (api) and on PostgreSQL (api-postgres), where the race is a real one.
 */
import type { BetaWave } from "@flotilla/contracts/beta";
import { PLATFORM_VALUES } from "@flotilla/contracts/signup";
import { sql } from "drizzle-orm";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAdmittedTester } from "../src/modules/beta/testers";
import { validSignup } from "./fixtures";
import { devSignIn } from "./helpers/dev-sign-in";
import { bearer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

const ADMIN = "beta.admin@example.com";
const SECOND_ADMIN = "beta.second@example.com";
const { app, close } = await createTestApp({ adminEmails: [ADMIN, SECOND_ADMIN], backgroundJobs: false });
afterAll(async () => close());

let admin: string;
let secondAdmin: string;
let adminId: string;
let customer: string;

const rows = async (statement: ReturnType<typeof sql>) =>
  ((await app.database.db.execute(statement)) as unknown as { rows: Record<string, unknown>[] }).rows;
const call = (
  method: "GET" | "POST",
  url: string,
  token: string | null,
  payload?: unknown,
): Promise<LightMyRequestResponse> =>
  app.inject({
    method,
    url,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    headers: token ? bearer(token) : {},
  });
const signup = async (email: string, overrides: Record<string, unknown> = {}) => {
  const answer = await app.inject({
    method: "POST",
    url: "/api/signup",
    payload: validSignup({ email, name: "Quentin Zyxwvname", newsletter: false, ...overrides }),
  });
  expect(answer.statusCode, answer.body).toBe(200);
  const [row] = await rows(sql`select id from signups where email_normalized = ${email.trim().toLowerCase()}`);
  return String(row!.id);
};
const createWave = async (name: string, date = "2026-12-01") => {
  const answer = await call("POST", "/api/admin/beta/waves", admin, { name, date });
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json().data as { id: string; name: string };
};
const invitationMails = (email: string) =>
  rows(sql`select id, payload from outbox where channel = 'email'
    and payload->>'template' in ('beta.invited', 'beta.invitation_resent') and lower(payload->>'to') = ${email.toLowerCase()}`);
const waveOf = async (waveId: string): Promise<BetaWave> => {
  const list = await call("GET", "/api/admin/beta/waves", admin);
  expect(list.statusCode, list.body).toBe(200);
  const wave = (list.json().data as BetaWave[]).find((item) => item.id === waveId);
  if (!wave) throw new Error(`wave ${waveId} is not listed`);
  return wave;
};

beforeAll(async () => {
  ({
    token: admin,
    customer: { id: adminId },
  } = await devSignIn(app, { email: ADMIN, name: "Beta Admin" }));
  secondAdmin = (await devSignIn(app, { email: SECOND_ADMIN, name: "Second Admin" })).token;
  customer = (await devSignIn(app, { email: "plain.customer@example.com", name: "Plain Customer" })).token;
});

describe("who may call", () => {
  const routes: ["GET" | "POST", string, unknown][] = [
    ["GET", "/api/admin/beta/waves", undefined],
    ["POST", "/api/admin/beta/waves", { name: "Wave X", date: "2026-12-01" }],
    ["GET", "/api/admin/beta/candidates", undefined],
    ["GET", `/api/admin/beta/waves/${crypto.randomUUID()}/invitations`, undefined],
    ["POST", `/api/admin/beta/waves/${crypto.randomUUID()}/admit`, { signup_ids: [crypto.randomUUID()] }],
    ["POST", `/api/admin/beta/invitations/${crypto.randomUUID()}/resend`, undefined],
    ["POST", `/api/admin/beta/invitations/${crypto.randomUUID()}/withdraw`, {}],
  ];

  it("a stranger gets 401 and a customer without the admin role 403, on every route", async () => {
    for (const [method, url, payload] of routes) {
      expect((await call(method, url, null, payload)).statusCode, `${method} ${url}`).toBe(401);
      const forbidden = await call(method, url, customer, payload);
      expect(forbidden.statusCode, `${method} ${url}`).toBe(403);
      expect(forbidden.json().code).toBe("FORBIDDEN");
    }
    expect(await rows(sql`select 1 from beta_waves where name = 'Wave X'`)).toEqual([]);
  });
});

describe("waves", () => {
  it("refuses a wave without a name, with a bad date, an unknown field or a name taken in another case", async () => {
    for (const body of [
      { name: " ", date: "2026-12-01" },
      { name: "Ok", date: "1 December" },
      { name: "Ok", date: "2026-12-01", extra: true },
      { name: "x".repeat(81), date: "2026-12-01" },
      { name: "Bidi\u202Ename", date: "2026-12-01" },
    ]) {
      expect((await call("POST", "/api/admin/beta/waves", admin, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    await createWave("Founders");
    const taken = await call("POST", "/api/admin/beta/waves", admin, { name: "FOUNDERS", date: "2026-12-02" });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().code).toBe("WAVE_NAME_TAKEN");
    const [event] = await rows(sql`select actor_type, actor_id from audit_events where type = 'beta.wave_created'`);
    expect(event).toEqual({ actor_type: "admin", actor_id: adminId });
  });
});

describe("admitting", () => {
  it("lists candidates by platform and date, and admits them: one mail each, with a sign-in link and a reference", async () => {
    const mac = await signup("Mac.User@Example.com", { platform: PLATFORM_VALUES[2] });
    const win = await signup("win.user@example.com", { platform: PLATFORM_VALUES[1] });
    const wave = await createWave("Wave 1", "2026-12-05");

    const today = new Date().toISOString().slice(0, 10);
    const macs = await call(
      "GET",
      `/api/admin/beta/candidates?platform=${encodeURIComponent(String(PLATFORM_VALUES[2]))}&from=${today}&to=${today}`,
      admin,
    );
    expect(macs.statusCode, macs.body).toBe(200);
    const ids = macs.json().data.map((c: { signup_id: string }) => c.signup_id);
    expect(ids).toContain(mac);
    expect(ids).not.toContain(win);
    expect(
      (await call("GET", "/api/admin/beta/candidates?to=2000-01-01", admin)).json().data,
      "a date range before every signup",
    ).toEqual([]);

    const admitted = await call("POST", `/api/admin/beta/waves/${wave.id}/admit`, admin, { signup_ids: [mac, win] });
    expect(admitted.statusCode, admitted.body).toBe(200);
    expect(admitted.json().data).toEqual({ admitted: 2, already_invited: 0, not_found: 0 });

    // Invited signups leave the default candidate list, and show their invitation otherwise.
    const after = await call("GET", "/api/admin/beta/candidates", admin);
    expect(after.json().data.map((c: { signup_id: string }) => c.signup_id)).not.toContain(mac);
    const all = await call("GET", "/api/admin/beta/candidates?uninvited=false", admin);
    expect(all.json().data.find((c: { signup_id: string }) => c.signup_id === mac).invitation).toMatchObject({
      wave_id: wave.id,
      status: "invited",
    });

    await app.outbox.runOnce();
    const [mail] = await rows(
      sql`select recipient, subject, text, html from dev_mail
        where recipient = 'Mac.User@Example.com' and subject like '%beta%'`,
    );
    const [invitation] = await rows(sql`select id from beta_invitations where signup_id = ${mac}`);
    expect(mail!.subject).toBe("You're invited to the Flotilla beta");
    expect(String(mail!.text)).toContain(`/login?redirect=%2Fdashboard&invite=${invitation!.id}`);
    expect(String(mail!.text)).toContain(`Invitation reference: ${invitation!.id}`);
    expect(String(mail!.text)).toContain('wave "Wave 1", from 2026-12-05');
    expect(String(mail!.html)).toMatch(/href="https?:\/\/[^"]+\/login\?redirect=%2Fdashboard&#38;invite=/);
    // Nothing the signup typed comes back in a mail from our domain.
    expect(`${mail!.text}${mail!.html}`).not.toContain("Zyxwvname");

    const [audit] = await rows(
      sql`select actor_type, actor_id, target_id, after::text as after from audit_events
        where type = 'beta.invited' and target_id = ${String(invitation!.id)}`,
    );
    expect(audit).toMatchObject({ actor_type: "admin", actor_id: adminId });
    expect(String(audit!.after).toLowerCase()).not.toContain("mac.user@example.com");
  });

  it("is idempotent: the same signup again, in the same wave or another, sends nothing more", async () => {
    const id = await signup("twice@example.com");
    const first = await createWave("Twice A");
    const second = await createWave("Twice B");
    const admit = (waveId: string) =>
      call("POST", `/api/admin/beta/waves/${waveId}/admit`, admin, { signup_ids: [id, id] });
    expect((await admit(first.id)).json().data).toEqual({ admitted: 1, already_invited: 0, not_found: 0 });
    expect((await admit(first.id)).json().data).toEqual({ admitted: 0, already_invited: 1, not_found: 0 });
    expect((await admit(second.id)).json().data).toEqual({ admitted: 0, already_invited: 1, not_found: 0 });
    expect(await invitationMails("twice@example.com")).toHaveLength(1);
    expect(await rows(sql`select wave_id from beta_invitations where email_normalized = 'twice@example.com'`)).toEqual([
      { wave_id: first.id },
    ]);
  });

  it("two admins admitting the same signups at once send one invitation each", async () => {
    const ids = await Promise.all(["race.one@example.com", "race.two@example.com"].map((email) => signup(email)));
    const [a, b] = [await createWave("Race A"), await createWave("Race B")];
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.all([
        call("POST", `/api/admin/beta/waves/${a.id}/admit`, admin, { signup_ids: ids }),
        call("POST", `/api/admin/beta/waves/${b.id}/admit`, secondAdmin, { signup_ids: [...ids].reverse() }),
      ]);
      for (const answer of answers) expect(answer.statusCode, answer.body).toBe(200);
      const admitted = answers.reduce((total, answer) => total + answer.json().data.admitted, 0);
      expect(admitted).toBe(round === 0 ? 2 : 0);
    }
    expect(await invitationMails("race.one@example.com")).toHaveLength(1);
    expect(await invitationMails("race.two@example.com")).toHaveLength(1);
    expect(
      await rows(sql`select count(*)::int as n from audit_events a join beta_invitations i on a.target_id = i.id::text
        where a.type = 'beta.invited' and i.email_normalized like 'race.%'`),
    ).toEqual([{ n: 2 }]);
  });

  it("forged ids: an unknown signup is counted, an unknown wave is 404, a non-UUID is 400", async () => {
    const wave = await createWave("Forged");
    const unknown = await call("POST", `/api/admin/beta/waves/${wave.id}/admit`, admin, {
      signup_ids: [crypto.randomUUID()],
    });
    expect(unknown.json().data).toEqual({ admitted: 0, already_invited: 0, not_found: 1 });
    const id = await signup("forged@example.com");
    const noWave = await call("POST", `/api/admin/beta/waves/${crypto.randomUUID()}/admit`, admin, {
      signup_ids: [id],
    });
    expect(noWave.statusCode).toBe(404);
    for (const [url, body] of [
      ["/api/admin/beta/waves/not-a-uuid/admit", { signup_ids: [id] }],
      [`/api/admin/beta/waves/${wave.id}/admit`, { signup_ids: ["1 or 1=1"] }],
      [`/api/admin/beta/waves/${wave.id}/admit`, { signup_ids: [] }],
      [`/api/admin/beta/waves/${wave.id}/admit`, { signup_ids: Array.from({ length: 201 }, () => id) }],
      [`/api/admin/beta/waves/${wave.id}/admit`, { signup_ids: [id], wave_id: wave.id }],
    ] as const) {
      expect((await call("POST", url, admin, body)).statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
    }
    expect((await call("GET", "/api/admin/beta/waves/../invitations", admin)).statusCode).not.toBe(200);
    expect(await rows(sql`select 1 from beta_invitations where email_normalized = 'forged@example.com'`)).toEqual([]);
  });
});

describe("accepting, the funnel, resend and withdraw", () => {
  let wave: { id: string };
  let invitationId: string;

  beforeAll(async () => {
    const id = await signup("ann@ex.co");
    wave = await createWave("Funnel");
    expect((await call("POST", `/api/admin/beta/waves/${wave.id}/admit`, admin, { signup_ids: [id] })).statusCode).toBe(
      200,
    );
    invitationId = String((await rows(sql`select id from beta_invitations where signup_id = ${id}`))[0]!.id);
  });

  it("an address that merely contains the invited one does not accept; the exact address does, in any case", async () => {
    const jo = await devSignIn(app, { email: "joann@ex.com", name: "Jo Ann" });
    const annie = await devSignIn(app, { email: "ann@ex.co.uk", name: "Ann Other" });
    expect(await isAdmittedTester(app.database.db, jo.customer.id)).toBe(false);
    expect(await isAdmittedTester(app.database.db, annie.customer.id)).toBe(false);
    expect((await waveOf(wave.id)).funnel.signed_in.count).toBe(0);

    const ann = await devSignIn(app, { email: "ANN@ex.co", name: "Ann" });
    expect(await isAdmittedTester(app.database.db, ann.customer.id)).toBe(true);
    expect(await isAdmittedTester(app.database.db, crypto.randomUUID())).toBe(false);
    const funnel = (await waveOf(wave.id)).funnel;
    expect(funnel.admitted.count).toBe(1);
    expect(funnel.signed_in.count).toBe(1);
    expect(funnel.signed_in.first_at).toEqual(expect.any(String));
    expect(funnel.license_created.count).toBe(0);
    const [accepted] = await rows(
      sql`select actor_type, actor_id, customer_id from audit_events where type = 'beta.invitation_accepted'`,
    );
    expect(accepted).toEqual({ actor_type: "customer", actor_id: ann.customer.id, customer_id: ann.customer.id });
    // Signing in again accepts nothing more.
    await devSignIn(app, { email: "ann@ex.co", name: "Ann" });
    expect(await rows(sql`select 1 from audit_events where type = 'beta.invitation_accepted'`)).toHaveLength(1);

    // License, first activation, first execution: read from the licensing tables.
    const created = await call("POST", "/api/customer/licenses", ann.token, { tier: "free" });
    expect(created.statusCode, created.body).toBe(200);
    const key = created.json().data.license.license_key as string;
    expect((await waveOf(wave.id)).funnel.license_created.count).toBe(1);
    const validated = await call("POST", "/api/license/validate", null, { license_key: key, machine_id: "ann-mac" });
    expect(validated.statusCode, validated.body).toBe(200);
    expect((await waveOf(wave.id)).funnel.first_activation.count).toBe(1);
    const usage = await call("POST", "/api/license/usage", null, {
      license_key: key,
      machine_id: "ann-mac",
      executions: 1,
      feature: "task-execution",
    });
    expect(usage.statusCode, usage.body).toBe(200);
    const final = (await waveOf(wave.id)).funnel;
    expect(final.first_execution.count).toBe(1);
    expect(Object.values(final).map((step) => step.count)).toEqual([1, 1, 1, 1, 1]);

    // Accepted: nothing to resend.
    const resend = await call("POST", `/api/admin/beta/invitations/${invitationId}/resend`, admin);
    expect(resend.statusCode).toBe(409);
    expect(resend.json().code).toBe("INVITATION_ACCEPTED");

    // Withdrawn: no longer a tester, not counted in the funnel, withdrawing again changes nothing.
    const withdrawn = await call("POST", `/api/admin/beta/invitations/${invitationId}/withdraw`, admin, {
      reason: "left the programme",
    });
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    expect(withdrawn.json().data.status).toBe("withdrawn");
    expect(await isAdmittedTester(app.database.db, ann.customer.id)).toBe(false);
    const again = await call("POST", `/api/admin/beta/invitations/${invitationId}/withdraw`, admin, {});
    expect(again.json().data.withdrawn_at).toBe(withdrawn.json().data.withdrawn_at);
    expect(await rows(sql`select 1 from audit_events where type = 'beta.invitation_withdrawn'`)).toHaveLength(1);
    const afterWithdraw = await waveOf(wave.id);
    expect(afterWithdraw.funnel.admitted.count).toBe(0);
    expect(afterWithdraw.withdrawn).toBe(1);
  });

  it("resends an open invitation (one more mail, audited), and not a withdrawn or unknown one", async () => {
    const id = await signup("resend.me@example.com");
    const w = await createWave("Resend");
    await call("POST", `/api/admin/beta/waves/${w.id}/admit`, admin, { signup_ids: [id] });
    const [row] = await rows(sql`select id from beta_invitations where signup_id = ${id}`);
    const resent = await call("POST", `/api/admin/beta/invitations/${row!.id}/resend`, admin);
    expect(resent.statusCode, resent.body).toBe(200);
    expect(resent.json().data).toMatchObject({ sends: 2, status: "invited" });
    expect(await invitationMails("resend.me@example.com")).toHaveLength(2);
    const list = await call("GET", `/api/admin/beta/waves/${w.id}/invitations`, admin);
    expect(list.json().data).toEqual([
      expect.objectContaining({ id: row!.id, email: "resend.me@example.com", sends: 2 }),
    ]);
    expect((await call("POST", `/api/admin/beta/invitations/${row!.id}/withdraw`, admin, {})).statusCode).toBe(200);
    const refused = await call("POST", `/api/admin/beta/invitations/${row!.id}/resend`, admin);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe("INVITATION_WITHDRAWN");
    // Admitting the signup again does not bring a withdrawn invitation back.
    const readmit = await call("POST", `/api/admin/beta/waves/${w.id}/admit`, admin, { signup_ids: [id] });
    expect(readmit.json().data.already_invited).toBe(1);
    expect(await invitationMails("resend.me@example.com")).toHaveLength(2);
    for (const action of ["resend", "withdraw"]) {
      const unknown = await call("POST", `/api/admin/beta/invitations/${crypto.randomUUID()}/${action}`, admin, {});
      expect(unknown.statusCode).toBe(404);
    }
    expect((await call("GET", `/api/admin/beta/waves/${crypto.randomUUID()}/invitations`, admin)).statusCode).toBe(404);
  });
});

describe("privacy", () => {
  it("the export lists the invitation and the erasure deletes it, with its mail", async () => {
    const id = await signup("Privy.Person@Example.com");
    const wave = await createWave("Privacy");
    await call("POST", `/api/admin/beta/waves/${wave.id}/admit`, admin, { signup_ids: [id] });
    // A bystander whose address contains the person's is untouched.
    const other = await signup("xprivy.person@example.com");
    await call("POST", `/api/admin/beta/waves/${wave.id}/admit`, admin, { signup_ids: [other] });

    const exported = await call("POST", "/api/admin/privacy/export", admin, { email: "privy.person@example.com" });
    expect(exported.statusCode, exported.body).toBe(200);
    const document = JSON.parse(exported.body);
    expect(document.data.beta_invitations).toEqual([
      expect.objectContaining({ email: "Privy.Person@Example.com", wave: "Privacy", sends: 1 }),
    ]);
    expect(document.summary.find((s: { category: string }) => s.category === "Beta invitation")).toMatchObject({
      records: 1,
      data: ["data.beta_invitations"],
    });
    expect(document.data.messages.length).toBeGreaterThanOrEqual(1);

    const erased = await call("POST", "/api/admin/privacy/erase", admin, {
      email: "privy.person@example.com",
      reason: "asked by mail",
    });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json().data.erased.beta_invitations).toBe(1);
    expect(await rows(sql`select 1 from beta_invitations where email_normalized = 'privy.person@example.com'`)).toEqual(
      [],
    );
    expect(await invitationMails("privy.person@example.com")).toEqual([]);
    expect(
      await rows(sql`select 1 from beta_invitations where email_normalized = 'xprivy.person@example.com'`),
    ).toHaveLength(1);
  });
});
