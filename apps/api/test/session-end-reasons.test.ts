/**
 * A 401 INVALID_SESSION says why the session ended, when the service knows it (decisions 0055, 0056): `signed_out`
 * for a revoked token, `expired` for one past its end, `account_erased` for one whose account a privacy request erased
 * — a tombstone keyed by the token's hash only, kept until the session would have ended at the latest and then purged
 * by the retention job — and nothing for a token the service never issued (a stranger learns nothing). On every
 * bearer operation of the OpenAPI document, which declares the field, and on the live stream's `signed-out` event.
 */
import { SESSION_END_REASONS } from "@flotilla/contracts/auth";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { applyRetention } from "../src/jobs/retention";
import { newOpaqueToken, sha256Hex } from "../src/lib/tokens";
import type { IdentityProvider } from "../src/modules/auth/identity-provider";
import { AuthService } from "../src/modules/auth/service";
import { devSignIn } from "./helpers/dev-sign-in";
import { bearer } from "./helpers/licensed-customer";
import { apiOperations, type JsonSchema, type Operation, openApiDocument, operationUrl } from "./helpers/openapi";
import { createTestApp } from "./helpers/test-app";

const ADMIN = "reasons.admin@example.com";
const { app, close } = await createTestApp({ adminEmails: [ADMIN], backgroundJobs: false });
let admin: string;
let origin: string;
let guarded: Operation[];

const rows = async (statement: ReturnType<typeof sql>) =>
  ((await app.database.db.execute(statement)) as unknown as { rows: Record<string, unknown>[] }).rows;

beforeAll(async () => {
  admin = (await devSignIn(app, { email: ADMIN, name: "Reasons Admin" })).token;
  guarded = (await apiOperations(app)).filter((operation) => operation.bearer);
  origin = await app.listen({ port: 0, host: "127.0.0.1" });
});
afterAll(() => close());

/** The body of a 401 from an operation called with `token`, as the guard answers before anything else runs. */
async function refusal(operation: Operation, token: string) {
  const pathValues = Object.fromEntries(
    operation.pathParams.map((p) => [p.name, p.name === "licenseKey" ? "FLOT-00000-00000-00000-00000-00000" : "m"]),
  );
  const response = await app.inject({
    method: operation.method as "GET",
    url: operationUrl(operation, pathValues),
    headers: { ...bearer(token), accept: operation.path.endsWith("/events") ? "text/event-stream" : "*/*" },
    ...(operation.body ? { payload: { tier: "free" } } : {}),
  });
  expect(response.statusCode, operation.key).toBe(401);
  return response.json() as { success: boolean; code: string; reason?: string };
}

/** Every bearer operation answers 401 INVALID_SESSION with this reason (or, for `null`, with no reason at all). */
async function everyOperationSays(token: string, reason: string | null) {
  expect(guarded.length).toBeGreaterThanOrEqual(9);
  for (const operation of guarded) {
    const body = await refusal(operation, token);
    expect(body, operation.key).toMatchObject({ success: false, code: "INVALID_SESSION" });
    if (reason === null) expect(body, operation.key).not.toHaveProperty("reason");
    else expect(body.reason, operation.key).toBe(reason);
  }
}

const erase = (email: string) =>
  app.inject({
    method: "POST",
    url: "/api/admin/privacy/erase",
    headers: bearer(admin),
    payload: { email, reason: "Privacy request by mail" },
  });

