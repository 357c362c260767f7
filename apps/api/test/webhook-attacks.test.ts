/**
 * Webhooks from the attacker's side (security review): replays, stale deliveries, a rotated secret, and SSRF on a
 * server others can reach. Each is checked the way Standard Webhooks (standardwebhooks.com) and
 * docs/security/threat-model.md say it must hold, with the reference `standardwebhooks` package as the receiver's
 * verifier, loopback-only servers, and DNS answered by the test (no real DNS, no internet).
 */
import type { LookupAddress } from "node:dns";
import { createServer as createHttpServer, type IncomingMessage, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer, type Server as TcpServer } from "node:net";
import { WEBHOOK_HEADERS, WEBHOOK_TOLERANCE_SECONDS } from "@flotilla/contracts/events";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { isPublicAddress, type Resolve, webhookUrlProblem } from "../src/lib/net-guard";
import { PREVIOUS_SECRET_GRACE_MS, WebhookAdmin } from "../src/modules/admin/webhooks";
import { OutboxRunner } from "../src/outbox/runner";
import { standardSignature } from "../src/outbox/signature";
import { sendWebhook } from "../src/outbox/webhooks";
import { devSignIn } from "./helpers/dev-sign-in";
import { plantedSession } from "./helpers/planted-session";
import { createTestApp, createTestAppFromEnv, newSigningKeyPem, TEST_APP_SECRET } from "./helpers/test-app";

const ADMIN = "attack.admin@example.com";
/** A loopback development server: the receivers below are on this machine, which it allows (decision 0038). */
const { app, close } = await createTestApp({ adminEmails: [ADMIN], backgroundJobs: false, webhookTimeoutMs: 2_000 });
/** A staging box others can reach (HOST 0.0.0.0, NODE_ENV unset): public https receivers only. */
const exposed = await createTestAppFromEnv(
  {
    HOST: "0.0.0.0",
    PUBLIC_ORIGIN: "https://staging.flotilla.example",
    GOOGLE_CLIENT_ID: "staging-client",
    GOOGLE_CLIENT_SECRET: "staging-secret",
    APP_SECRET: "attack-secret-attack-secret-attack-secret",
    LICENSE_SIGNING_KEY: newSigningKeyPem(),
  },
  { adminEmails: [ADMIN], backgroundJobs: false },
);

interface Delivery {
  headers: Record<string, string>;
  body: string;
}

/** Listens on loopback only; returns its port. */
async function listen(server: Server | TcpServer, host = "127.0.0.1"): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** Our receiver under test: records every delivery and answers with the next status in `answers` (200 after). */
const deliveries: Delivery[] = [];
let answers: number[] = [];
const receiver = createHttpServer((request, response) => {
  let body = "";
  request.setEncoding("utf8");
  request.on("data", (chunk: string) => {
    body += chunk;
  });
  request.on("end", () => {
    deliveries.push({ headers: request.headers as Record<string, string>, body });
    response.statusCode = answers.shift() ?? 200;
    response.end();
  });
});
let receiverUrl = "";

/** TCP servers on 127.0.0.1 and ::1 that only count connections: any connection at all is an SSRF that got through. */
let connections = 0;
const countingV4 = createTcpServer((socket) => {
  connections += 1;
  socket.destroy();
});
const countingV6 = createTcpServer((socket) => {
  connections += 1;
  socket.destroy();
});
let portV4 = 0;
let portV6 = 0;

let adminToken = "";
let exposedAdminToken = "";

beforeAll(async () => {
  receiverUrl = `http://127.0.0.1:${await listen(receiver)}/hooks`;
  portV4 = await listen(countingV4);
  portV6 = await listen(countingV6, "::1");
  adminToken = (await devSignIn(app, { email: ADMIN, name: "Attack Admin" })).token;
  exposedAdminToken = await plantedSession(exposed.app, ADMIN);
});
afterAll(async () => {
  receiver.close();
  countingV4.close();
  countingV6.close();
  await exposed.close();
  await close();
});
afterEach(() => {
  vi.useRealTimers();
  answers = [];
});

