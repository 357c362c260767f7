/**
 * Every wait on a peer is bounded (ARCHITECTURE.md; decision 0037): a peer that accepts connections and then never
 * answers — a frozen Redis, a stalled link to PostgreSQL, an SMTP server without a greeting, a webhook receiver
 * that never answers or trickles its answer — degrades the service the way a dead one does, within a bound, and
 * readiness says so. Timings are asserted with wide margins (a shared, busy machine): the point is "seconds, not
 * forever".
 */

import net from "node:net";
import { describe, expect, it } from "vitest";
import { CircuitBreaker, CircuitOpenError } from "../src/lib/circuit-breaker";
import { REDIS_FAILURES_TO_OPEN } from "../src/lib/redis";
import { createMailSender } from "../src/outbox/mail";
import { sendWebhook } from "../src/outbox/webhooks";
import { validSignup } from "./fixtures";
import { licensedCustomer } from "./helpers/licensed-customer";
import { appsWithPeers, validateWithin } from "./helpers/peer-apps";
import { fakeRedis, listenOnLoopback, silentServer, within } from "./helpers/stalling-peers";
import { testConfig } from "./helpers/test-app";

const { appWith, defer } = appsWithPeers();
type App = Awaited<ReturnType<typeof appWith>>;

async function untilReady(app: App, redis: "ok" | "down") {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const ready = await within(3_000, app.inject("/api/ready"));
    if (ready !== "no answer" && ready.json().checks?.redis === redis) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`readiness never reported redis ${redis}`);
}

const validate = validateWithin;

describe("a Redis that accepts connections but stops answering", () => {
  it("validate answers within 2 s, limits count in this process (still enforced), readiness says Redis is down", async () => {
    const redis = await fakeRedis();
    const limits = { ...testConfig().rateLimits, licenseKeyPerMinute: 4 };
    const app = await appWith({ redisUrl: redis.url, rateLimits: limits }, [redis]);
    await untilReady(app, "ok");
    const { key } = await licensedCustomer(app, "stalled-redis");

    redis.silence();
    const answers = [];
    for (let i = 0; i < 5; i++) {
      const started = Date.now();
      const answer = await validate(app, key);
      answers.push({ answer, ms: Date.now() - started });
      if (answer === "no answer") break;
    }
    expect(answers.map(({ answer }) => (answer === "no answer" ? answer : answer.statusCode))).toEqual([
      200, 200, 200, 200, 429,
    ]);
    expect(Math.max(...answers.map(({ ms }) => ms))).toBeLessThan(2_000);

    const started = Date.now();
    const ready = await within(3_000, app.inject("/api/ready"));
    expect(ready === "no answer" ? ready : ready.statusCode).toBe(200);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(ready !== "no answer" && ready.json().checks.redis).toBe("down");
  });

  it("a stalled Redis is not waited on per request: the circuit opens, one probe per cool-down, closed once it answers", async () => {
    const redis = await fakeRedis();
    const app = await appWith({ redisUrl: redis.url, redisBreakerCoolDownMs: 600 }, [redis]);
    await untilReady(app, "ok");
    const { key } = await licensedCustomer(app, "breaker");
    // What the requests send (counters, and the binding's change message); not the connection's own handshake.
    const counted = () => redis.commands.filter(([name]) => ["EVALSHA", "EVAL", "PUBLISH"].includes(name!)).length;

    redis.silence();
    const before = counted();
    const started = Date.now();
    for (let i = 0; i < 10; i++) expect(await validate(app, key)).toMatchObject({ statusCode: 200 });
    // Ten validations (two counters each, and the first binds the machine) sent three commands: the three
    // timeouts that opened the circuit.
    expect(counted() - before).toBe(REDIS_FAILURES_TO_OPEN);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await app.inject("/metrics")).body).toMatch(/^flotilla_redis_circuit_open\{[^}]*\} 1$/m);
    expect((await app.inject("/api/ready")).json().checks.redis).toBe("down");

    redis.resume();
    // Readiness probes too: once the cool-down is over and the connection is back, Redis is used again.
    await untilReady(app, "ok");
    const resumed = counted();
    expect(await validate(app, key)).toMatchObject({ statusCode: 200 });
    expect(counted() - resumed).toBeGreaterThanOrEqual(2); // both counters (a script may take EVALSHA + EVAL)
    expect((await app.inject("/metrics")).body).toMatch(/^flotilla_redis_circuit_open\{[^}]*\} 0$/m);
  });
});

