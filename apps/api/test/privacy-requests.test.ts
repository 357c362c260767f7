/**
 * Privacy requests (decision 0046): an admin exports a person by email as one JSON document without secrets, and
 * erases them — after which no row anywhere carries their address or name, their devices hold no slot, their
 * sessions no longer sign in, and the audit log records the erasure without naming them. On PGlite and PostgreSQL.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  PERSON_EXPORT_CATEGORIES,
  PERSON_EXPORT_CATEGORY_KEYS,
  PersonExportSchema,
} from "@flotilla/contracts/person-export";
import { KEPT_FOR, RETENTION, RETENTION_DAYS } from "@flotilla/contracts/retention";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERASED_GRANTER } from "../src/modules/admin/privacy";
import { validSignup } from "./fixtures";
import { devSignIn } from "./helpers/dev-sign-in";
import { allowOfflineFiles, bearer, licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp, TEST_APP_SECRET } from "./helpers/test-app";

const ADMIN = "priya.admin@example.com";
const EMAIL = "Erin.Erasable@Example.com";
const NAME = "Erin Qzxerasable";
const { app, close } = await createTestApp({ adminEmails: [ADMIN], backgroundJobs: false, webhookTimeoutMs: 2_000 });

const receiver: Server = createServer((request, response) => {
  request.resume();
  request.on("end", () => response.end("ok"));
});
let admin: string;
let adminId: string;
let person: { token: string; customer: { id: string } };
let secondSession: string;
let key: string;
let bystander: { token: string; key: string };

const post = (url: string, payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  app.inject({ method: "POST", url, payload, headers });
const asAdmin = (url: string, payload: Record<string, unknown>) => post(url, payload, bearer(admin));
const rows = async (statement: ReturnType<typeof sql>) =>
  ((await app.database.db.execute(statement)) as unknown as { rows: Record<string, unknown>[] }).rows;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  ({
    token: admin,
    customer: { id: adminId },
  } = await devSignIn(app, { email: ADMIN, name: "Priya Admin" }));
  const endpoint = await asAdmin("/api/admin/webhooks", {
    url: receiverUrl,
    events: ["signup.created", "customer.created", "license.created", "machine.bound", "machine.revoked"],
  });
  expect(endpoint.statusCode, endpoint.body).toBe(200);

  // The person touches every table: a signup (with the newsletter), an account, a license, machines, a license file,
  // a revoked file, usage, validations, sessions, mail (delivered to the development store) and webhooks.
  expect((await post("/api/signup", validSignup({ email: EMAIL, name: NAME }))).statusCode).toBe(200);
  person = await devSignIn(app, { email: EMAIL, name: NAME });
  secondSession = (await devSignIn(app, { email: EMAIL, name: NAME })).token;
  const created = await post("/api/customer/licenses", { tier: "free" }, bearer(person.token));
  expect(created.statusCode, created.body).toBe(200);
  key = created.json().data.license.license_key;
  await allowOfflineFiles(app, person.token, key, true);
  for (const machine of ["erin-laptop", "erin-desktop", "erin-leaked"]) {
    const answer = await post("/api/license/validate", {
      license_key: key,
      machine_id: machine,
      machine_name: `${NAME}'s ${machine}`,
    });
    expect(answer.statusCode, answer.body).toBe(200);
  }
  const checkout = await post("/api/license/checkout", { license_key: key, machine_id: "erin-leaked" });
  expect(checkout.statusCode, checkout.body).toBe(200);
  const revoked = await post(`/api/license/machines/${key}/erin-leaked/revoke`, {}, bearer(person.token));
  expect(revoked.statusCode, revoked.body).toBe(200);
  const usage = await post("/api/license/usage", {
    license_key: key,
    machine_id: "erin-laptop",
    executions: 7,
    feature: "task-execution",
  });
  expect(usage.statusCode, usage.body).toBe(200);
  await app.licensing.recorder.flush();
  // Once an admin, she granted the role to a colleague; then her own role was revoked (an admin is not erased).
  expect((await asAdmin("/api/admin/admins", { email: EMAIL, reason: "on call" })).statusCode).toBe(200);
  const granted = await post(
    "/api/admin/admins",
    { email: "colleague@example.com", reason: "on call" },
    bearer(person.token),
  );
  expect(granted.statusCode, granted.body).toBe(200);
  expect((await asAdmin("/api/admin/admins/revoke", { email: EMAIL, reason: "left" })).statusCode).toBe(200);
  // Delivered: mails land in dev_mail, webhooks in the delivery log. Then one more change leaves a pending message.
  await app.outbox.runOnce();
  expect((await post("/api/license/validate", { license_key: key, machine_id: "erin-tablet" })).statusCode).toBe(200);
  bystander = await licensedCustomer(app, "privacy-bystander");
  expect((await post("/api/license/validate", { license_key: bystander.key, machine_id: "by-1" })).statusCode).toBe(
    200,
  );
});
afterAll(async () => {
  receiver.close();
  await close();
});

/** Every text and JSON column of every table that holds the needle, case-insensitively. */
async function tablesHolding(needle: string): Promise<string[]> {
  const columns = await rows(sql`select table_name, column_name from information_schema.columns
    where table_schema = current_schema() and data_type in ('text', 'jsonb', 'json', 'character varying')`);
  expect(columns.length).toBeGreaterThan(20);
  const found: string[] = [];
  for (const { table_name, column_name } of columns) {
    const [hit] = await rows(
      sql`select count(*)::int as n from ${sql.identifier(String(table_name))}
        where ${sql.identifier(String(column_name))}::text ilike ${`%${needle}%`}`,
    );
    if (Number(hit?.n) > 0) found.push(`${table_name}.${column_name}`);
  }
  return found;
}

