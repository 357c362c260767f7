/**
 * Sign-in from the attacker's side: a code and state captured in one browser replayed in another (login CSRF),
 * a session token planted in an address (session fixation), a session kept alive forever, a stolen session the
 * owner cannot end, and a development issuer filled with made-up accounts.
 */
import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { retentionJob } from "../src/jobs/retention";
import { sha256Hex } from "../src/lib/tokens";
import { browseDevSignIn, devSignIn } from "./helpers/dev-sign-in";
import { bearer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ app, close } = await createTestApp({ backgroundJobs: false }));
});
afterAll(() => close());

const OTHER_BROWSER = `flotilla_signin=${"o".repeat(43)}`;

function callback(payload: Record<string, unknown>, cookie?: string) {
  return app.inject({
    method: "POST",
    url: "/api/auth/google/callback",
    payload,
    headers: cookie ? { cookie } : {},
  });
}

async function sessionCount(): Promise<number> {
  const result = (await app.database.db.execute(sql`select count(*)::int as n from sessions`)) as unknown as {
    rows: { n: number }[];
  };
  return result.rows[0]!.n;
}

describe("a sign-in completes only in the browser that started it", () => {
  it("login CSRF: the attacker's code and state, opened in the victim's browser, sign nobody in", async () => {
    // The attacker signs in as themself in their own browser and stops before the callback.
    const captured = await browseDevSignIn(app, { email: "attacker@example.com", name: "Attacker" });
    const before = await sessionCount();
    // The victim's browser has no sign-in cookie, or its own: either way the transaction is not theirs.
    for (const cookie of [undefined, OTHER_BROWSER]) {
      const response = await callback({ code: captured.code, state: captured.state }, cookie);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ success: false, code: "BROWSER_MISMATCH" });
    }
    expect(await sessionCount()).toBe(before);
    // The transaction was not burnt by the victim's attempts: the attacker's own browser can still finish it.
    const own = await callback({ code: captured.code, state: captured.state }, captured.cookie);
    expect(own.statusCode).toBe(200);
  });

  it("the sign-in cookie is HttpOnly, SameSite=Lax; over https a __Host- cookie (Secure, Path=/) that nobody else can plant", async () => {
    const start = await app.inject({ method: "POST", url: "/api/auth/google/url", payload: {} });
    const line = String(start.headers["set-cookie"]);
    expect(line).toMatch(/^flotilla_signin=[\w-]{43}; Max-Age=\d+; Path=\/api\/auth; HttpOnly; SameSite=Lax$/);
    const secure = await createTestApp({ publicOrigin: "https://flotilla.example" });
    try {
      const https = await secure.app.inject({ method: "POST", url: "/api/auth/google/url", payload: {} });
      expect(String(https.headers["set-cookie"])).toMatch(
        /^__Host-flotilla_signin=[\w-]{43}; Max-Age=\d+; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
      );
    } finally {
      await secure.close();
    }
  });

  it("a browser keeps its sign-in cookie across sign-ins (a second tab does not break the first)", async () => {
    const first = await browseDevSignIn(app, { email: "tabs@example.com", name: "Tabs" });
    const second = await browseDevSignIn(app, { email: "tabs@example.com", name: "Tabs", cookie: first.cookie });
    expect(second.cookie).toBe(first.cookie);
    expect((await callback({ code: first.code, state: first.state }, first.cookie)).statusCode).toBe(200);
    expect((await callback({ code: second.code, state: second.state }, first.cookie)).statusCode).toBe(200);
  });
});

describe("a token in the address never signs a browser into a session it did not start", () => {
  it("session fixation: someone else's valid token is refused; the browser's own is accepted", async () => {
    const victimBrowser = await browseDevSignIn(app, { email: "owner@example.com", name: "Owner" });
    const own = (await callback({ code: victimBrowser.code, state: victimBrowser.state }, victimBrowser.cookie)).json()
      .data.token as string;
    const attacker = await devSignIn(app, { email: "fixer@example.com", name: "Fixer" });

    // /auth/callback?token=<attacker's token> in the victim's browser: the page asks the server to adopt it.
    const planted = await app.inject({
      method: "POST",
      url: "/api/auth/adopt",
      headers: { ...bearer(attacker.token), cookie: victimBrowser.cookie },
    });
    expect(planted.statusCode).toBe(401);
    expect(planted.json()).toMatchObject({ success: false, code: "TOKEN_NOT_FROM_THIS_BROWSER" });

    // Without any cookie (a fresh browser) too.
    const fresh = await app.inject({ method: "POST", url: "/api/auth/adopt", headers: bearer(attacker.token) });
    expect(fresh.statusCode).toBe(401);

    // The browser's own session, from its own sign-in: accepted.
    const adopted = await app.inject({
      method: "POST",
      url: "/api/auth/adopt",
      headers: { ...bearer(own), cookie: victimBrowser.cookie },
    });
    expect(adopted.statusCode).toBe(200);
    expect(adopted.json().user.email).toBe("owner@example.com");
  });

  it("an unknown or expired token in the address is an invalid session, not a browser question", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/api/auth/adopt",
      headers: { ...bearer("x".repeat(43)), cookie: OTHER_BROWSER },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe("INVALID_SESSION");
  });
});

