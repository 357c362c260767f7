/**
 * Issue 16: mail from the outbox through a real in-process SMTP server (smtp-server), newsletter double opt-in,
 * the development mail page, and the admin API from both sides (an admin, and a customer who is not one).
 */
import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newsletterSubscribers } from "../src/db/schema";
import { validSignup } from "./fixtures";
import { devSignIn } from "./helpers/dev-sign-in";
import { licensedCustomer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

interface Mail {
  to: string[];
  raw: string;
}
const mails: Mail[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  onData(stream, session, callback) {
    let raw = "";
    stream.on("data", (chunk) => {
      raw += chunk;
    });
    stream.on("end", () => {
      mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
      callback();
    });
  },
});
await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
const smtpPort = (smtp.server.address() as AddressInfo).port;

const ADMIN = "grace.admin@example.com";
const { app, close } = await createTestApp({
  adminEmails: [ADMIN],
  backgroundJobs: false,
  smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
  mailFrom: "Flotilla <no-reply@flotilla.test>",
});
const dev = await createTestApp({ backgroundJobs: false });
let admin: string;
let customer: { token: string; customer: { id: string } };

beforeAll(async () => {
  admin = (await devSignIn(app, { email: ADMIN, name: "Grace Admin" })).token;
  customer = await devSignIn(app, { email: "henry.customer@example.com", name: "Henry Customer" });
});
afterAll(async () => {
  await close();
  await dev.close();
  smtp.close();
});