describe("why a session ended", () => {
  it("signed out: a revoked token says signed_out, everywhere (logout, sign-out everywhere, a rotated token)", async () => {
    const here = await devSignIn(app, { email: "reasons.out@example.com", name: "Out Here" });
    const elsewhere = await devSignIn(app, { email: "reasons.out@example.com", name: "Out Here" });
    expect(
      (await app.inject({ method: "POST", url: "/api/auth/logout", headers: bearer(here.token) })).statusCode,
    ).toBe(200);
    await everyOperationSays(here.token, "signed_out");

    const third = await devSignIn(app, { email: "reasons.out@example.com", name: "Out Here" });
    const all = await app.inject({ method: "POST", url: "/api/auth/logout-all", headers: bearer(third.token) });
    expect(all.statusCode, all.body).toBe(200);
    for (const token of [elsewhere.token, third.token]) {
      const answer = await app.inject({ url: "/api/auth/validate", headers: bearer(token) });
      expect(answer.json()).toMatchObject({ code: "INVALID_SESSION", reason: "signed_out" });
    }

    const rotating = await devSignIn(app, { email: "reasons.rotate@example.com", name: "Rotate" });
    const refreshed = await app.inject({ method: "POST", url: "/api/auth/refresh", headers: bearer(rotating.token) });
    expect(refreshed.statusCode).toBe(200);
    const again = await app.inject({ method: "POST", url: "/api/auth/refresh", headers: bearer(rotating.token) });
    expect(again.json()).toMatchObject({ code: "INVALID_SESSION", reason: "signed_out" });
  });

  it("expired: past its sliding or its absolute end, a token says expired (signing out after does not change it)", async () => {
    const idle = await devSignIn(app, { email: "reasons.idle@example.com", name: "Idle" });
    await app.database.db.execute(
      sql`update sessions set expires_at = now() - interval '1 minute' where token_hash = ${sha256Hex(idle.token)}`,
    );
    await everyOperationSays(idle.token, "expired");

    const old = await devSignIn(app, { email: "reasons.old@example.com", name: "Old" });
    const fresh = await devSignIn(app, { email: "reasons.old@example.com", name: "Old" });
    await app.database.db.execute(
      sql`update sessions set absolute_expires_at = now() - interval '1 minute' where token_hash = ${sha256Hex(old.token)}`,
    );
    // Sign-out everywhere stamps every unrevoked row, the expired one too: it had ended before, by expiry.
    expect(
      (await app.inject({ method: "POST", url: "/api/auth/logout-all", headers: bearer(fresh.token) })).statusCode,
    ).toBe(200);
    const answer = await app.inject({ url: "/api/auth/validate", headers: bearer(old.token) });
    expect(answer.json()).toMatchObject({ code: "INVALID_SESSION", reason: "expired" });
  });

  it("expired, by the service's clock: a session left alone past its term ends as expired", async () => {
    const { token } = await devSignIn(app, { email: "reasons.clock@example.com", name: "Clock" });
    const later = (days: number) =>
      new AuthService(app.database.db, {} as IdentityProvider, {
        publicOrigin: "http://localhost",
        sessionTtlDays: 30,
        sessionMaxDays: 90,
        now: () => new Date(Date.now() + days * 86_400_000),
      });
    expect(await later(1).endReason(token)).toBeNull();
    expect(await later(1).authenticate(token)).not.toBeNull();
    expect(await later(31).authenticate(token)).toBeNull();
    expect(await later(31).endReason(token)).toBe("expired");
  });

  it("account erased: every token the erasure ended says account_erased; the tombstone keeps a hash and an end only", async () => {
    const email = "reasons.erased@example.com";
    const laptop = await devSignIn(app, { email, name: "Erased Person" });
    const phone = await devSignIn(app, { email, name: "Erased Person" });
    const [ends] = await rows(
      sql`select absolute_expires_at from sessions where token_hash = ${sha256Hex(laptop.token)}`,
    );
    const erased = await erase(email);
    expect(erased.statusCode, erased.body).toBe(200);

    await everyOperationSays(laptop.token, "account_erased");
    const answer = await app.inject({ url: "/api/auth/validate", headers: bearer(phone.token) });
    expect(answer.json()).toMatchObject({ code: "INVALID_SESSION", reason: "account_erased" });

    const tombstones = await rows(sql`select * from erased_sessions order by ends_at`);
    expect(tombstones).toHaveLength(2);
    for (const row of tombstones) expect(Object.keys(row).sort()).toEqual(["ends_at", "token_hash"]);
    expect(tombstones.map((row) => row.token_hash).sort()).toEqual(
      [sha256Hex(laptop.token), sha256Hex(phone.token)].sort(),
    );
    const laptopEnd = tombstones.find((row) => row.token_hash === sha256Hex(laptop.token))!.ends_at;
    expect(new Date(String(laptopEnd)).getTime()).toBe(new Date(String(ends!.absolute_expires_at)).getTime());
    expect(JSON.stringify(tombstones)).not.toContain(email);
  });

  it("a sign-in after the erasure is a new account; its token is live, the old ones still say account_erased", async () => {
    const email = "reasons.back@example.com";
    const before = await devSignIn(app, { email, name: "Back Again" });
    expect((await erase(email)).statusCode).toBe(200);
    const after = await devSignIn(app, { email, name: "Back Again" });
    expect(after.customer.id).not.toBe(before.customer.id);
    expect((await app.inject({ url: "/api/auth/validate", headers: bearer(after.token) })).statusCode).toBe(200);
    const old = await app.inject({ url: "/api/auth/validate", headers: bearer(before.token) });
    expect(old.json()).toMatchObject({ reason: "account_erased" });
  });

  it("a token the service never issued gets no reason, whatever its shape", async () => {
    for (const token of [newOpaqueToken(), "x".repeat(25), newOpaqueToken(90)]) {
      await everyOperationSays(token, null);
    }
    const missing = await app.inject({ url: "/api/auth/validate" });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).not.toHaveProperty("reason");
  });

  it("the retention job purges a tombstone once its session would have ended; the token then says nothing", async () => {
    const email = "reasons.purged@example.com";
    const { token } = await devSignIn(app, { email, name: "Purged" });
    expect((await erase(email)).statusCode).toBe(200);
    const [tombstone] = await rows(sql`select ends_at from erased_sessions where token_hash = ${sha256Hex(token)}`);
    const end = new Date(String(tombstone!.ends_at));

    // Retention as it would run then (it also ends this file's other sessions: the admin signs in again below).
    await applyRetention(app.database.db, new Date(end.getTime() - 1_000));
    expect(await rows(sql`select 1 from erased_sessions where token_hash = ${sha256Hex(token)}`)).toHaveLength(1);
    expect((await app.inject({ url: "/api/auth/validate", headers: bearer(token) })).json()).toMatchObject({
      reason: "account_erased",
    });

    const justAfter = await applyRetention(app.database.db, new Date(end.getTime() + 1_000));
    expect(justAfter.erased_sessions).toBeGreaterThanOrEqual(1);
    expect(await rows(sql`select 1 from erased_sessions where token_hash = ${sha256Hex(token)}`)).toEqual([]);
    const answer = await app.inject({ url: "/api/auth/validate", headers: bearer(token) });
    expect(answer.statusCode).toBe(401);
    expect(answer.json()).not.toHaveProperty("reason");
    admin = (await devSignIn(app, { email: ADMIN, name: "Reasons Admin" })).token;
  });

  it("the OpenAPI document declares `reason` on every bearer operation's 401, with the contract's values", async () => {
    const document = await openApiDocument(app);
    for (const operation of guarded) {
      const responses = (
        document.paths[operation.path]![operation.method.toLowerCase()] as {
          responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
        }
      ).responses;
      const schema = responses["401"]?.content?.["application/json"]?.schema;
      expect(schema?.properties?.reason?.enum, operation.key).toEqual([...SESSION_END_REASONS]);
      expect(schema?.required ?? [], operation.key).not.toContain("reason");
    }
  });
});