describe("the circuit breaker", () => {
  const fail = (breaker: CircuitBreaker) => breaker.run(() => Promise.reject(new Error("timed out")));
  const succeed = (breaker: CircuitBreaker) => breaker.run(async () => "answer");

  it("opens after failures in a row, skips the peer for the cool-down, then one probe decides", async () => {
    let now = 0;
    const breaker = new CircuitBreaker({ name: "peer", failuresToOpen: 3, coolDownMs: 1_000, now: () => now });
    await expect(fail(breaker)).rejects.toThrow("timed out");
    await expect(fail(breaker)).rejects.toThrow("timed out");
    await expect(succeed(breaker)).resolves.toBe("answer"); // not in a row: still closed
    for (let i = 0; i < 3; i++) await expect(fail(breaker)).rejects.toThrow("timed out");
    expect(breaker.state).toBe("open");
    let called = false;
    await expect(
      breaker.run(async () => {
        called = true;
      }),
    ).rejects.toBeInstanceOf(CircuitOpenError);
    expect(called).toBe(false);

    now = 999;
    await expect(succeed(breaker)).rejects.toBeInstanceOf(CircuitOpenError);
    now = 1_000;
    expect(breaker.state).toBe("half-open");
    // One probe at a time; the others are still skipped while it runs.
    let answer!: (value: string) => void;
    const probe = breaker.run(() => new Promise<string>((resolve) => (answer = resolve)));
    await expect(succeed(breaker)).rejects.toBeInstanceOf(CircuitOpenError);
    answer("back");
    await expect(probe).resolves.toBe("back");
    expect(breaker.state).toBe("closed");

    // A failed probe opens it again for a whole cool-down.
    for (let i = 0; i < 3; i++) await expect(fail(breaker)).rejects.toThrow();
    now = 2_000;
    await expect(fail(breaker)).rejects.toThrow("timed out");
    expect(breaker.state).toBe("open");
    now = 2_999;
    await expect(succeed(breaker)).rejects.toBeInstanceOf(CircuitOpenError);
    now = 3_000;
    await expect(succeed(breaker)).resolves.toBe("answer");
  });

  it("a call that began before the circuit opened neither closes nor reopens it when it ends late", async () => {
    let now = 0;
    const breaker = new CircuitBreaker({ name: "peer", failuresToOpen: 1, coolDownMs: 1_000, now: () => now });
    let late!: (value: string) => void;
    const slow = breaker.run(() => new Promise<string>((resolve) => (late = resolve)));
    await expect(fail(breaker)).rejects.toThrow();
    expect(breaker.state).toBe("open");
    late("late answer");
    await expect(slow).resolves.toBe("late answer");
    expect(breaker.state).toBe("open");
    now = 1_000;
    expect(breaker.state).toBe("half-open");
  });
});

/**
 * A TCP server that, on every connection, writes `prefix` at once and then `script` a byte at a time, one every
 * `everyMs` (and never ends).
 */
async function trickler(script: string, prefix = "", everyMs = 100) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    if (prefix) socket.write(prefix);
    let at = 0;
    const timer = setInterval(() => {
      if (socket.destroyed) return clearInterval(timer);
      socket.write(script[at % script.length]!);
      at += 1;
    }, everyMs);
    socket.on("close", () => clearInterval(timer));
  });
  const port = await listenOnLoopback(server);
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  defer(close);
  return { port };
}

describe("outbox peers that stall", () => {
  const hook = (port: number) =>
    sendWebhook(
      {
        url: `http://127.0.0.1:${port}/hook`,
        secrets: ["whsec_test"],
        eventId: "evt_1",
        eventType: "webhook.test",
        body: "{}",
      },
      { policy: "development", timeoutMs: 1_000 },
    );

  it("a webhook receiver that never answers, trickles its headers, or trickles its body: each attempt ends within the timeout", async () => {
    const silent = await silentServer();
    defer(silent.close);
    const slowHeaders = await trickler(`HTTP/1.1 200 OK\r\nX-Padding: ${"a".repeat(10_000)}`);
    const slowBody = await trickler("b".repeat(100_000), "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n");
    for (const [name, receiver, expected] of [
      ["silent", silent.port, { ok: false, statusCode: null }],
      ["trickled headers", slowHeaders.port, { ok: false, statusCode: null }],
      // The status line said 200: delivered, whatever the body does afterwards (receivers dedupe by event id).
      ["trickled body", slowBody.port, { ok: true, statusCode: 200 }],
    ] as const) {
      const started = Date.now();
      const attempt = await within(5_000, hook(receiver));
      expect(attempt, name).toMatchObject(expected);
      expect(Date.now() - started, name).toBeLessThan(2_500);
    }
  });

  it("an SMTP server that accepts and never greets, or trickles its greeting: the send fails within SMTP_TIMEOUT_MS", async () => {
    const silent = await silentServer();
    defer(silent.close);
    const slowGreeting = await trickler(`220 mail.example ESMTP ${"x".repeat(10_000)}`);
    const app = await appWith({});
    for (const port of [silent.port, slowGreeting.port]) {
      const mail = createMailSender({
        smtpUrl: `smtp://127.0.0.1:${port}`,
        from: "Flotilla <no-reply@example.com>",
        db: app.database.db,
        timeoutMs: 1_000,
      });
      const started = Date.now();
      const sent = await within(
        5_000,
        mail.send("evt_1", "someone@example.com", { subject: "s", text: "t", html: "<p>t</p>", headers: {} }).then(
          () => "sent",
          (error: Error) => error,
        ),
      );
      mail.close();
      expect(sent).toBeInstanceOf(Error);
      expect(Date.now() - started).toBeLessThan(2_500);
    }
  });

  it("an outbox round with a stalled SMTP server ends within the bound, and the mail waits for its retry (not lost)", async () => {
    const silent = await silentServer();
    const app = await appWith(
      { smtpUrl: `smtp://127.0.0.1:${silent.port}`, smtpTimeoutMs: 1_000, backgroundJobs: false },
      [silent],
    );
    const signup = await app.inject({
      method: "POST",
      url: "/api/signup",
      payload: validSignup({ email: "stalled.smtp@example.com" }),
    });
    expect(signup.statusCode).toBe(200);
    const started = Date.now();
    const outcome = await within(10_000, app.outbox.runOnce());
    expect(outcome).toMatchObject({ delivered: 0, dead: 0 });
    expect(outcome !== "no answer" && outcome.retrying).toBeGreaterThanOrEqual(1);
    expect(outcome !== "no answer" && outcome.retrying).toBe(outcome !== "no answer" && outcome.claimed);
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