describe("privacy requests", () => {
  it("the person really is everywhere before (the scan finds them)", async () => {
    const holding = await tablesHolding(EMAIL);
    for (const column of ["signups.email", "newsletter_subscribers.email", "customers.email", "dev_mail.recipient"]) {
      expect(holding).toContain(column);
    }
    expect(await tablesHolding(NAME)).toContain("machines.machine_name");
  });

  it("export: one JSON document with every part, and no secrets", async () => {
    const response = await asAdmin("/api/admin/privacy/export", { email: " erin.erasable@example.com " });
    expect(response.statusCode, response.body).toBe(200);
    const exported = response.json();
    const document = exported.data;
    expect(exported.format).toBe("flotilla.person-export/2");
    expect(document.signups).toHaveLength(1);
    expect(document.signups[0]).toMatchObject({ name: NAME, role: "Tech Lead" });
    expect(document.newsletter_subscriptions).toHaveLength(1);
    expect(document.customers).toHaveLength(1);
    const [customer] = document.customers;
    expect(customer).toMatchObject({ id: person.customer.id, name: NAME });
    // Timestamps are ISO 8601, whichever driver read them.
    expect(customer.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(document.signups[0].created_at).toMatch(/Z$/);
    expect(customer.sessions.length).toBeGreaterThanOrEqual(2);
    const [license] = customer.licenses;
    expect(license.license_key_hint).toBe(`…${key.slice(-5)}`);
    expect(license.machines.map((m: { machine_id: string }) => m.machine_id).sort()).toEqual([
      "erin-desktop",
      "erin-laptop",
      "erin-tablet",
    ]);
    expect(license.revoked_license_files).toHaveLength(1);
    expect(license.removed_machines).toHaveLength(1);
    expect(license.usage_reports[0]).toMatchObject({ executions: 7, feature: "task-execution" });
    expect(license.validations_per_day.length).toBeGreaterThan(0);
    expect(license.machine_events.length).toBeGreaterThan(0);
    const types = document.audit_events.map((event: { type: string }) => event.type);
    for (const type of ["signup.created", "customer.created", "license.created", "machine.bound", "machine.revoked"]) {
      expect(types).toContain(type);
    }
    expect(document.messages.some((m: { channel: string }) => m.channel === "email")).toBe(true);
    expect(document.messages.some((m: { channel: string }) => m.channel === "webhook")).toBe(true);
    expect(exported.audit_log_note).toMatch(/append-only/);

    // No secrets: no license key in clear, no token or its hash, no browser binding.
    const [session] = await rows(
      sql`select token_hash, browser_hash from sessions where customer_id = ${person.customer.id}`,
    );
    expect(response.body).not.toContain(key);
    expect(response.body).not.toContain(person.token);
    expect(response.body).not.toContain(String(session!.token_hash));
    expect(response.body).not.toMatch(/token_hash|browser_hash|license_key"/);

    const [recorded] = await rows(sql`select * from audit_events where type = 'person.exported'`);
    expect(recorded).toMatchObject({ actor_type: "admin", actor_id: adminId, customer_id: person.customer.id });
    expect(JSON.stringify(recorded).toLowerCase()).not.toContain(EMAIL.toLowerCase());
  });

  it("export: a file a person can read — pretty-printed, named, and opening with a summary of every kind of data", async () => {
    const response = await asAdmin("/api/admin/privacy/export", { email: EMAIL });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(response.headers["content-disposition"]).toMatch(
      /^attachment; filename="flotilla-personal-data-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    expect(response.headers["cache-control"]).toBe("no-store");
    // Pretty-printed: one key a line, two-space indents, a final newline; and the same JSON for a program.
    expect(response.body.startsWith('{\n  "format": "flotilla.person-export/2",\n  "generated_at": ')).toBe(true);
    expect(response.body.endsWith("}\n")).toBe(true);
    expect(response.body.split("\n").length).toBeGreaterThan(300);
    const document = response.json();
    expect(PersonExportSchema.parse(document)).toEqual(document);
    // The summary comes first, the data after it.
    expect(Object.keys(document)).toEqual([
      "format",
      "generated_at",
      "email",
      "about",
      "summary",
      "audit_log_note",
      "data",
    ]);
    expect(document.about).toContain(EMAIL.toLowerCase());
    expect(document.about).toMatch(/what we hold, where it came from, how long we keep it/);

    // One entry per kind of data, with what we hold, where it came from, how long we keep it — the policy's and the
    // retention job's own numbers — how many records there are and where they are.
    const summary = document.summary as {
      category: string;
      records: number;
      what_we_hold: string;
      where_it_came_from: string;
      how_long_we_keep_it: string;
      data: string[];
    }[];
    expect(summary.map((entry) => entry.category)).toEqual(
      PERSON_EXPORT_CATEGORY_KEYS.map((key) => PERSON_EXPORT_CATEGORIES[key].category),
    );
    for (const entry of summary) {
      expect(entry.what_we_hold.length, entry.category).toBeGreaterThan(20);
      expect(entry.where_it_came_from.length, entry.category).toBeGreaterThan(20);
      expect(Object.values(KEPT_FOR), entry.category).toContain(entry.how_long_we_keep_it);
      for (const path of entry.data) expect(path, entry.category).toMatch(/^data\./);
    }
    const of = (category: string) => summary.find((entry) => entry.category === category)!;
    expect(of("Sign-in sessions").how_long_we_keep_it).toBe(
      `Until they end, then ${RETENTION_DAYS.endedSessions} days`,
    );
    expect(RETENTION.endedSessionMs).toBe(RETENTION_DAYS.endedSessions * 86_400_000);
    expect(of("Validation attempts").how_long_we_keep_it).toMatch(
      new RegExp(`^${RETENTION_DAYS.validationAttempts} days`),
    );
    expect(RETENTION.validationRollupMs).toBe(RETENTION_DAYS.validationAttempts * 86_400_000);
    expect(of("Device activations and releases").how_long_we_keep_it).toBe(`${RETENTION_DAYS.machineEvents} days`);
    expect(of("Emails and webhook messages about you").how_long_we_keep_it).toBe(
      `${RETENTION_DAYS.deliveredMessages} days after delivery`,
    );
    // Each count is what the data holds, found by following the entry's paths.
    const follow = (path: string): unknown[] =>
      path
        .replace(/^data\./, "")
        .split(".")
        .reduce<unknown[]>(
          (found, step) =>
            found.flatMap((node) => {
              const value = (node as Record<string, unknown>)[step.replace("[]", "")];
              return step.endsWith("[]") ? (value as unknown[]) : [value];
            }),
          [document.data],
        )
        .flatMap((value) => value as unknown[]);
    for (const entry of summary) {
      const records = entry.data.reduce((total, path) => total + follow(path).length, 0);
      expect(records, entry.category).toBe(entry.records);
    }
    expect(of("Account").records).toBe(1);
    expect(of("Licenses").records).toBe(1);
    // 3 bound, 1 removed, 1 revoked license file (erin-leaked), and any refused.
    expect(of("Devices").records).toBeGreaterThanOrEqual(5);
    expect(of("Usage reports and daily usage").records).toBeGreaterThanOrEqual(2);
    expect(of("Sign-in sessions").records).toBeGreaterThanOrEqual(2);
    expect(of("Early-access signup answers").records).toBe(1);
    // No secrets here either.
    expect(response.body).not.toContain(key);
    expect(response.body).not.toMatch(/token_hash|browser_hash|license_key"/);
  });

  it("only admins; an unknown address is a 404; the reason may not name the person; an admin is not erased", async () => {
    const asCustomer = await post("/api/admin/privacy/export", { email: EMAIL }, bearer(person.token));
    expect(asCustomer.statusCode).toBe(403);
    expect((await asAdmin("/api/admin/privacy/export", { email: "nobody@example.com" })).statusCode).toBe(404);
    expect((await asAdmin("/api/admin/privacy/erase", { email: EMAIL })).statusCode).toBe(400);
    const naming = await asAdmin("/api/admin/privacy/erase", { email: EMAIL, reason: `Request from ${NAME}` });
    expect(naming.statusCode).toBe(400);
    expect(naming.json().error).toMatch(/Leave the address and name out/);
    expect((await asAdmin("/api/admin/privacy/erase", { email: ADMIN, reason: "GDPR request" })).statusCode).toBe(409);
    // Nothing happened.
    expect(await rows(sql`select 1 from customers where id = ${person.customer.id}`)).toHaveLength(1);
  });

  it("erase: nothing anywhere carries their address or name; seats freed; sessions end; the log names nobody", async () => {
    const [license] = await rows(sql`select id from licenses where license_key = ${key}`);
    const response = await asAdmin("/api/admin/privacy/erase", { email: EMAIL, reason: "Privacy request #42 by mail" });
    expect(response.statusCode, response.body).toBe(200);
    const { data } = response.json();
    expect(data.erased).toMatchObject({
      signups: 1,
      newsletter_subscriptions: 1,
      customers: 1,
      licenses: 1,
      machines: 3,
      sessions_revoked: 2,
    });
    expect(data.erased.messages).toBeGreaterThan(0);
    expect(data.erased.dev_mail).toBeGreaterThan(0);
    expect(data.audit_events_kept).toBeGreaterThan(0);

    // Only the erasure's notice, waiting in the outbox, holds the address (decision 0056); nothing holds the name.
    expect(await tablesHolding(EMAIL)).toEqual(["outbox.payload"]);
    expect(await tablesHolding(NAME)).toEqual([]);
    expect(await tablesHolding(key)).toEqual([]);
    const notices = await rows(sql`select event_id, channel, payload from outbox where payload->>'to' ilike ${EMAIL}`);
    expect(notices).toEqual([
      {
        event_id: data.erasure_id,
        channel: "email",
        payload: {
          template: "person.erased",
          to: EMAIL.toLowerCase(),
          data: { target: { type: "erasure", id: expect.any(String) }, before: null, after: expect.any(Object) },
        },
      },
    ]);

    // Seats: no machine of theirs holds a slot, nothing of the license is left; the key no longer validates.
    for (const table of [
      "machines",
      "revoked_license_files",
      "machine_removals",
      "machine_events",
      "usage_reports",
      "usage_rollups",
    ]) {
      expect(await rows(sql`select 1 from ${sql.identifier(table)} where license_id = ${license!.id}`)).toEqual([]);
    }
    const validate = await post("/api/license/validate", { license_key: key, machine_id: "erin-laptop" });
    expect(validate.json().data).toMatchObject({ valid: false, code: "NOT_FOUND", license: null });
    // Sessions: neither token signs in any more.
    for (const token of [person.token, secondSession]) {
      expect((await app.inject({ method: "GET", url: "/api/auth/profile", headers: bearer(token) })).statusCode).toBe(
        401,
      );
    }
    // The audit log keeps its rows about them (by id) and records the erasure without naming them.
    const [erasure] = await rows(sql`select * from audit_events where type = 'person.erased'`);
    expect(erasure).toMatchObject({
      id: data.erasure_id,
      actor_type: "admin",
      actor_id: adminId,
      customer_id: null,
      license_id: null,
      reason: "Privacy request #42 by mail",
    });
    expect(JSON.stringify(erasure)).not.toContain(person.customer.id);
    expect(await rows(sql`select 1 from audit_events where customer_id = ${person.customer.id}`)).not.toEqual([]);
    // The grant she made stands, no longer naming her.
    expect(await rows(sql`select granted_by from admins where email_normalized = 'colleague@example.com'`)).toEqual([
      { granted_by: ERASED_GRANTER },
    ]);
    // The bystander keeps everything.
    const by = await post("/api/license/validate", { license_key: bystander.key, machine_id: "by-1" });
    expect(by.statusCode).toBe(200);
    expect(
      (await app.inject({ method: "GET", url: "/api/auth/profile", headers: bearer(bystander.token) })).statusCode,
    ).toBe(200);
    // A second erasure finds nobody.
    expect((await asAdmin("/api/admin/privacy/erase", { email: EMAIL, reason: "again" })).statusCode).toBe(404);
  });

  it("the erasure notice: sent to the address, saying what went, what stays and what signing in again does; then forgotten", async () => {
    const [erasure] = await rows(sql`select id from audit_events where type = 'person.erased' order by seq limit 1`);
    await app.outbox.runOnce();
    // Delivered (here to the development mail store, which stands in for their mailbox): the outbox row is gone.
    expect(await rows(sql`select 1 from outbox where payload->>'template' = 'person.erased'`)).toEqual([]);
    const [mail] = await rows(
      sql`select recipient, subject, text, html from dev_mail where event_id = ${String(erasure!.id)}`,
    );
    expect(mail).toMatchObject({ recipient: EMAIL.toLowerCase(), subject: "Your Flotilla data has been erased" });
    const text = String(mail!.text);
    expect(text).toContain(
      "We have erased what we held about this email address: your early-access answers, your newsletter subscription, your account, your license and the 3 devices activated with it, its usage and validation counts, your sign-in sessions and the emails and webhook messages about you.",
    );
    expect(text).toContain("Your license stopped working on every device at once, and you were signed out everywhere.");
    expect(text).toMatch(/audit log records past changes and this erasure/);
    expect(text).toMatch(/never by email address or name/);
    expect(text).toContain(
      "If you sign in to Flotilla again, we create a new, empty account: your earlier licenses, devices and usage do not come back.",
    );
    expect(text).toContain(`Reference: ${String(erasure!.id)}.`);
    expect(text).toMatch(/\/privacy\n/);
    expect(text).not.toContain(NAME);
    expect(String(mail!.html)).toContain("new, empty account");
    // What holds the address now is that mailbox alone (kept RETENTION.devMailMs, and only without SMTP_URL).
    expect(await tablesHolding(EMAIL)).toEqual(["dev_mail.recipient"]);
  });

  it("an erasure racing validations, heartbeats and checkouts: every answer is clean, and no device keeps a slot", async () => {
    const racer = await licensedCustomer(app, "privacy-racer", { offlineFiles: true });
    const [owner] = await rows(sql`select c.email, l.id from customers c join licenses l on l.customer_id = c.id
      where l.license_key = ${racer.key}`);
    expect((await post("/api/license/validate", { license_key: racer.key, machine_id: "race-0" })).statusCode).toBe(
      200,
    );
    const traffic = Array.from({ length: 24 }, (_, i) =>
      i % 3 === 2
        ? post("/api/license/checkout", { license_key: racer.key, machine_id: "race-0" })
        : post("/api/license/validate", { license_key: racer.key, machine_id: `race-${i % 4}` }),
    );
    const erasure = asAdmin("/api/admin/privacy/erase", { email: String(owner!.email), reason: "Privacy request #43" });
    const answers = await Promise.all([...traffic, erasure]);
    for (const answer of answers) expect(answer.statusCode, answer.body).toBeLessThan(500);
    expect(answers.at(-1)!.statusCode).toBe(200);
    expect(await rows(sql`select 1 from machines where license_id = ${owner!.id}`)).toEqual([]);
    expect(await rows(sql`select 1 from licenses where id = ${owner!.id}`)).toEqual([]);
    const after = await post("/api/license/validate", { license_key: racer.key, machine_id: "race-9" });
    expect(after.json().data).toMatchObject({ valid: false, code: "NOT_FOUND" });
    expect(await rows(sql`select 1 from machines where license_id = ${owner!.id}`)).toEqual([]);
  });
});

/**
 * Security review: a person is matched by their ids and exact addresses, never by text search. ann@ex.co's request
 * must not list or erase the messages and sign-in records of joann@ex.com or ann@ex.co.uk (whose addresses contain
 * hers), and her export must not carry the network addresses or ids of the admins who acted about her.
 */
describe("a privacy request reaches only the person", () => {
  const ANN = "ann@ex.co";
  const OTHERS = ["joann@ex.com", "ann@ex.co.uk"];
  const ADMIN_ADDRESS = "198.51.100.77";
  const ANN_ADDRESS = "192.0.2.10";
  const people = new Map<string, { token: string; customerId: string; key: string }>();

  /** Records of the development issuer, unsealed, with the account they belong to. */
  async function signInRecords(): Promise<{ key: string; accountId: string | null; email: string | null }[]> {
    const { readDevIssuerRecords } = await import("../src/modules/auth/dev-issuer-store");
    return (await readDevIssuerRecords(app.database.db, TEST_APP_SECRET)).map((record) => ({
      key: `${record.model}/${record.id}`,
      accountId: record.accountId,
      email: record.email,
    }));
  }
  const list = (values: string[]) =>
    sql`array[${sql.join(
      ["", ...values].map((value) => sql`${value}`),
      sql`, `,
    )}]::text[]`;
  const subjectOf = async (email: string) =>
    String((await rows(sql`select subject from customers where email = ${email}`))[0]!.subject);

  /** The events about someone else, and the messages (outbox) and mail (dev_mail) they caused. */
  async function othersRecords() {
    const ids = OTHERS.map((email) => people.get(email)!.customerId);
    const events = await rows(sql`select id::text as id from audit_events where customer_id::text = any(${list(ids)})
      or target_id in (select id::text from signups where email = any(${list(OTHERS)}))`);
    const eventIds = events.map((row) => String(row.id));
    const outbox = await rows(sql`select id from outbox where event_id::text = any(${list(eventIds)}) order by id`);
    const mail = await rows(sql`select id from dev_mail where recipient = any(${list(OTHERS)}) order by id`);
    return { outbox: outbox.map((row) => String(row.id)), mail: mail.map((row) => String(row.id)) };
  }

  beforeAll(async () => {
    for (const email of [ANN, ...OTHERS]) {
      expect((await post("/api/signup", validSignup({ email, name: `Person ${email}` }))).statusCode).toBe(200);
      const signedIn = await devSignIn(app, { email, name: `Person ${email}` });
      const created = await app.inject({
        method: "POST",
        url: "/api/customer/licenses",
        payload: { tier: "free" },
        headers: bearer(signedIn.token),
        remoteAddress: email === ANN ? ANN_ADDRESS : "192.0.2.99",
      });
      expect(created.statusCode, created.body).toBe(200);
      people.set(email, {
        token: signedIn.token,
        customerId: signedIn.customer.id,
        key: created.json().data.license.license_key,
      });
    }
    // An admin acts about Ann from their own network address.
    const suspended = await app.inject({
      method: "POST",
      url: `/api/admin/licenses/${people.get(ANN)!.key}/actions`,
      headers: bearer(admin),
      payload: { action: "suspend", reason: "chargeback review" },
      remoteAddress: ADMIN_ADDRESS,
    });
    expect(suspended.statusCode, suspended.body).toBe(200);
    // Delivered mail lands in dev_mail; then each has a pending webhook too.
    await app.outbox.runOnce();
    for (const email of [ANN, ...OTHERS]) {
      const bound = await post("/api/license/validate", { license_key: people.get(email)!.key, machine_id: "m-1" });
      expect(bound.statusCode).toBe(200);
    }
    const others = await othersRecords();
    expect(others.outbox.length).toBeGreaterThan(0);
    expect(others.mail.length).toBeGreaterThan(0);
    const records = await signInRecords();
    for (const email of [ANN, ...OTHERS]) {
      const subject = await subjectOf(email);
      expect(
        records.some((record) => record.accountId === subject),
        email,
      ).toBe(true);
    }
  });

  it("export lists only the person's messages and audit rows, without the admins' addresses or ids", async () => {
    const others = await othersRecords();
    const response = await asAdmin("/api/admin/privacy/export", { email: ANN });
    expect(response.statusCode, response.body).toBe(200);
    const document = response.json().data;
    const listed = document.messages.map((message: { id: string }) => message.id);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.filter((id: string) => others.outbox.includes(id))).toEqual([]);
    for (const email of OTHERS) {
      expect(response.body).not.toContain(people.get(email)!.customerId);
    }
    // Her own requests' addresses stay; the admin's address and id do not travel to her.
    const events = document.audit_events as { type: string; actor_type: string; address: string | null }[];
    const own = events.filter((event) => event.actor_type === "customer");
    expect(own.length).toBeGreaterThan(0);
    expect(own.some((event) => event.address?.startsWith("192.0.2."))).toBe(true);
    expect(events.some((event) => event.type === "license.status_changed")).toBe(true);
    expect(response.body).not.toContain("198.51.100.");
    expect(response.body).not.toContain(adminId);
    expect(response.body).not.toContain(ADMIN);
  });

  it("erasure removes the person's messages, mail and sign-in records, and nobody else's", async () => {
    const others = await othersRecords();
    const annSubject = await subjectOf(ANN);
    const otherSubjects = await Promise.all(OTHERS.map(subjectOf));
    const before = await signInRecords();
    const othersSignIn = before.filter((record) => otherSubjects.includes(record.accountId ?? "")).map((r) => r.key);
    expect(othersSignIn.length).toBeGreaterThan(0);

    const response = await asAdmin("/api/admin/privacy/erase", { email: ANN, reason: "Privacy request #44" });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().data.erased.sign_in_records).toBeGreaterThan(0);

    // Everyone else's rows are all still there.
    expect(await othersRecords()).toEqual(others);
    const after = await signInRecords();
    expect(after.map((record) => record.key)).toEqual(expect.arrayContaining(othersSignIn));
    // Hers are gone, sign-in records included.
    expect(after.filter((record) => record.accountId === annSubject || record.email === ANN)).toEqual([]);
    expect(await rows(sql`select 1 from dev_mail where lower(recipient) = ${ANN}`)).toEqual([]);
    // Of the mail to her address, only the erasure's notice waits to be sent.
    expect(
      await rows(sql`select payload->>'template' as template from outbox where lower(payload->>'to') = ${ANN}`),
    ).toEqual([{ template: "person.erased" }]);
    for (const email of OTHERS) {
      const signedIn = await app.inject({ url: "/api/auth/profile", headers: bearer(people.get(email)!.token) });
      expect(signedIn.statusCode, email).toBe(200);
      expect(await rows(sql`select 1 from signups where email = ${email}`)).toHaveLength(1);
    }
  });
});
