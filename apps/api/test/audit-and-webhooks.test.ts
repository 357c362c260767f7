/**
 * Issue 16: the audit log (append-only, written with the change) and webhooks from the transactional outbox,
 * delivered to a real HTTP receiver: signatures, a receiver that fails then recovers, dedupe by event id, resend,
 * test events, giving up after three days, and SSRF rules.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { WEBHOOK_HEADERS } from "@flotilla/contracts/events";
import { eq, sql } from "drizzle-orm";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents, newsletterSubscribers, outbox, webhookEndpoints } from "../src/db/schema";
import { isPublicAddress, webhookUrlProblem } from "../src/lib/net-guard";
import { recordEvent } from "../src/modules/events/record";
import { unsubscribeToken } from "../src/modules/newsletter/service";
import { confirmationToken } from "../src/outbox/mail-templates";
import { retryDelayMs } from "../src/outbox/runner";
import { legacySignature, standardSignature, verifyLegacySignature } from "../src/outbox/signature";
import { validSignup } from "./fixtures";
import { devSignIn } from "./helpers/dev-sign-in";
import { plantedSession } from "./helpers/planted-session";
import { createTestApp, createTestAppFromEnv, newSigningKeyPem, TEST_APP_SECRET } from "./helpers/test-app";

const ADMIN = "ops.admin@example.com";
const { app, close } = await createTestApp({ adminEmails: [ADMIN], backgroundJobs: false, webhookTimeoutMs: 2_000 });

interface Received {
  headers: IncomingMessage["headers"];
  body: string;
}
/** A receiver that answers with whatever `answer` says next, verifies nothing itself, and records everything. */
const received: Received[] = [];
let answers: number[] = [];
const receiver: Server = createServer((request, response) => {
  let body = "";
  request.on("data", (chunk) => {
    body += chunk;
  });
  request.on("end", () => {
    received.push({ headers: request.headers, body });
    response.statusCode = answers.shift() ?? 200;
    response.end("ok");
  });
});
let receiverUrl = "";
let admin: string;
let customer: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  admin = (await devSignIn(app, { email: ADMIN, name: "Ops Admin" })).token;
  customer = (await devSignIn(app, { email: "carol.customer@example.com", name: "Carol Customer" })).token;
});
afterAll(async () => {
  receiver.close();
  await close();
});