const asAdmin = (method: string, url: string, payload?: Record<string, unknown>) =>
  app.inject({
    method: method as "POST",
    url,
    headers: { authorization: `Bearer ${adminToken}` },
    ...(payload ? { payload } : {}),
  });

async function register(): Promise<{ id: string; secret: string }> {
  const response = await asAdmin("POST", "/api/admin/webhooks", { url: receiverUrl, events: ["license.created"] });
  expect(response.statusCode, response.body).toBe(200);
  return { id: response.json().data.id, secret: response.json().secret };
}

/** Queues the endpoint's test event; returns its event id. */
async function queueTest(endpointId: string): Promise<string> {
  const response = await asAdmin("POST", `/api/admin/webhooks/${endpointId}/test`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().event_id;
}

/**
 * A receiver written the way docs/webhooks.md says: verify the raw body with the library, answer 400 when it does not
 * verify, and handle each event id once (deliveries are at least once). `handled` is what it acted on.
 */
function documentedReceiver(secret: string) {
  const webhook = new Webhook(secret);
  const seen = new Set<string>();
  const handled: string[] = [];
  return {
    handled,
    receive(delivery: Delivery): 204 | 400 {
      let event: { id: string };
      try {
        event = webhook.verify(delivery.body, delivery.headers) as { id: string };
      } catch {
        return 400;
      }
      if (!seen.has(event.id)) {
        seen.add(event.id);
        handled.push(event.id);
      }
      return 204;
    },
  };
}

describe("replays: the receiver dedupes on webhook-id, and our sender keeps it across retries", () => {
  it("retries of one message carry one webhook-id, each freshly signed: a receiver deduping on it acts once, and a replay of a captured delivery changes nothing", async () => {
    const { id, secret } = await register();
    const eventId = await queueTest(id);
    deliveries.length = 0;
    answers = [500, 503];
    const start = Date.now();
    expect((await app.outbox.runOnce(new Date(start))).retrying).toBe(1);
    expect((await app.outbox.runOnce(new Date(start + 60_000))).retrying).toBe(1);
    expect((await app.outbox.runOnce(new Date(start + 10 * 60_000))).delivered).toBe(1);
    // And an admin's resend of the delivered message.
    const log = (await asAdmin("GET", `/api/admin/webhooks/${id}/deliveries`)).json().data;
    expect((await asAdmin("POST", `/api/admin/webhooks/${id}/deliveries/${log[0].id}/resend`)).statusCode).toBe(200);
    await app.outbox.runOnce(new Date(start + 11 * 60_000));

    expect(deliveries).toHaveLength(4);
    // The same webhook-id every time (the event's id, also the body's id); each attempt signed for its own moment.
    expect(new Set(deliveries.map((d) => d.headers[WEBHOOK_HEADERS.id]))).toEqual(new Set([eventId]));
    expect(new Set(deliveries.map((d) => JSON.parse(d.body).id))).toEqual(new Set([eventId]));
    for (const delivery of deliveries) expect(new Webhook(secret).verify(delivery.body, delivery.headers)).toBeTruthy();

    const receiverSide = documentedReceiver(secret);
    for (const delivery of deliveries) expect(receiverSide.receive(delivery)).toBe(204);
    expect(receiverSide.handled).toEqual([eventId]);

    // An attacker replays a captured delivery, byte for byte, within the tolerance: the signature alone accepts it
    // (Standard Webhooks signs id, timestamp and body, not "once") — deduping on webhook-id is what makes it harmless.
    const captured = deliveries[3]!;
    expect(() => new Webhook(secret).verify(captured.body, captured.headers)).not.toThrow();
    expect(receiverSide.receive(captured)).toBe(204);
    expect(receiverSide.handled).toEqual([eventId]);
    // Nor can the replay dodge the dedupe with a webhook-id of its own: the id is signed.
    const renamed = { ...captured.headers, [WEBHOOK_HEADERS.id]: "evt_fresh_looking" };
    expect(() => new Webhook(secret).verify(captured.body, renamed)).toThrow(WebhookVerificationError);
    expect(receiverSide.receive({ headers: renamed, body: captured.body })).toBe(400);
    const otherBodyId = captured.body.replace(eventId, "00000000-0000-4000-8000-000000000000");
    expect(receiverSide.receive({ headers: captured.headers, body: otherBodyId })).toBe(400);
    expect(receiverSide.handled).toEqual([eventId]);
    await asAdmin("DELETE", `/api/admin/webhooks/${id}`);
  });
});

describe("timestamps: a delivery outside the 5-minute tolerance is refused by the reference verifier", () => {
  it("a captured delivery verifies for 5 minutes either side of its timestamp, never after; a refreshed timestamp breaks the signature", async () => {
    const { id, secret } = await register();
    await queueTest(id);
    deliveries.length = 0;
    await app.outbox.runOnce();
    const [delivery] = deliveries;
    const t = Number(delivery!.headers[WEBHOOK_HEADERS.timestamp]);
    // Our timestamp is the attempt's own time, so a receiver with a correct clock always verifies a fresh delivery.
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(WEBHOOK_TOLERANCE_SECONDS);
    expect(WEBHOOK_TOLERANCE_SECONDS).toBe(300);
    const verifyAt = (seconds: number, headers = delivery!.headers) => {
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(seconds * 1000);
      try {
        return new Webhook(secret).verify(delivery!.body, headers);
      } finally {
        vi.useRealTimers();
      }
    };
    expect(verifyAt(t + 300)).toBeTruthy();
    expect(verifyAt(t - 300)).toBeTruthy();
    // A replay 301 s later, or a receiver whose clock is 301 s behind: refused.
    expect(() => verifyAt(t + 301)).toThrow(/too old/);
    expect(() => verifyAt(t + 86_400)).toThrow(/too old/);
    expect(() => verifyAt(t - 301)).toThrow(/too new/);
    // The attacker moves the timestamp to "now" to get back inside the window: the signature covers it.
    const refreshed = { ...delivery!.headers, [WEBHOOK_HEADERS.timestamp]: String(t + 3_600) };
    expect(() => verifyAt(t + 3_600, refreshed)).toThrow(/No matching signature/);
    // Nor a timestamp that is not a number.
    expect(() => verifyAt(t, { ...delivery!.headers, [WEBHOOK_HEADERS.timestamp]: "soon" })).toThrow(
      WebhookVerificationError,
    );
    await asAdmin("DELETE", `/api/admin/webhooks/${id}`);
  });
});

describe("secret rotation (decision 0044): both secrets sign for 24 hours, then only the new one", () => {
  it("within the grace each delivery carries a signature per secret; after it, only the new secret's, and the old secret verifies nothing", async () => {
    const { id, secret: oldSecret } = await register();
    const rotated = await asAdmin("POST", `/api/admin/webhooks/${id}/rotate-secret`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    const newSecret = rotated.json().secret as string;
    const rotatedAt = Date.now();
    const deliverAt = async (at: number) => {
      await queueTest(id);
      deliveries.length = 0;
      // Not before the message was queued (it is due from then).
      await app.outbox.runOnce(new Date(Math.max(at, Date.now())));
      expect(deliveries).toHaveLength(1);
      return deliveries[0]!;
    };

    for (const at of [rotatedAt, rotatedAt + PREVIOUS_SECRET_GRACE_MS - 60_000]) {
      const during = await deliverAt(at);
      expect(during.headers[WEBHOOK_HEADERS.signature]!.split(" ")).toHaveLength(2);
      for (const secret of [oldSecret, newSecret]) {
        expect(new Webhook(secret).verify(during.body, during.headers)).toBeTruthy();
      }
    }

    const after = await deliverAt(rotatedAt + PREVIOUS_SECRET_GRACE_MS + 60_000);
    expect(after.headers[WEBHOOK_HEADERS.signature]!.split(" ")).toHaveLength(1);
    expect(new Webhook(newSecret).verify(after.body, after.headers)).toBeTruthy();
    // A receiver still on the old secret no longer verifies our deliveries…
    expect(() => new Webhook(oldSecret).verify(after.body, after.headers)).toThrow(WebhookVerificationError);
    // …and one on the new secret refuses a delivery forged with the old one (say it leaked: that is why one rotates).
    const t = Math.floor(Date.now() / 1000);
    const forged = {
      [WEBHOOK_HEADERS.id]: "evt_forged",
      [WEBHOOK_HEADERS.timestamp]: String(t),
      [WEBHOOK_HEADERS.signature]: standardSignature([oldSecret], "evt_forged", t, after.body),
    };
    expect(() => new Webhook(newSecret).verify(after.body, forged)).toThrow(WebhookVerificationError);
    await asAdmin("DELETE", `/api/admin/webhooks/${id}`);
  });

  it("a second rotation within the grace keeps two live secrets, never three: the oldest stops signing at once", async () => {
    const { id, secret: first } = await register();
    const second = (await asAdmin("POST", `/api/admin/webhooks/${id}/rotate-secret`)).json().secret as string;
    const third = (await asAdmin("POST", `/api/admin/webhooks/${id}/rotate-secret`)).json().secret as string;
    await queueTest(id);
    deliveries.length = 0;
    await app.outbox.runOnce();
    const [delivery] = deliveries;
    expect(delivery!.headers[WEBHOOK_HEADERS.signature]!.split(" ")).toHaveLength(2);
    for (const secret of [second, third])
      expect(new Webhook(secret).verify(delivery!.body, delivery!.headers)).toBeTruthy();
    expect(() => new Webhook(first).verify(delivery!.body, delivery!.headers)).toThrow(WebhookVerificationError);
    await asAdmin("DELETE", `/api/admin/webhooks/${id}`);
  });
});

/** Every non-public kind of address the review named, as a DNS answer would give it. */
const NON_PUBLIC: Array<[string, LookupAddress]> = [
  ["loopback", { address: "127.0.0.1", family: 4 }],
  ["loopback, elsewhere in 127/8", { address: "127.3.2.1", family: 4 }],
  ["IPv6 loopback", { address: "::1", family: 6 }],
  ["link-local", { address: "169.254.10.1", family: 4 }],
  ["cloud metadata", { address: "169.254.169.254", family: 4 }],
  ["IPv6 link-local", { address: "fe80::1", family: 6 }],
  ["IPv6 link-local, scoped", { address: "fe80::1%eth0", family: 6 }],
  ["10/8", { address: "10.20.30.40", family: 4 }],
  ["172.16/12", { address: "172.16.0.1", family: 4 }],
  ["172.16/12, top", { address: "172.31.255.254", family: 4 }],
  ["192.168/16", { address: "192.168.1.1", family: 4 }],
  ["unique local fc00::/7", { address: "fc00::1", family: 6 }],
  ["unique local fd00::/8", { address: "fd12:3456::1", family: 6 }],
  ["IPv4-mapped loopback", { address: "::ffff:127.0.0.1", family: 6 }],
  ["IPv4-mapped loopback, hex", { address: "::ffff:7f00:1", family: 6 }],
  ["IPv4-mapped metadata", { address: "::ffff:169.254.169.254", family: 6 }],
  ["IPv4-compatible loopback", { address: "::127.0.0.1", family: 6 }],
  ["IPv4-translated loopback", { address: "::ffff:0:7f00:1", family: 6 }],
  ["6to4 around loopback", { address: "2002:7f00:1::1", family: 6 }],
  ["IPv6 site-local (deprecated)", { address: "fec0::1", family: 6 }],
  ["unspecified", { address: "0.0.0.0", family: 4 }],
  ["IPv6 unspecified", { address: "::", family: 6 }],
];

/** DNS as the test says: each name answers what `answers` maps it to (NXDOMAIN otherwise); every call is counted. */
function fakeDns(answers: Record<string, LookupAddress[] | ((call: number) => LookupAddress[])>) {
  const calls: string[] = [];
  const resolve: Resolve = async (hostname) => {
    calls.push(hostname);
    const answer = answers[hostname];
    const list = typeof answer === "function" ? answer(calls.filter((name) => name === hostname).length) : answer;
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return list;
  };
  return { resolve, calls };
}

/** A DNS name standing for one kind of address ("10/8" → 10-8.example.com). */
const nameFor = (kind: string) => `${kind.toLowerCase().replace(/[^a-z0-9]+/g, "-")}.example.com`;

const PUBLIC_V4: LookupAddress = { address: "93.184.216.34", family: 4 };
const PUBLIC_V6: LookupAddress = { address: "2606:2800:220:1:248:1893:25c8:1946", family: 6 };

describe("SSRF on an exposed server: refused at registration, and again on every connection", () => {
  const registerOnExposed = (url: string) =>
    exposed.app.inject({
      method: "POST",
      url: "/api/admin/webhooks",
      headers: { authorization: `Bearer ${exposedAdminToken}` },
      payload: { url, events: ["license.created"] },
    });

  it("registration refuses every non-public address literal, in every spelling URL parsing accepts", async () => {
    const refused = [
      "https://127.0.0.1/hook",
      "https://127.255.255.254/hook",
      "https://0x7f.1/hook",
      "https://2130706433/hook",
      "https://0177.0.0.1/hook",
      "https://[::1]/hook",
      "https://localhost/hook",
      "https://localhost./hook",
      "https://api.localhost/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://169.254.0.1/hook",
      "https://[fe80::1]/hook",
      "https://[febf:ffff::1]/hook",
      "https://10.0.0.1/hook",
      "https://172.16.0.1/hook",
      "https://172.31.255.254/hook",
      "https://192.168.1.1/hook",
      "https://[fc00::1]/hook",
      "https://[fdff:ffff::1]/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://[::ffff:10.0.0.1]/hook",
      "https://[::ffff:169.254.169.254]/hook",
      "https://[::127.0.0.1]/hook",
      "https://[::]/hook",
      "https://0.0.0.0/hook",
      "https://metadata.google.internal/computeMetadata/v1/",
      "https://printer.local/hook",
      `http://127.0.0.1:${portV4}/hook`,
      "http://hooks.example.com/hook",
    ];
    for (const url of refused) {
      const response = await registerOnExposed(url);
      expect(response.statusCode, url).toBe(400);
      expect(response.json().code, url).toBe("INVALID_WEBHOOK_URL");
    }
    // The edges of the ranges, and public IPv6 literals, are allowed.
    for (const url of ["https://172.32.0.1/hook", "https://11.0.0.1/hook", "https://[2606:4700:4700::1111]/hook"]) {
      expect(webhookUrlProblem(url, "production"), url).toBeNull();
    }
  });

  it("registration resolves the name and refuses it when any address it resolves to is not public", async () => {
    const names: Record<string, LookupAddress[]> = {
      "public.example.com": [PUBLIC_V4, PUBLIC_V6],
      // A public address in front, a private one behind: refused whole (a client may try either).
      "mixed.example.com": [PUBLIC_V4, { address: "10.0.0.7", family: 4 }],
    };
    for (const [kind, address] of NON_PUBLIC) names[nameFor(kind)] = [address];
    const dns = fakeDns(names);
    const admin = new WebhookAdmin(app.database.db, TEST_APP_SECRET, "production", dns.resolve);
    const create = (url: string) =>
      admin.create({ url, events: ["license.created"], description: "" }, { type: "system" }, "::1");
    for (const [kind] of [...NON_PUBLIC, ["mixed"]] as const) {
      const url = `https://${nameFor(kind)}/hook`;
      await expect(create(url), kind).rejects.toMatchObject({ statusCode: 400, code: "INVALID_WEBHOOK_URL" });
    }
    // And the same on a change of URL.
    const made = await create("https://public.example.com/hook");
    await expect(
      admin.update(made.data.id, { url: "https://10-8.example.com/hook" }, { type: "system" }, "::1"),
    ).rejects.toMatchObject({ statusCode: 400 });
    // A name that does not resolve (yet) is accepted: its connections are checked when they happen.
    const later = await create("https://not-yet.example.com/hook");
    for (const endpoint of [made, later]) await admin.remove(endpoint.data.id, { type: "system" }, "::1");
  });

  /** A production-policy attempt to `name`, whose port reaches the counting server of the address's family. */
  const attempt = (host: string, address: LookupAddress | null, resolve: Resolve) =>
    sendWebhook(
      {
        url: `https://${host}:${address?.family === 6 ? portV6 : portV4}/hook`,
        secrets: ["whsec_c2VjcmV0"],
        eventId: "evt_ssrf",
        eventType: "webhook.test",
        body: "{}",
      },
      { policy: "production", timeoutMs: 2_000, resolve },
    );

  it("delivery refuses a name that resolves to any of them, before connecting (the address checked is the one the socket gets)", async () => {
    const before = connections;
    for (const [kind, address] of NON_PUBLIC) {
      const dns = fakeDns({ "receiver.example.com": [address] });
      const result = await attempt("receiver.example.com", address, dns.resolve);
      expect(result, kind).toMatchObject({ ok: false, statusCode: null });
      expect(result.error, kind).toMatch(/refused: receiver\.example\.com resolves to a non-public address/);
      // Resolved once, by the socket's own lookup.
      expect(dns.calls, kind).toEqual(["receiver.example.com"]);
    }
    const mixed = fakeDns({ "receiver.example.com": [PUBLIC_V4, { address: "127.0.0.1", family: 4 }] });
    expect((await attempt("receiver.example.com", null, mixed.resolve)).error).toMatch(/refused/);
    // Nothing reached the loopback servers (which 127/8, ::1 and the mapped loopback answers would have).
    expect(connections).toBe(before);
  });

  it("delivery refuses address literals too (an endpoint registered under looser rules, or edited in the database)", async () => {
    const before = connections;
    for (const url of [
      `https://127.0.0.1:${portV4}/hook`,
      `https://[::1]:${portV6}/hook`,
      `https://[::ffff:127.0.0.1]:${portV4}/hook`,
      `https://0x7f.1:${portV4}/hook`,
      `http://127.0.0.1:${portV4}/hook`,
      `https://localhost.:${portV4}/hook`,
      "https://169.254.169.254/latest/meta-data",
      "https://[fd00::1]/hook",
    ]) {
      const result = await sendWebhook(
        { url, secrets: ["whsec_c2VjcmV0"], eventId: "evt_ssrf", eventType: "webhook.test", body: "{}" },
        { policy: "production", timeoutMs: 2_000, resolve: fakeDns({}).resolve },
      );
      expect(result, url).toMatchObject({ ok: false, statusCode: null });
      expect(result.error, url).toMatch(/^refused/);
    }
    expect(connections).toBe(before);
  });

  it("DNS rebinding: a name public at registration and loopback at delivery is refused at delivery, on every retry; nothing connects", async () => {
    const dns = fakeDns({
      "rebind.example.com": (call) => (call === 1 ? [PUBLIC_V4] : [{ address: "127.0.0.1", family: 4 }]),
    });
    const admin = new WebhookAdmin(app.database.db, TEST_APP_SECRET, "production", dns.resolve);
    const { data } = await admin.create(
      { url: `https://rebind.example.com:${portV4}/hook`, events: ["license.created"], description: "" },
      { type: "system" },
      "::1",
    );
    expect(dns.calls).toHaveLength(1);
    const runner = new OutboxRunner(app.database.db, {
      mail: { kind: "dev", send: async () => undefined, close: () => undefined },
      mailContext: { publicOrigin: "https://staging.flotilla.example", secret: TEST_APP_SECRET },
      appSecret: TEST_APP_SECRET,
      policy: "production",
      resolve: dns.resolve,
      webhookTimeoutMs: 2_000,
      intervalMs: 60_000,
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    });
    await queueTest(data.id);
    const before = connections;
    const start = Date.now();
    for (const at of [start, start + 60_000, start + 10 * 60_000]) {
      expect((await runner.runOnce(new Date(at))).retrying).toBe(1);
    }
    expect(connections).toBe(before);
    const log = (await asAdmin("GET", `/api/admin/webhooks/${data.id}/deliveries`)).json().data;
    expect(log).toHaveLength(3);
    for (const entry of log) {
      expect(entry).toMatchObject({ status_code: null, error: expect.stringMatching(/non-public address/) });
    }
    // One lookup at registration, one per attempt: nothing resolved twice for one connection.
    expect(dns.calls).toHaveLength(4);
    await admin.remove(data.id, { type: "system" }, "::1");
  });

  it("one lookup per connection, and the socket connects to exactly the address that lookup gave (loopback server, development policy)", async () => {
    // First answer: the receiver's address. Any later lookup: 127.0.0.2, where nothing listens.
    const dns = fakeDns({
      "receiver.localhost": (call) => [{ address: call === 1 ? "127.0.0.1" : "127.0.0.2", family: 4 }],
    });
    const port = new URL(receiverUrl).port;
    const send = () =>
      sendWebhook(
        {
          url: `http://receiver.localhost:${port}/hooks`,
          secrets: ["whsec_c2VjcmV0"],
          eventId: "evt_once",
          eventType: "webhook.test",
          body: "{}",
        },
        { policy: "development", timeoutMs: 2_000, resolve: dns.resolve },
      );
    deliveries.length = 0;
    expect(await send()).toMatchObject({ ok: true, statusCode: 200 });
    expect(dns.calls).toEqual(["receiver.localhost"]);
    expect(deliveries).toHaveLength(1);
    // The next attempt resolves again (no pooled connection outlives its check) and goes where the new answer says.
    expect(await send()).toMatchObject({ ok: false, statusCode: null, error: expect.stringMatching(/ECONNREFUSED/) });
    expect(dns.calls).toHaveLength(2);
    expect(deliveries).toHaveLength(1);
  });

  it("a receiver's redirect is never followed, whatever its status and target: the attempt fails and is retried", async () => {
    let internalHits = 0;
    const internal = createHttpServer((_request, response) => {
      internalHits += 1;
      response.end("secret");
    });
    const internalPort = await listen(internal);
    let target = "";
    let status = 302;
    const redirecting = createHttpServer((request: IncomingMessage, response) => {
      request.resume();
      request.on("end", () => {
        response.writeHead(status, { location: target });
        response.end();
      });
    });
    const redirectingPort = await listen(redirecting);
    try {
      for (const code of [301, 302, 303, 307, 308]) {
        for (const where of [
          `http://127.0.0.1:${internalPort}/admin`,
          "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
          `http://[::ffff:127.0.0.1]:${internalPort}/`,
        ]) {
          status = code;
          target = where;
          const result = await sendWebhook(
            {
              url: `http://127.0.0.1:${redirectingPort}/hook`,
              secrets: ["whsec_c2VjcmV0"],
              eventId: "evt_redirect",
              eventType: "webhook.test",
              body: "{}",
            },
            { policy: "development", timeoutMs: 2_000 },
          );
          expect(result, `${code} → ${where}`).toMatchObject({
            ok: false,
            statusCode: code,
            error: `HTTP ${code}: redirects are not followed`,
          });
        }
      }
      expect(internalHits).toBe(0);
    } finally {
      internal.close();
      redirecting.close();
    }
  });

  it("the address rules themselves: every range the review named, and public addresses either side of them", () => {
    for (const [kind, { address }] of NON_PUBLIC) expect(isPublicAddress(address), kind).toBe(false);
    for (const address of ["8.8.8.8", "11.0.0.1", "172.15.255.255", "172.32.0.1", "169.253.255.255", "192.169.0.1"]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
    for (const address of [PUBLIC_V6.address, "2606:4700:4700::1111", "::ffff:8.8.8.8", "fbff::1", "fe7f::1"]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });
});
