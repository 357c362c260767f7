/**
 * RFC 9700 (Best Current Practice for OAuth 2.0 Security) — the items that apply to this relying party
 * (a confidential client doing authorization code + PKCE + OpenID Connect, then holding its own opaque
 * bearer sessions), each proven by a test named after the item. The issuer is the in-process development
 * issuer; the same code talks to Google in production.
 *
 * Already proven in auth.test.ts, and not repeated here:
 *   - S256 in the authorization URL, POST form, with a client-chosen redirectUrl ignored ("returns an
 *     authorization URL with S256 PKCE, state, nonce and the server's own redirect URI");
 *   - state mismatch, missing state, sequential reuse of code+state, expired transaction, wrong nonce,
 *     wrong PKCE verifier, unknown code ("sign-in failures give a 4xx and no session");
 *   - the basic return-path vectors (//, https:, /\, %2F%2F, javascript:);
 *   - the sessions table holds SHA-256 hashes; logout revokes; refresh rotates once; an expired session
 *     is refused by /api/auth/validate.
 */
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devSignIn } from "./helpers/dev-sign-in";
import { bearer } from "./helpers/licensed-customer";
import { apiOperations, operationUrl } from "./helpers/openapi";
import { createTestApp } from "./helpers/test-app";

const ORIGIN = "http://localhost:3000";
const HOST = "localhost:3000";
const REDIRECT_URI = `${ORIGIN}/auth/callback`;
const ISSUER = `${ORIGIN}/oidc`;

let app: FastifyInstance;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, close } = await createTestApp());
});
afterAll(async () => close());

const sha256Hex = (value: string) => createHash("sha256").update(value).digest("hex");

async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await app.database.db.execute(query)) as unknown as { rows: T[] }).rows;
}

async function sessionCount(): Promise<number> {
  return (await rows<{ n: number }>(sql`select count(*)::int as n from sessions`))[0]!.n;
}

/** This file plays one browser: its sign-in cookie goes with every start and callback. */
const BROWSER_COOKIE = `flotilla_signin=${"b".repeat(43)}`;

/** Starts a sign-in; returns the authorization URL the server built. */
async function start(payload: Record<string, unknown> = {}): Promise<URL> {
  const response = await app.inject({
    method: "POST",
    url: "/api/auth/google/url",
    payload,
    headers: { cookie: BROWSER_COOKIE },
  });
  expect(response.statusCode).toBe(200);
  return new URL(response.json().authUrl);
}

async function transactionFor(state: string) {
  const [row] = await rows<{
    code_verifier: string;
    nonce: string;
    return_path: string;
    created_at: string;
    expires_at: string;
  }>(
    sql`select code_verifier, nonce, return_path, created_at, expires_at from login_transactions where state_hash = ${sha256Hex(state)}`,
  );
  return row ?? null;
}

interface Browse {
  /** Where the issuer finally sent the browser (the callback, or wherever it was told to go). */
  landed: URL | null;
  /** The last response when the flow stopped on a page instead. */
  last: LightMyRequestResponse;
}

/**
 * The browser's side at the issuer, from an authorization URL (possibly tampered with): follow redirects
 * with a cookie jar, submit the Email/Name form, stop when the issuer sends the browser off its own paths.
 */
async function browse(
  authUrl: URL,
  identity = { email: "rfc9700@example.com", name: "Best Practice" },
): Promise<Browse> {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
  const keep = (response: LightMyRequestResponse) => {
    const header = response.headers["set-cookie"];
    for (const line of Array.isArray(header) ? header : header ? [header] : []) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
  };
  let response = await app.inject({ url: `${authUrl.pathname}${authUrl.search}`, headers: { host: HOST } });
  keep(response);
  for (let hops = 0; hops < 10; hops++) {
    if (response.statusCode >= 300 && response.statusCode < 400) {
      const location = new URL(String(response.headers.location), ORIGIN);
      if (location.origin !== ORIGIN || !location.pathname.startsWith("/oidc"))
        return { landed: location, last: response };
      response = await app.inject({
        url: `${location.pathname}${location.search}`,
        headers: { host: HOST, cookie: cookie() },
      });
      keep(response);
    } else if (response.statusCode === 200 && /name="email"/.test(response.body)) {
      const action = /action="([^"]+)"/.exec(response.body)![1]!;
      response = await app.inject({
        method: "POST",
        url: action,
        headers: { host: HOST, cookie: cookie(), "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams(identity).toString(),
      });
      keep(response);
    } else {
      return { landed: null, last: response };
    }
  }
  throw new Error("too many redirects");
}