const asAdmin = (method: string, url: string, payload?: unknown) =>
  app.inject({
    method: method as "GET",
    url,
    headers: { authorization: `Bearer ${admin}` },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

async function register(events: string[], url = receiverUrl) {
  const response = await asAdmin("POST", "/api/admin/webhooks", { url, events });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { data: { id: string }; secret: string };
}

describe("audit log", () => {
  it("records a signup with its address and target in the signup's transaction, with its mail in the outbox", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/api/signup",
      payload: validSignup({ email: "audit.one@example.com" }),
      remoteAddress: "203.0.113.9",
    });
    expect(response.statusCode).toBe(200);
    const [event] = await app.database.db.select().from(auditEvents).where(eq(auditEvents.type, "signup.created"));
    // Nobody signed in: the actor is anonymous, and the address typed belongs to the target (the signup).
    expect(event).toMatchObject({
      actorType: "anonymous",
      actorId: null,
      targetType: "signup",
      // Its network, not the address (decision 0053).
      address: "203.0.113.0/24",
      before: null,
    });
    expect((event!.after as { role: string }).role).toBe("Tech Lead");
    const mails = await app.database.db.select().from(outbox).where(eq(outbox.eventId, event!.id));
    expect(mails.map((row) => row.channel)).toEqual(["email"]);
  });

  it("an anonymous newsletter request is not filed under the person whose address was typed (launch review 2)", async () => {
    // A real customer, and a stranger who types her address into the blog's newsletter box.
    await devSignIn(app, { email: "dora.real@example.com", name: "Dora Real" });
    const typed = await app.inject({
      method: "POST",
      url: "/api/newsletter",
      payload: { email: "dora.real@example.com" },
    });
    expect(typed.statusCode).toBe(200);
    const underDora = (await asAdmin("GET", "/api/admin/audit?actor=dora.real@example.com")).json().data as {
      type: string;
    }[];
    expect(underDora.map((event) => event.type)).not.toContain("newsletter.subscription_requested");
    // The log names the subscriber by id, never by address (decision 0046).
    const [subscriber] = await app.database.db
      .select()
      .from(newsletterSubscribers)
      .where(eq(newsletterSubscribers.emailNormalized, "dora.real@example.com"));
    const anonymous = (await asAdmin("GET", "/api/admin/audit?actor=anonymous&type=newsletter.subscription_requested"))
      .json()
      .data.filter((event: { target: { id: string } }) => event.target.id === subscriber!.id);
    expect(anonymous).toHaveLength(1);
    expect(anonymous[0]).toMatchObject({
      actor: { type: "anonymous", id: null, email: null },
      target: { type: "newsletter_subscriber" },
    });
    expect(anonymous[0].after).not.toHaveProperty("email");
    // Following the links from the mail proves nobody's identity either: confirmations and unsubscriptions are anonymous.
    const token = confirmationToken(TEST_APP_SECRET, subscriber!.id, subscriber!.confirmationSentAt!.getTime());
    expect((await app.inject({ method: "POST", url: "/api/newsletter/confirm", payload: { token } })).statusCode).toBe(
      200,
    );
    const unsubscribe = `/api/newsletter/unsubscribe?token=${encodeURIComponent(unsubscribeToken(TEST_APP_SECRET, subscriber!.id))}`;
    expect((await app.inject(unsubscribe)).statusCode).toBe(200);
    const followed = await app.database.db.select().from(auditEvents).where(eq(auditEvents.targetId, subscriber!.id));
    expect(followed.map((event) => [event.type, event.actorType, event.actorId])).toEqual([
      ["newsletter.subscription_requested", "anonymous", null],
      ["newsletter.subscribed", "anonymous", null],
      ["newsletter.unsubscribed", "anonymous", null],
    ]);
  });

  it("a change that fails leaves no audit row and no outbox row (same transaction)", async () => {
    const before = await app.database.db.select({ n: sql<number>`count(*)::int` }).from(auditEvents);
    await expect(
      app.database.db.transaction(async (tx) => {
        await recordEvent(tx, {
          type: "admin.granted",
          actor: { type: "system" },
          target: { type: "admin", id: "x@example.com" },
        });
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    const after = await app.database.db.select({ n: sql<number>`count(*)::int` }).from(auditEvents);
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it("is append-only: UPDATE, DELETE and TRUNCATE are refused by the database", async () => {
    const db = app.database.db;
    await expect(db.execute(sql`update audit_events set actor_id = 'forged'`)).rejects.toThrow();
    await expect(db.execute(sql`delete from audit_events`)).rejects.toThrow();
    await expect(db.execute(sql`truncate audit_events`)).rejects.toThrow();
    const rows = await db.select().from(auditEvents);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((row) => row.actorId === "forged")).toBe(false);
  });

  it("has no escape hatch: SET LOCAL flotilla.audit_retention = 'on' lets no DELETE through (launch review 2)", async () => {
    const db = app.database.db;
    const count = async () => (await db.select({ n: sql<number>`count(*)::int` }).from(auditEvents))[0]!.n;
    const before = await count();
    await expect(
      db.transaction(async (tx) => {
        await tx.execute(sql`set local flotilla.audit_retention = 'on'`);
        await tx.execute(sql`delete from audit_events`);
      }),
    ).rejects.toThrow();
    expect(await count()).toBe(before);
  });

  it("records license creation, machine binding and removal with the customer as actor", async () => {
    const bearer = { authorization: `Bearer ${customer}` };
    const created = await app.inject({
      method: "POST",
      url: "/api/customer/licenses",
      headers: bearer,
      payload: { tier: "free" },
    });
    expect(created.statusCode).toBe(200);
    const key = created.json().data.license.license_key;
    for (const id of ["m-one", "m-two"]) {
      await app.inject({ method: "POST", url: "/api/license/validate", payload: { license_key: key, machine_id: id } });
    }
    const removed = await app.inject({ method: "DELETE", url: `/api/license/machines/${key}/m-two`, headers: bearer });
    expect(removed.statusCode).toBe(200);
    const types = (await app.database.db.select().from(auditEvents).orderBy(auditEvents.seq)).map((row) => row.type);
    expect(types).toEqual(expect.arrayContaining(["license.created", "machine.bound", "machine.removed"]));
    const activity = await app.inject({ url: "/api/customer/activity", headers: bearer });
    expect(activity.statusCode).toBe(200);
    const mine = activity.json().data as { type: string; actor: string }[];
    expect(mine.map((event) => event.type)).toEqual([
      "machine.removed",
      "machine.bound",
      "machine.bound",
      "license.created",
      "customer.created",
    ]);
    expect(mine[0]!.actor).toBe("you");
    expect(mine[1]!.actor).toBe("service");
    expect(activity.body).not.toContain("address");
  });
});

describe("webhooks", () => {
  it("signs, delivers after the commit, and the receiver verifies; a forged or replayed request does not verify", async () => {
    const { secret, data } = await register(["license.created", "license.status_changed"]);
    expect(secret).toMatch(/^whsec_/);
    // The secret is stored encrypted, never as given.
    const [stored] = await app.database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, data.id));
    expect(JSON.stringify(stored)).not.toContain(secret);
    // Listing never shows it again.
    expect((await asAdmin("GET", "/api/admin/webhooks")).body).not.toContain(secret);

    const other = await devSignIn(app, { email: "dave.dev@example.com", name: "Dave Dev" });
    await app.inject({
      method: "POST",
      url: "/api/customer/licenses",
      headers: { authorization: `Bearer ${other.token}` },
      payload: { tier: "free" },
    });
    received.length = 0;
    const outcome = await app.outbox.runOnce();
    expect(outcome.delivered).toBeGreaterThanOrEqual(1);
    const hook = received.find((r) => r.headers[WEBHOOK_HEADERS.eventType] === "license.created");
    expect(hook).toBeDefined();
    // A Standard Webhooks delivery: the reference library, unmodified, verifies it with the secret as given.
    expect(hook!.headers[WEBHOOK_HEADERS.signature]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    const verified = new Webhook(secret).verify(hook!.body, hook!.headers as Record<string, string>);
    expect(verified).toMatchObject({ type: "license.created", id: hook!.headers[WEBHOOK_HEADERS.id] });
    expect(Number(hook!.headers[WEBHOOK_HEADERS.timestamp])).toBeCloseTo(Date.now() / 1000, -2);

    // Attacker's side: a body changed in transit, a signature made with another secret, an old request replayed.
    const receiverCheck = (body: string, headers: Record<string, string>) => () =>
      new Webhook(secret).verify(body, headers);
    const headers = hook!.headers as Record<string, string>;
    expect(receiverCheck(hook!.body.replace("free", "ultra"), headers)).toThrow(WebhookVerificationError);
    const t = Number(headers[WEBHOOK_HEADERS.timestamp]);
    const forged = standardSignature(["whsec_YXR0YWNrZXI="], headers[WEBHOOK_HEADERS.id]!, t, hook!.body);
    expect(receiverCheck(hook!.body, { ...headers, [WEBHOOK_HEADERS.signature]: forged })).toThrow(
      WebhookVerificationError,
    );
    const replayed = standardSignature([secret], headers[WEBHOOK_HEADERS.id]!, t - 3600, hook!.body);
    expect(
      receiverCheck(hook!.body, {
        ...headers,
        [WEBHOOK_HEADERS.timestamp]: String(t - 3600),
        [WEBHOOK_HEADERS.signature]: replayed,
      }),
    ).toThrow(WebhookVerificationError);

    // Receivers written against the first release's header keep working.
    const legacy = headers[WEBHOOK_HEADERS.legacySignature];
    expect(legacy).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyLegacySignature(secret, legacy, hook!.body)).toMatchObject({ ok: true });
    expect(headers[WEBHOOK_HEADERS.legacyEventId]).toBe(headers[WEBHOOK_HEADERS.id]);
    expect(verifyLegacySignature(secret, legacy, hook!.body.replace("free", "ultra"))).toEqual({
      ok: false,
      reason: "signature",
    });
    expect(verifyLegacySignature(secret, legacySignature(["whsec_attacker"], hook!.body, t), hook!.body)).toEqual({
      ok: false,
      reason: "signature",
    });
    expect(verifyLegacySignature(secret, legacy, hook!.body, t + 3600)).toEqual({ ok: false, reason: "stale" });
    expect(verifyLegacySignature(secret, "v1=abc", hook!.body)).toEqual({ ok: false, reason: "malformed" });
    await asAdmin("DELETE", `/api/admin/webhooks/${data.id}`);
  });

  it("during a secret rotation each delivery carries a signature per secret: the reference library verifies it with either", async () => {
    const { data, secret: first } = await register(["license.created"]);
    const rotated = await asAdmin("POST", `/api/admin/webhooks/${data.id}/rotate-secret`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const second = rotated.json().secret as string;
    expect(second).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const owner = await devSignIn(app, { email: "rita.rotation@example.com", name: "Rita Rotation" });
    await app.inject({
      method: "POST",
      url: "/api/customer/licenses",
      headers: { authorization: `Bearer ${owner.token}` },
      payload: { tier: "free" },
    });
    received.length = 0;
    await app.outbox.runOnce();
    const hook = received.find((r) => r.headers[WEBHOOK_HEADERS.eventType] === "license.created")!;
    const headers = hook.headers as Record<string, string>;
    expect(headers[WEBHOOK_HEADERS.signature]!.split(" ")).toHaveLength(2);
    // A receiver still on the old secret and one already on the new one both verify, with the library as it is.
    for (const secret of [first, second]) {
      expect(new Webhook(secret).verify(hook.body, headers)).toMatchObject({ type: "license.created" });
    }
    expect(() => new Webhook("whsec_c29tZW9uZSBlbHNl").verify(hook.body, headers)).toThrow(WebhookVerificationError);
    await asAdmin("DELETE", `/api/admin/webhooks/${data.id}`);
  });

  it("a secret issued before Standard Webhooks (url-safe base64) signs with the same bytes: its standard spelling verifies", async () => {
    const legacySecret = `whsec_${randomBytes(32).toString("base64url")}`;
    const body = JSON.stringify({ id: "evt_legacy", type: "webhook.test" });
    const t = Math.floor(Date.now() / 1000);
    const headers = {
      [WEBHOOK_HEADERS.id]: "evt_legacy",
      [WEBHOOK_HEADERS.timestamp]: String(t),
      [WEBHOOK_HEADERS.signature]: standardSignature([legacySecret], "evt_legacy", t, body),
    };
    // What docs/webhooks.md tells such a receiver: write the same secret in the standard alphabet.
    const standardSpelling = `whsec_${Buffer.from(legacySecret.slice(6), "base64url").toString("base64")}`;
    expect(new Webhook(standardSpelling).verify(body, headers)).toMatchObject({ id: "evt_legacy" });
  });

  it("retries a failing receiver with backoff; it recovers; the same event id every time; the log shows each answer", async () => {
    const { data } = await register(["license.status_changed"]);
    const owner = await devSignIn(app, { email: "erin.retry@example.com", name: "Erin Retry" });
    const license = (
      await app.inject({
        method: "POST",
        url: "/api/customer/licenses",
        headers: { authorization: `Bearer ${owner.token}` },
        payload: { tier: "free" },
      })
    ).json().data.license;
    const action = await asAdmin("POST", `/api/admin/licenses/${license.license_key}/actions`, {
      action: "suspend",
      reason: "chargeback",
    });
    expect(action.statusCode, action.body).toBe(200);
    received.length = 0;
    answers = [500, 503];
    const start = Date.now();
    expect((await app.outbox.runOnce(new Date(start))).retrying).toBe(1);
    // The console says when a failed delivery is tried again (issue 25), on its latest attempt only.
    const retrying = (await asAdmin("GET", `/api/admin/webhooks/${data.id}/deliveries`)).json().data;
    expect(retrying[0]).toMatchObject({ status_code: 500, gave_up: false });
    expect(Date.parse(retrying[0].next_attempt_at)).toBeGreaterThan(start);
    // Not due yet: nothing is sent again before the backoff.
    expect((await app.outbox.runOnce(new Date(start + 1_000))).claimed).toBe(0);
    expect((await app.outbox.runOnce(new Date(start + 60_000))).retrying).toBe(1);
    expect((await app.outbox.runOnce(new Date(start + 10 * 60_000))).delivered).toBe(1);
    expect(received.map((r) => r.headers[WEBHOOK_HEADERS.eventType])).toEqual([
      "license.status_changed",
      "license.status_changed",
      "license.status_changed",
    ]);
    const ids = new Set(received.map((r) => r.headers[WEBHOOK_HEADERS.id]));
    expect(ids.size).toBe(1);
    // A receiver that dedupes by event id processes it once.
    const processed = new Set<string>();
    for (const r of received) processed.add(JSON.parse(r.body).id);
    expect(processed.size).toBe(1);
    expect(JSON.parse(received[2]!.body).data).toMatchObject({
      before: { status: "active" },
      after: { status: "suspended" },
    });

    const log = await asAdmin("GET", `/api/admin/webhooks/${data.id}/deliveries`);
    expect(log.json().data.map((d: { status_code: number }) => d.status_code)).toEqual([200, 503, 500]);
    // Delivered: no retry is due on any of its attempts.
    expect(log.json().data.map((d: { next_attempt_at: string | null }) => d.next_attempt_at)).toEqual([
      null,
      null,
      null,
    ]);

    // Manual resend: the same event id again.
    const resend = await asAdmin("POST", `/api/admin/webhooks/${data.id}/deliveries/${log.json().data[0].id}/resend`);
    expect(resend.statusCode).toBe(200);
    received.length = 0;
    await app.outbox.runOnce(new Date(start + 11 * 60_000));
    expect(received.map((r) => r.headers[WEBHOOK_HEADERS.id])).toEqual([[...ids][0]]);

    // A test event reaches only this endpoint.
    const test = await asAdmin("POST", `/api/admin/webhooks/${data.id}/test`);
    received.length = 0;
    await app.outbox.runOnce(new Date(start + 12 * 60_000));
    expect(received).toHaveLength(1);
    expect(received[0]!.headers[WEBHOOK_HEADERS.id]).toBe(test.json().event_id);
    expect(received[0]!.headers[WEBHOOK_HEADERS.eventType]).toBe("webhook.test");
    await asAdmin("DELETE", `/api/admin/webhooks/${data.id}`);
  });

  it("gives up after three days and disables the endpoint (recorded in the audit log)", async () => {
    const { data } = await register(["license.status_changed"]);
    const owner = await devSignIn(app, { email: "fay.fail@example.com", name: "Fay Fail" });
    const license = (
      await app.inject({
        method: "POST",
        url: "/api/customer/licenses",
        headers: { authorization: `Bearer ${owner.token}` },
        payload: { tier: "free" },
      })
    ).json().data.license;
    await asAdmin("POST", `/api/admin/licenses/${license.license_key}/actions`, {
      action: "expire",
      reason: "trial over",
    });
    answers = Array(100).fill(500);
    let now = Date.now();
    let dead = 0;
    for (let round = 0; round < 60 && dead === 0; round++) {
      const outcome = await app.outbox.runOnce(new Date(now));
      dead += outcome.dead;
      now += 7 * 60 * 60 * 1000;
    }
    answers = [];
    expect(dead).toBe(1);
    const attempts = (await asAdmin("GET", `/api/admin/webhooks/${data.id}/deliveries?limit=100`)).json().data;
    expect(attempts[0]).toMatchObject({ gave_up: true, next_attempt_at: null });
    expect(attempts.slice(1).every((d: { gave_up: boolean }) => !d.gave_up)).toBe(true);
    const endpoint = (await asAdmin("GET", `/api/admin/webhooks/${data.id}`)).json().data;
    expect(endpoint.enabled).toBe(false);
    expect(endpoint.disabled_reason).toMatch(/72 hours/);
    const audit = await asAdmin("GET", "/api/admin/audit?type=webhook.endpoint_disabled");
    expect(audit.json().data[0]).toMatchObject({ actor: { type: "system" }, target: { id: data.id } });
  });

  it("an admin disables and enables an endpoint (PATCH), recorded in the audit log with before and after", async () => {
    const { data } = await register(["signup.created"]);
    const off = await asAdmin("PATCH", `/api/admin/webhooks/${data.id}`, { enabled: false });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().data).toMatchObject({ enabled: false, disabled_reason: "Disabled by an admin" });
    const on = await asAdmin("PATCH", `/api/admin/webhooks/${data.id}`, { enabled: true, description: "CRM" });
    expect(on.json().data).toMatchObject({ enabled: true, disabled_reason: null, description: "CRM" });
    const audit = await asAdmin("GET", `/api/admin/audit?type=webhook.endpoint_updated&target_id=${data.id}`);
    expect(audit.json().data.map((event: { after: { enabled: boolean } }) => event.after.enabled)).toEqual([
      true,
      false,
    ]);
    expect(
      (await asAdmin("PATCH", "/api/admin/webhooks/00000000-0000-4000-8000-000000000000", { enabled: false }))
        .statusCode,
    ).toBe(404);
    await asAdmin("DELETE", `/api/admin/webhooks/${data.id}`);
  });

  it("backoff doubles with jitter and stays within its cap", () => {
    expect(retryDelayMs(1, () => 0)).toBe(15_000);
    expect(retryDelayMs(2, () => 0.999_999)).toBeLessThanOrEqual(60_000);
    expect(retryDelayMs(3, () => 0)).toBe(60_000);
    expect(retryDelayMs(30, () => 0.999_999)).toBeLessThanOrEqual(6 * 60 * 60 * 1000);
  });

  it("SSRF: in production only https to public addresses; http only to localhost outside production", () => {
    for (const url of [
      "http://example.com/hook",
      "https://127.0.0.1/hook",
      "https://localhost/hook",
      "https://10.0.0.5/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/hook",
      "https://[fd00::1]/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://metadata.internal/hook",
      "https://user:pass@example.com/hook",
      "file:///etc/passwd",
    ]) {
      expect(webhookUrlProblem(url, "production"), url).not.toBeNull();
    }
    expect(webhookUrlProblem("https://hooks.example.com/flotilla", "production")).toBeNull();
    expect(webhookUrlProblem("https://93.184.216.34/hook", "production")).toBeNull();
    expect(webhookUrlProblem("http://127.0.0.1:4000/hook", "development")).toBeNull();
    expect(webhookUrlProblem("http://hooks.example.com/hook", "development")).not.toBeNull();
    expect(isPublicAddress("8.8.8.8")).toBe(true);
    expect(isPublicAddress("192.168.1.1")).toBe(false);
  });

  it("SSRF: a production service refuses to register a loopback receiver", async () => {
    const production = await createTestAppFromEnv(
      {
        NODE_ENV: "production",
        PUBLIC_ORIGIN: "https://flotilla.example",
        APP_SECRET: "ssrf-secret-ssrf-secret-ssrf-secret-ssrf",
        LICENSE_SIGNING_KEY: newSigningKeyPem(),
        GOOGLE_CLIENT_ID: "client-id",
        GOOGLE_CLIENT_SECRET: "client-secret",
      },
      { adminEmails: [ADMIN], backgroundJobs: false },
    );
    try {
      // Production runs no development issuer: the admin's session is the one a Google sign-in would leave.
      const token = await plantedSession(production.app, ADMIN);
      for (const url of [receiverUrl, receiverUrl.replace("http:", "https:"), "https://10.1.2.3/x"]) {
        const response = await production.app.inject({
          method: "POST",
          url: "/api/admin/webhooks",
          headers: { authorization: `Bearer ${token}` },
          payload: { url, events: ["license.created"] },
        });
        expect(response.statusCode, url).toBe(400);
        expect(response.json().code).toBe("INVALID_WEBHOOK_URL");
      }
      // And the development mail page does not exist there.
      expect((await production.app.inject("/dev/mail")).statusCode).toBe(404);
    } finally {
      await production.close();
    }
  });
});