describe("sessions end", () => {
  it("sliding expiry never passes the absolute lifetime (SESSION_MAX_DAYS), however often the session is used", async () => {
    const { token } = await devSignIn(app, { email: "forever@example.com", name: "Forever" });
    const hash = sha256Hex(token);
    // Signed in 89 days ago, used every hour since: the next use would slide past day 90.
    await app.database.db.execute(sql`
      update sessions set created_at = now() - interval '89 days', last_used_at = now() - interval '2 hours',
        absolute_expires_at = now() + interval '1 day'
      where token_hash = ${hash}`);
    expect((await app.inject({ url: "/api/auth/validate", headers: bearer(token) })).statusCode).toBe(200);
    const [row] = (
      (await app.database.db.execute(
        sql`select expires_at <= absolute_expires_at as capped from sessions where token_hash = ${hash}`,
      )) as unknown as { rows: { capped: boolean }[] }
    ).rows;
    expect(row!.capped).toBe(true);
    // Past the absolute end, the session is over even though it was used a minute ago.
    await app.database.db.execute(sql`
      update sessions set absolute_expires_at = now() - interval '1 second', last_used_at = now() - interval '1 minute'
      where token_hash = ${hash}`);
    expect((await app.inject({ url: "/api/auth/validate", headers: bearer(token) })).statusCode).toBe(401);
  });

  it("refresh rotates the token but keeps the session's absolute end", async () => {
    const { token } = await devSignIn(app, { email: "rotate@example.com", name: "Rotate" });
    await app.database.db.execute(
      sql`update sessions set absolute_expires_at = now() + interval '2 hours' where token_hash = ${sha256Hex(token)}`,
    );
    const refreshed = await app.inject({ method: "POST", url: "/api/auth/refresh", headers: bearer(token) });
    const next = refreshed.json().data.token as string;
    const [row] = (
      (await app.database.db.execute(
        sql`select absolute_expires_at < now() + interval '3 hours' as kept from sessions where token_hash = ${sha256Hex(next)}`,
      )) as unknown as { rows: { kept: boolean }[] }
    ).rows;
    expect(row!.kept).toBe(true);
    expect(new Date(refreshed.json().data.expires_at).getTime()).toBeLessThan(Date.now() + 3 * 60 * 60 * 1000);
  });

  it("sign out everywhere: every session of the customer ends, nobody else's", async () => {
    const laptop = await devSignIn(app, { email: "everywhere@example.com", name: "Everywhere" });
    const phone = await devSignIn(app, { email: "everywhere@example.com", name: "Everywhere" });
    const stranger = await devSignIn(app, { email: "stranger@example.com", name: "Stranger" });
    const out = await app.inject({ method: "POST", url: "/api/auth/logout-all", headers: bearer(laptop.token) });
    expect(out.statusCode).toBe(200);
    expect(out.json()).toMatchObject({ success: true, revoked: 2 });
    for (const token of [laptop.token, phone.token]) {
      expect((await app.inject({ url: "/api/auth/validate", headers: bearer(token) })).statusCode).toBe(401);
    }
    expect((await app.inject({ url: "/api/auth/validate", headers: bearer(stranger.token) })).statusCode).toBe(200);
  });
});

describe("the development issuer", () => {
  it("its page says why it is on (loopback only) and refuses direction-changing names", async () => {
    const start = await app.inject({ method: "POST", url: "/api/auth/google/url", payload: {} });
    const authUrl = new URL(start.json().authUrl);
    let response = await app.inject({
      url: `${authUrl.pathname}${authUrl.search}`,
      headers: { host: "localhost:3000" },
    });
    const cookies: string[] = [];
    for (let hops = 0; hops < 5 && response.statusCode >= 300; hops++) {
      const set = response.headers["set-cookie"];
      for (const line of Array.isArray(set) ? set : set ? [set] : []) cookies.push(line.split(";")[0]!);
      response = await app.inject({
        url: String(response.headers.location).replace(/^https?:\/\/[^/]+/, ""),
        headers: { host: "localhost:3000", cookie: cookies.join("; ") },
      });
    }
    expect(response.body).toContain("only listens on this machine");
    const action = /action="([^"]+)"/.exec(response.body)![1]!;
    const spoof = await app.inject({
      method: "POST",
      url: action,
      headers: {
        host: "localhost:3000",
        cookie: cookies.join("; "),
        "content-type": "application/x-www-form-urlencoded",
      },
      payload: new URLSearchParams({ email: "spoof@example.com", name: "Admin\u202egnp.exe" }).toString(),
    });
    expect(spoof.statusCode).toBe(400);
    expect(spoof.body).toContain("direction-changing");
  });

  it("its accounts and artefacts live in shared storage, expire, and are deleted by retention", async () => {
    const { code, state, cookie } = await browseDevSignIn(app, { email: "stored@example.com", name: "Stored" });
    const rows = async () =>
      (
        (await app.database.db.execute(sql`select model, expires_at from oidc_store`)) as unknown as {
          rows: { model: string; expires_at: string | null }[];
        }
      ).rows;
    const models = new Set((await rows()).map((row) => row.model));
    for (const model of ["SigningKey", "DevAccount", "Interaction", "Session", "AuthorizationCode"]) {
      expect(models, model).toContain(model);
    }
    // Every row but the issuer's key expires within the hour.
    for (const row of await rows()) {
      if (row.model === "SigningKey") expect(row.expires_at).toBeNull();
      else expect(new Date(row.expires_at!).getTime()).toBeLessThanOrEqual(Date.now() + 60 * 60 * 1000 + 5_000);
    }
    expect((await callback({ code, state }, cookie)).statusCode).toBe(200);
    // Two hours later, retention leaves only the key.
    await app.database.db.execute(
      sql`update oidc_store set expires_at = now() - interval '2 hours' where expires_at is not null`,
    );
    await app.jobs.runNow(retentionJob);
    expect((await rows()).map((row) => row.model)).toEqual(["SigningKey"]);
  });
});