/** The live stream's `signed-out` event carries the reason too, so an open dashboard can say why at once. */
describe("the live stream's signed-out event", () => {
  async function openStream(token: string) {
    const controller = new AbortController();
    const response = await fetch(`${origin}/api/customer/events`, {
      headers: { ...bearer(token), accept: "text/event-stream" },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    /** The data of the next event named `name` (earlier ones are skipped), within 10 s. */
    async function next(name: string): Promise<unknown> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const match = new RegExp(`event: ${name}\\ndata: (.*)\\n\\n`).exec(buffer);
        if (match) {
          buffer = buffer.slice(match.index + match[0].length);
          return JSON.parse(match[1]!);
        }
        if (Date.now() > deadline) throw new Error(`no ${name} event; got ${buffer}`);
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended before ${name}; got ${buffer}`);
        buffer += value;
      }
    }
    return { next, close: () => controller.abort() };
  }

  it("says signed_out after a sign-out and account_erased after an erasure", async () => {
    const pings = vi.spyOn(app.liveEvents, "pingAll").mockResolvedValue(undefined);
    try {
      const out = await devSignIn(app, { email: "reasons.live-out@example.com", name: "Live Out" });
      const outStream = await openStream(out.token);
      await outStream.next("ready");
      await app.inject({ method: "POST", url: "/api/auth/logout", headers: bearer(out.token) });
      expect(await outStream.next("signed-out")).toEqual({ reason: "signed_out" });

      const email = "reasons.live-erased@example.com";
      const gone = await devSignIn(app, { email, name: "Live Erased" });
      const goneStream = await openStream(gone.token);
      await goneStream.next("ready");
      expect((await erase(email)).statusCode).toBe(200);
      expect(await goneStream.next("signed-out")).toEqual({ reason: "account_erased" });
    } finally {
      pings.mockRestore();
    }
  });
});