/** A complete trip to the issuer and back to the callback page: the parameters the page receives. */
async function authorize(payload: Record<string, unknown> = {}, identity?: { email: string; name: string }) {
  const authUrl = await start(payload);
  const { landed } = await browse(authUrl, identity);
  expect(landed?.pathname).toBe("/auth/callback");
  return { authUrl, callback: landed! };
}

function callback(body: Record<string, unknown>) {
  return app.inject({
    method: "POST",
    url: "/api/auth/google/callback",
    payload: body,
    headers: { cookie: BROWSER_COOKIE },
  });
}

function paramsOf(url: URL) {
  return { code: url.searchParams.get("code")!, state: url.searchParams.get("state")! };
}

describe("RFC 9700 checklist for the relying party", () => {
  it("§2.1.1 / §4.8 PKCE: S256 always sent (POST and GET starts), the challenge is SHA-256 of a server-held verifier, never plain", async () => {
    const challenges = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const url =
        i % 2 === 0
          ? await start({ state: "/dashboard" })
          : new URL(
              (await app.inject({ method: "GET", url: "/api/auth/google/url?state=%2Fdocs" })).json().authUrl as string,
            );
      expect(url.searchParams.get("code_challenge_method")).toBe("S256");
      const challenge = url.searchParams.get("code_challenge")!;
      expect(challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
      challenges.add(challenge);
      // The verifier never leaves the server; the challenge is its S256 transform.
      const transaction = await transactionFor(url.searchParams.get("state")!);
      expect(transaction).not.toBeNull();
      expect(transaction!.code_verifier.length).toBeGreaterThanOrEqual(43);
      expect(url.toString()).not.toContain(transaction!.code_verifier);
      expect(createHash("sha256").update(transaction!.code_verifier).digest("base64url")).toBe(challenge);
    }
    expect(challenges.size).toBe(6);
  });

  it("§4.8 PKCE downgrade: an authorization request stripped of its challenge is refused by the issuer (no code issued)", async () => {
    const url = await start();
    url.searchParams.delete("code_challenge");
    url.searchParams.delete("code_challenge_method");
    const { landed, last } = await browse(url);
    // Either the issuer shows an error page, or it reports the error to the callback — never a code.
    if (landed) {
      expect(landed.searchParams.get("code")).toBeNull();
      expect(landed.searchParams.get("error")).toBe("invalid_request");
    } else {
      expect(last.statusCode).toBeGreaterThanOrEqual(400);
    }
  });

  it("§4.7 CSRF: state is bound to a single-use, short-lived server-side transaction, stored only as a hash", async () => {
    const url = await start({ state: "/pricing" });
    const state = url.searchParams.get("state")!;
    // 256 bits from the CSPRNG, base64url.
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const transaction = await transactionFor(state);
    expect(transaction).not.toBeNull();
    const lifetime = new Date(transaction!.expires_at).getTime() - new Date(transaction!.created_at).getTime();
    expect(lifetime).toBeGreaterThan(0);
    expect(lifetime).toBeLessThanOrEqual(10 * 60 * 1000);
    // The plaintext state is nowhere in the table.
    const dump = await rows<{ text: string }>(
      sql`select coalesce(json_agg(t)::text, '') as text from login_transactions t`,
    );
    expect(dump[0]!.text).not.toContain(state);
    expect(dump[0]!.text).toContain(sha256Hex(state));

    // A state is good for one attempt, even a failed one: a wrong code burns it, the right code is then refused.
    const landed = (await browse(url)).landed!;
    const { code } = paramsOf(landed);
    const before = await sessionCount();
    expect((await callback({ code: "not-the-code", state })).statusCode).toBe(400);
    const retried = await callback({ code, state });
    expect(retried.statusCode).toBe(400);
    expect(retried.json().code).toBe("INVALID_STATE");
    expect(await sessionCount()).toBe(before);
  });

  it("§4.1 exact redirect URI: the server's own /auth/callback whatever redirectUrl the client sends (GET and POST)", async () => {
    const attempts = [
      "https://evil.example/auth/callback",
      `${ORIGIN}.evil.example/auth/callback`,
      `${ORIGIN}@evil.example/auth/callback`,
      `${REDIRECT_URI}/../../steal`,
      `${REDIRECT_URI}?next=https://evil.example`,
      `${REDIRECT_URI}#https://evil.example`,
      "//evil.example/auth/callback",
      "",
    ];
    for (const redirectUrl of attempts) {
      const viaPost = await start({ redirectUrl });
      const viaGet = new URL(
        (
          await app.inject({
            method: "GET",
            url: `/api/auth/google/url?${new URLSearchParams({ redirectUrl })}`,
          })
        ).json().authUrl as string,
      );
      for (const url of [viaPost, viaGet]) expect(url.searchParams.get("redirect_uri")).toBe(REDIRECT_URI);
    }
  });

  it("§4.1.3 exact redirect URI at the issuer: a tampered redirect_uri is refused, the browser is never sent there", async () => {
    for (const tampered of [
      "https://evil.example/auth/callback",
      `${REDIRECT_URI}/extra`,
      `${REDIRECT_URI}?x=1`,
      `${ORIGIN}/auth/callbac`,
      REDIRECT_URI.toUpperCase(),
    ]) {
      const url = await start();
      url.searchParams.set("redirect_uri", tampered);
      const { landed, last } = await browse(url);
      expect(landed?.toString() ?? "", tampered).not.toContain("evil.example");
      expect(landed, `${tampered}: the issuer redirected to ${landed}`).toBeNull();
      expect(last.statusCode, tampered).toBeGreaterThanOrEqual(400);
    }
  });

  it("§4.5.3.2 nonce: a fresh nonce per transaction, sent in the request and kept server-side for the ID token check", async () => {
    const nonces = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const url = await start();
      const nonce = url.searchParams.get("nonce")!;
      expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(nonce).not.toBe(url.searchParams.get("state"));
      expect((await transactionFor(url.searchParams.get("state")!))!.nonce).toBe(nonce);
      nonces.add(nonce);
    }
    expect(nonces.size).toBe(5);
    // The check itself (a tampered nonce is rejected) is auth.test.ts "wrong nonce".
  });

  it("§4.5 authorization code injection: a code only completes the transaction it was issued for (PKCE + nonce)", async () => {
    const victim = await authorize({}, { email: "victim@example.com", name: "Victim" });
    const attacker = await authorize({}, { email: "attacker@example.com", name: "Attacker" });
    const before = await sessionCount();
    // The attacker injects the victim's code into their own transaction: PKCE verifier and nonce differ.
    const injected = await callback({ code: paramsOf(victim.callback).code, state: paramsOf(attacker.callback).state });
    expect(injected.statusCode).toBe(400);
    expect(injected.json()).toMatchObject({ success: false, code: "SIGN_IN_REJECTED" });
    expect(await sessionCount()).toBe(before);
  });

  it("§4.5 / §2.1.1 authorization code single use: a replayed code fails with a fresh state, and concurrent double submits give one session", async () => {
    const first = await authorize();
    const { code, state } = paramsOf(first.callback);
    const before = await sessionCount();
    // Five copies of the same callback at once (a double-clicked link, a replaying proxy).
    const answers = await Promise.all(Array.from({ length: 5 }, () => callback({ code, state })));
    expect(answers.filter((answer) => answer.statusCode === 200)).toHaveLength(1);
    for (const answer of answers.filter((a) => a.statusCode !== 200)) {
      expect(answer.statusCode).toBe(400);
      expect(answer.json()).toMatchObject({ success: false, error: expect.any(String) });
    }
    expect(await sessionCount()).toBe(before + 1);

    // The same code with a brand-new transaction: the issuer has consumed it (and the PKCE verifier differs).
    const fresh = await start();
    const replay = await callback({ code, state: fresh.searchParams.get("state")! });
    expect(replay.statusCode).toBe(400);
    expect(await sessionCount()).toBe(before + 1);
  });

  it("§4.3 / §2.1.2 no tokens in URLs: code flow only; the callback and refresh answer JSON bodies, never a redirect", async () => {
    const { authUrl, callback: landed } = await authorize({ state: "/dashboard" });
    // Authorization code flow, no implicit or hybrid response types.
    expect(authUrl.searchParams.get("response_type")).toBe("code");
    for (const name of ["access_token", "id_token", "token", "refresh_token", "client_secret", "code_verifier"]) {
      expect(authUrl.searchParams.has(name), name).toBe(false);
    }
    // What the issuer sends back through the browser: code, state and iss only.
    expect([...landed.searchParams.keys()].sort()).toEqual(["code", "iss", "state"]);
    expect(landed.hash).toBe("");

    const answer = await callback(paramsOf(landed));
    expect(answer.statusCode).toBe(200);
    expect(answer.headers["content-type"]).toMatch(/^application\/json/);
    expect(answer.headers["cache-control"]).toBe("no-store");
    expect(answer.headers.location).toBeUndefined();
    expect(answer.headers["set-cookie"]).toBeUndefined();
    expect(answer.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
    const { token, redirectTo } = answer.json().data;
    expect(redirectTo).toBe("/dashboard");

    const refreshed = await app.inject({ method: "POST", url: "/api/auth/refresh", headers: bearer(token) });
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.headers["cache-control"]).toBe("no-store");
    expect(refreshed.headers.location).toBeUndefined();

    // A bearer token is only ever read from the Authorization header, never from the URL (RFC 6750 §2.3).
    const newToken = refreshed.json().data.token as string;
    for (const url of [
      `/api/auth/validate?access_token=${newToken}`,
      `/api/customer/dashboard?access_token=${newToken}`,
      `/api/auth/profile?token=${newToken}`,
    ]) {
      expect((await app.inject(url)).statusCode, url).toBe(401);
    }
  });

  it("§4.11.1 client as open redirector: the return path is a same-origin path whatever the sign-in was started with", async () => {
    const vectors = [
      "/.//evil.example",
      "/..//evil.example",
      "/a/..//evil.example",
      "/%2e//evil.example",
      "/%2e%2e//evil.example",
      "/./%2F/evil.example",
      "/\t/evil.example",
      "/%09/evil.example",
      "/%5Cevil.example",
      "/%5C%5Cevil.example",
      "\\\\evil.example",
      "https:evil.example",
      "HTTPS://evil.example",
      `${ORIGIN}@evil.example/`,
      " //evil.example",
      "/\u3002/evil.example",
      `/${"a/".repeat(300)}`,
    ];
    for (const vector of vectors) {
      const url = await start({ state: vector });
      const { return_path } = (await transactionFor(url.searchParams.get("state")!))!;
      const resolved = new URL(return_path, "https://app.example");
      expect(resolved.origin, `${JSON.stringify(vector)} → ${return_path}`).toBe("https://app.example");
      expect(return_path, JSON.stringify(vector)).toMatch(/^\/(?![/\\])/);
    }
    // End to end: what the callback hands the page.
    const signedIn = await devSignIn(app, {
      email: "redirect2@example.com",
      name: "Redirect",
      returnPath: "/.//evil.example",
    });
    expect(signedIn.redirectTo).toBe("/dashboard");
  });

  it("§4.4.2.1 mix-up defense via issuer identification (RFC 9207): an iss other than the issuer is rejected", async () => {
    const discovery = (
      await app.inject({ url: "/oidc/.well-known/openid-configuration", headers: { host: HOST } })
    ).json();
    expect(discovery.issuer).toBe(ISSUER);
    expect(discovery.authorization_response_iss_parameter_supported).toBe(true);

    for (const iss of ["https://evil.example", `${ISSUER}/`, ISSUER.toUpperCase(), "https://accounts.google.com", ""]) {
      const { callback: landed } = await authorize();
      expect(landed.searchParams.get("iss")).toBe(ISSUER);
      const before = await sessionCount();
      const answer = await callback({ ...paramsOf(landed), iss });
      expect(answer.statusCode, `iss=${JSON.stringify(iss)}`).toBe(400);
      expect(answer.json()).toMatchObject({ success: false, error: expect.any(String) });
      expect(await sessionCount()).toBe(before);
    }
    // The issuer's own value is accepted.
    const { callback: landed } = await authorize();
    const accepted = await callback({ ...paramsOf(landed), iss: landed.searchParams.get("iss") });
    expect(accepted.statusCode).toBe(200);
  });

  it("§4.16 clickjacking: the sign-in page and the API refuse to be framed", async () => {
    const url = await start();
    // browse() submits the form; an empty email re-renders it with a 400: the sign-in page, with its own CSP.
    const { landed, last } = await browse(url, { email: "", name: "" });
    expect(landed).toBeNull();
    expect(last.body).toContain('name="email"');
    expect(last.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    const api = await app.inject("/api/auth/validate");
    expect(api.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  });

  it("session tokens stored hashed: no table in the database holds a bearer token, a state or a code in plaintext", async () => {
    const { callback: landed } = await authorize();
    const { code, state } = paramsOf(landed);
    const token = (await callback({ code, state })).json().data.token as string;
    const rotated = (await app.inject({ method: "POST", url: "/api/auth/refresh", headers: bearer(token) })).json().data
      .token as string;
    const tables = await rows<{ table_name: string }>(
      sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
    );
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(["sessions", "login_transactions"]));
    for (const { table_name } of tables) {
      const [dump] = await rows<{ text: string }>(
        sql`select coalesce(json_agg(t)::text, '') as text from ${sql.identifier(table_name)} t`,
      );
      for (const secret of [token, rotated, state, code]) {
        expect(dump!.text.includes(secret), `${table_name} holds a plaintext secret`).toBe(false);
      }
    }
    const hashes = (await rows<{ token_hash: string }>(sql`select token_hash from sessions`)).map((r) => r.token_hash);
    expect(hashes).toEqual(expect.arrayContaining([sha256Hex(token), sha256Hex(rotated)]));
  });

  it("§4.14 refresh rotation revokes server-side: concurrent refreshes of one token give one new session, the rest 401", async () => {
    const { token } = await devSignIn(app, { email: "rotate@example.com", name: "Rotate" });
    const before = await sessionCount();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => app.inject({ method: "POST", url: "/api/auth/refresh", headers: bearer(token) })),
    );
    const ok = answers.filter((answer) => answer.statusCode === 200);
    expect(ok).toHaveLength(1);
    expect(answers.filter((answer) => answer.statusCode === 401)).toHaveLength(4);
    expect(await sessionCount()).toBe(before + 1);
    const [old] = await rows<{ revoked: boolean }>(
      sql`select revoked_at is not null as revoked from sessions where token_hash = ${sha256Hex(token)}`,
    );
    expect(old!.revoked).toBe(true);
    const fresh = ok[0]!.json().data.token as string;
    expect((await app.inject({ url: "/api/customer/dashboard", headers: bearer(fresh) })).statusCode).toBe(200);
    expect((await app.inject({ url: "/api/customer/dashboard", headers: bearer(token) })).statusCode).toBe(401);
  });

  it("logout revokes server-side: that token is dead everywhere (refresh included), other sessions of the person live on", async () => {
    const laptop = await devSignIn(app, { email: "logout2@example.com", name: "Two Devices" });
    const phone = await devSignIn(app, { email: "logout2@example.com", name: "Two Devices" });
    expect(
      (await app.inject({ method: "POST", url: "/api/auth/logout", headers: bearer(laptop.token) })).statusCode,
    ).toBe(200);
    for (const [method, url] of [
      ["GET", "/api/auth/validate"],
      ["GET", "/api/customer/dashboard"],
      ["POST", "/api/auth/refresh"],
      ["POST", "/api/auth/logout"],
    ] as const) {
      expect((await app.inject({ method, url, headers: bearer(laptop.token) })).statusCode, url).toBe(401);
    }
    expect((await app.inject({ url: "/api/auth/validate", headers: bearer(phone.token) })).statusCode).toBe(200);
  });

  it("expired sessions refused on every bearer operation of the OpenAPI document, and using one does not revive it", async () => {
    const { token } = await devSignIn(app, { email: "expired2@example.com", name: "Expired" });
    await app.database.db.execute(
      sql`update sessions set expires_at = now() - interval '1 second', last_used_at = now() - interval '2 hours' where token_hash = ${sha256Hex(token)}`,
    );
    const [{ expires_at: before } = { expires_at: "" }] = await rows<{ expires_at: string }>(
      sql`select expires_at::text from sessions where token_hash = ${sha256Hex(token)}`,
    );
    const sessionsBefore = await sessionCount();
    const guarded = (await apiOperations(app)).filter((operation) => operation.bearer);
    expect(guarded.length).toBeGreaterThanOrEqual(9);
    for (const operation of guarded) {
      const pathValues = Object.fromEntries(
        operation.pathParams.map((p) => [p.name, p.name === "licenseKey" ? "FLOT-00000-00000-00000-00000-00000" : "m"]),
      );
      const response = await app.inject({
        method: operation.method as "GET",
        url: operationUrl(operation, pathValues),
        headers: bearer(token),
        ...(operation.body ? { payload: { tier: "free" } } : {}),
      });
      expect(response.statusCode, operation.key).toBe(401);
      expect(response.json()).toMatchObject({ success: false, code: "INVALID_SESSION" });
    }
    const [{ expires_at: after } = { expires_at: "" }] = await rows<{ expires_at: string }>(
      sql`select expires_at::text from sessions where token_hash = ${sha256Hex(token)}`,
    );
    expect(after).toBe(before);
    expect(await sessionCount()).toBe(sessionsBefore);
  });
});