const as = (token: string, method: string, url: string, payload?: unknown) =>
  app.inject({
    method: method as "GET",
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

function decode(raw: string): string {
  // Quoted-printable soft breaks and escapes, enough to read links and text.
  return raw
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

describe("mail over SMTP", () => {
  it("sends the early-access confirmation and the newsletter confirmation, text and HTML, with List-Unsubscribe", async () => {
    await app.inject({ method: "POST", url: "/api/signup", payload: validSignup({ email: "ivy.mail@example.com" }) });
    mails.length = 0;
    const outcome = await app.outbox.runOnce();
    expect(outcome.delivered).toBe(2);
    expect(mails.every((mail) => mail.to.includes("ivy.mail@example.com"))).toBe(true);
    const earlyAccess = mails.find((mail) => /Subject: You're on the Flotilla early-access list/.test(mail.raw));
    const optIn = mails.find((mail) => /Subject: Confirm your Flotilla newsletter subscription/.test(mail.raw));
    expect(earlyAccess).toBeDefined();
    expect(optIn).toBeDefined();
    expect(earlyAccess!.raw).toMatch(/Content-Type: text\/plain/);
    expect(earlyAccess!.raw).toMatch(/Content-Type: text\/html/);
    expect(optIn!.raw).toMatch(/List-Unsubscribe:\s+<http:\/\/localhost:3000\/newsletter\/unsubscribe\?token=/);
    expect(earlyAccess!.raw).not.toMatch(/List-Unsubscribe/);
  });

  it("a subscription counts only once confirmed; an old link dies; an unsubscribed address is not silently re-subscribed", async () => {
    mails.length = 0;
    await app.inject({ method: "POST", url: "/api/newsletter", payload: { email: "jack.news@example.com" } });
    const status = async () =>
      (
        await app.database.db
          .select()
          .from(newsletterSubscribers)
          .where(sql`${newsletterSubscribers.emailNormalized} = 'jack.news@example.com'`)
      )[0]!;
    expect((await status()).confirmedAt).toBeNull();
    await app.outbox.runOnce();
    const link = /\/newsletter\/confirm\?token=([^\s"<]+)/.exec(decode(mails[0]!.raw))?.[1];
    expect(link).toBeDefined();
    const token = decodeURIComponent(link!);
    // A forged token does nothing.
    const forged = await app.inject({
      method: "POST",
      url: "/api/newsletter/confirm",
      payload: { token: `${token.slice(0, -2)}xx` },
    });
    expect(forged.statusCode).toBe(400);
    const confirmed = await app.inject({ method: "POST", url: "/api/newsletter/confirm", payload: { token } });
    expect(confirmed.json()).toEqual({ success: true, message: "You're subscribed." });
    expect((await status()).confirmedAt).not.toBeNull();

    // Unsubscribe, then replay the old confirmation link: refused, still unsubscribed.
    const { unsubscribeToken } = await import("../src/modules/newsletter/service");
    const unsub = await app.inject(
      `/api/newsletter/unsubscribe?token=${encodeURIComponent(unsubscribeToken("test-secret-test-secret-test-secret-1234", (await status()).id))}`,
    );
    expect(unsub.statusCode).toBe(200);
    const replay = await app.inject({ method: "POST", url: "/api/newsletter/confirm", payload: { token } });
    expect(replay.statusCode).toBe(400);
    expect((await status()).unsubscribedAt).not.toBeNull();
    // Anyone resubmitting the address: same answer, no change until the new link is followed.
    const again = await app.inject({
      method: "POST",
      url: "/api/newsletter",
      payload: { email: "Jack.News@example.com" },
    });
    expect(again.statusCode).toBe(200);
    expect((await status()).unsubscribedAt).not.toBeNull();
  });
});

describe("mail echoes nothing an unauthenticated sender typed (launch review 2)", () => {
  it("an anonymous signup cannot choose the greeting of a mail sent from our domain to any address", async () => {
    const bait = "Claim your refund at evil.example";
    await app.inject({
      method: "POST",
      url: "/api/signup",
      payload: validSignup({ email: "victim.greeting@example.com", name: bait, newsletter: false }),
    });
    mails.length = 0;
    await app.outbox.runOnce();
    const mail = mails.find((m) => m.to.includes("victim.greeting@example.com"));
    expect(mail).toBeDefined();
    const text = decode(mail!.raw);
    expect(text).toMatch(/early-access list/);
    for (const word of ["Claim your refund", "evil.example"]) expect(text).not.toContain(word);
  });

  it("a device refused for a full license is named in its owner's mail by nothing the device typed", async () => {
    /** Fills a new license, then asks for one more device; returns the owner's "machine limit" mail. */
    const refusedDeviceMail = async (prefix: string, device: Record<string, string>) => {
      const { key } = await licensedCustomer(app, prefix);
      const validate = (payload: Record<string, string>) =>
        app.inject({ method: "POST", url: "/api/license/validate", payload: { license_key: key, ...payload } });
      for (const machine of ["limit-1", "limit-2", "limit-3"]) await validate({ machine_id: machine });
      expect((await validate(device)).json().data.code).toBe("TOO_MANY_MACHINES");
      mails.length = 0;
      await app.outbox.runOnce();
      const limits = mails.filter((m) => /Subject: A device could not activate/.test(m.raw));
      expect(limits).toHaveLength(1);
      return decode(limits[0]!.raw);
    };
    const bait = await refusedDeviceMail("limit.bait.", {
      // A machine id of 24 characters or fewer is its own display id: client text too.
      machine_id: "evil.example/restore-now",
      machine_name: "Call +1 555 0100 to keep your license",
      platform: "Visit evil.example/pay",
    });
    expect(bait).toMatch(/Every device slot of your license is in use \(3\)/);
    for (const word of ["Call +1", "555 0100", "evil.example", "restore-now", "Visit"])
      expect(bait).not.toContain(word);
    // A platform Node.js itself could report (one of a fixed set, as the SDK sends it) still names the device.
    const plain = await refusedDeviceMail("limit.plain.", { machine_id: "limit-4", platform: "linux-x64" });
    expect(plain).toMatch(/a new linux-x64 device was refused/);
  });
});

describe("development mail outbox", () => {
  it("without SMTP_URL, mail is kept and shown at /dev/mail", async () => {
    await dev.app.inject({
      method: "POST",
      url: "/api/signup",
      payload: validSignup({ email: "kim.dev@example.com" }),
    });
    await dev.app.outbox.runOnce();
    const page = await dev.app.inject("/dev/mail");
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("kim.dev@example.com");
    expect(page.body).toContain("early-access list");
    const id = /href="\/dev\/mail\/([0-9a-f-]{36})"/.exec(page.body)![1];
    const html = await dev.app.inject(`/dev/mail/${id}`);
    expect(html.headers["content-security-policy"]).toMatch(/sandbox/);
  });
});

describe("admin API", () => {
  it("a customer who is not an admin gets 403 from every admin endpoint; no token gets 401", async () => {
    for (const [method, url] of [
      ["GET", "/api/admin/me"],
      ["GET", "/api/admin/signups"],
      ["GET", "/api/admin/signups/export"],
      ["GET", "/api/admin/audit"],
      ["GET", "/api/admin/webhooks"],
      ["POST", `/api/admin/customers/${customer.customer.id}/sign-out-everywhere`],
    ] as const) {
      const response = await as(customer.token, method, url);
      expect(response.statusCode, url).toBe(403);
      expect((await app.inject({ method, url })).statusCode, url).toBe(401);
    }
  });

  it("searches signups with filters and keyset pages, counts them over time, and exports the filter as CSV", async () => {
    for (let i = 0; i < 5; i++) {
      await app.inject({
        method: "POST",
        url: "/api/signup",
        payload: validSignup({
          email: `page${i}@example.com`,
          role: i % 2 ? "Tech Lead" : "Founder/CEO",
          newsletter: false,
        }),
      });
    }
    const first = await as(admin, "GET", "/api/admin/signups?limit=2&q=page");
    expect(first.statusCode, first.body).toBe(200);
    const seen: string[] = first.json().data.map((s: { email: string }) => s.email);
    let cursor = first.json().next_cursor;
    while (cursor) {
      const next = (await as(admin, "GET", `/api/admin/signups?limit=2&q=page&cursor=${cursor}`)).json();
      seen.push(...next.data.map((s: { email: string }) => s.email));
      cursor = next.next_cursor;
    }
    expect(seen.sort()).toEqual([
      "page0@example.com",
      "page1@example.com",
      "page2@example.com",
      "page3@example.com",
      "page4@example.com",
    ]);
    const leads = (await as(admin, "GET", "/api/admin/signups?q=page&role=Tech%20Lead")).json().data;
    expect(leads).toHaveLength(2);
    const countsResponse = await as(admin, "GET", "/api/admin/signups/counts?q=page&interval=day");
    expect(countsResponse.statusCode, countsResponse.body).toBe(200);
    const counts = countsResponse.json();
    expect(counts.total).toBe(5);
    const csv = await as(admin, "GET", "/api/admin/signups/export?q=page&role=Tech%20Lead");
    expect(csv.headers["content-type"]).toMatch(/text\/csv/);
    expect(csv.body.trim().split("\n")).toHaveLength(3);
    expect((await as(admin, "GET", "/api/admin/signups?cursor=bogus")).statusCode).toBe(400);
  });

  it("exports newsletter subscribers of the current filter as CSV", async () => {
    for (const email of ["csv.pending.one@example.com", "csv.pending.two@example.com", "other.csv@example.com"]) {
      await app.inject({ method: "POST", url: "/api/newsletter", payload: { email } });
    }
    const csv = await as(admin, "GET", "/api/admin/subscribers/export?q=csv.pending&status=pending");
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.headers["content-type"]).toMatch(/text\/csv/);
    expect(csv.headers["content-disposition"]).toMatch(/attachment; filename="subscribers-/);
    const lines = csv.body.trim().split("\n");
    expect(lines[0]).toBe("email,source,status,subscribed_at,confirmed_at,unsubscribed_at");
    expect(
      lines
        .slice(1)
        .map((line) => line.split(",")[0]!.replaceAll('"', ""))
        .sort(),
    ).toEqual(["csv.pending.one@example.com", "csv.pending.two@example.com"]);
    expect((await as(customer.token, "GET", "/api/admin/subscribers/export")).statusCode).toBe(403);
  });

  it("license actions need a reason, are audited, and validations see them at once", async () => {
    const license = (await as(customer.token, "POST", "/api/customer/licenses", { tier: "free" })).json().data.license;
    await app.inject({
      method: "POST",
      url: "/api/license/validate",
      payload: { license_key: license.license_key, machine_id: "h-1" },
    });
    const noReason = await as(admin, "POST", `/api/admin/licenses/${license.license_key}/actions`, {
      action: "suspend",
    });
    expect(noReason.statusCode).toBe(400);
    const suspended = await as(admin, "POST", `/api/admin/licenses/${license.license_key}/actions`, {
      action: "suspend",
      reason: "payment failed",
    });
    expect(suspended.statusCode, suspended.body).toBe(200);
    expect(suspended.json().visible_within_seconds).toBeLessThanOrEqual(5);
    const validate = await app.inject({
      method: "POST",
      url: "/api/license/validate",
      payload: { license_key: license.license_key, machine_id: "h-1" },
    });
    expect(validate.json().data.code).toBe("SUSPENDED");
    const changed = await as(admin, "POST", `/api/admin/licenses/${license.license_key}/actions`, {
      action: "change",
      reason: "goodwill",
      max_machines: 7,
    });
    expect(changed.json().data.max_machines).toBe(7);
    const audit = (await as(admin, "GET", `/api/admin/audit?license_id=${license.id}`)).json().data;
    expect(audit[0]).toMatchObject({
      type: "license.updated",
      reason: "goodwill",
      actor: { type: "admin", email: ADMIN },
    });
    // The log names the license by its key's hint, as an operator recognises it (issue 25).
    expect(audit[0].license_key_hint).toBe(`…${license.license_key.slice(-5)}`);
    expect(audit[1]).toMatchObject({
      type: "license.status_changed",
      before: { status: "active" },
      after: { status: "suspended" },
    });
    // The customer sees it in their activity, without the admin's identity.
    const activity = await as(customer.token, "GET", "/api/customer/activity");
    expect(activity.json().data[0]).toMatchObject({ type: "license.updated", actor: "support", reason: "goodwill" });
    expect(activity.body).not.toContain(ADMIN);
  });

  it("finds a customer with licenses, devices and sessions, and signs them out everywhere", async () => {
    const found = (await as(admin, "GET", "/api/admin/customers?q=henry")).json().data;
    expect(found).toHaveLength(1);
    const detail = (await as(admin, "GET", `/api/admin/customers/${found[0].id}`)).json().data;
    expect(detail.licenses[0].machines[0].machine_id).toBe("h-1");
    expect(detail.sessions.length).toBeGreaterThanOrEqual(1);
    const out = await as(admin, "POST", `/api/admin/customers/${found[0].id}/sign-out-everywhere`);
    expect(out.json().revoked).toBeGreaterThanOrEqual(1);
    expect((await as(customer.token, "GET", "/api/auth/validate")).statusCode).toBe(401);
  });
});
