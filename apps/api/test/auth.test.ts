import { sql } from "drizzle-orm";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browseDevSignIn, devSignIn } from "./helpers/dev-sign-in";
import { bearer } from "./helpers/licensed-customer";
import { createTestApp } from "./helpers/test-app";

let app: FastifyInstance;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, close } = await createTestApp());
});
afterAll(async () => close());

async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await app.database.db.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

describe("sign-in with the development issuer (authorization code + PKCE + state + nonce)", () => {
  it("returns an authorization URL with S256 PKCE, state, nonce and the server's own redirect URI", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/api/auth/google/url",
      payload: { redirectUrl: "https://evil.example/steal", state: "/docs" },
    });
    expect(response.statusCode).toBe(200);
    const url = new URL(response.json().authUrl);
    expect(url.origin + url.pathname).toBe("http://localhost:3000/oidc/auth");
    expect(url.searchParams.get("redirect_uri")).toBe("http://localhost:3000/auth/callback");
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get("state")?.length).toBeGreaterThanOrEqual(32);
    expect(url.searchParams.get("nonce")?.length).toBeGreaterThanOrEqual(32);
    expect(url.searchParams.get("scope")).toBe("openid email profile");
    // The client's wish ("/docs") never travels to the provider: the state is the server's random value.
    expect(url.searchParams.get("state")).not.toContain("docs");
  });

  it("keeps the GET form of the URL endpoint", async () => {
    const response = await app.inject({ method: "GET", url: "/api/auth/google/url?state=%2Fpricing" });
    expect(response.statusCode).toBe(200);
    expect(response.json().authUrl).toContain("/oidc/auth?");
  });

  it("the development sign-in page has Email and Name fields and a Sign in button", async () => {
    const start = await app.inject({ method: "POST", url: "/api/auth/google/url", payload: {} });
    const authPath = new URL(start.json().authUrl).pathname + new URL(start.json().authUrl).search;
    const redirect = await app.inject({ method: "GET", url: authPath, headers: { host: "localhost:3000" } });
    expect(redirect.statusCode).toBe(303);
    const cookie = ([] as string[])
      .concat(redirect.headers["set-cookie"] ?? [])
      .map((line) => line.split(";")[0])
      .join("; ");
    const page = await app.inject({ method: "GET", url: String(redirect.headers.location), headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
    expect(page.body).toContain('<label for="email">Email</label>');
    expect(page.body).toContain('<label for="name">Name</label>');
    expect(page.body).toContain('<button type="submit">Sign in</button>');
    expect(page.body).toContain("Development sign-in");
    expect(page.headers["content-security-policy"]).toMatch(/default-src 'none'/);
  });

  it("completes the whole flow: customer created, session token returned, return path kept", async () => {
    const result = await devSignIn(app, {
      email: "Grace@Example.com",
      name: "Grace Hopper",
      returnPath: "/docs/agents",
    });
    expect(result.token).toMatch(/^[\w-]{43}$/);
    expect(result.customer).toMatchObject({ email: "Grace@Example.com", name: "Grace Hopper" });
    expect(result.redirectTo).toBe("/docs/agents");

    const validate = await app.inject({ method: "GET", url: "/api/auth/validate", headers: bearer(result.token) });
    expect(validate.statusCode).toBe(200);
    expect(validate.json()).toEqual({
      success: true,
      user: {
        id: result.customer.id,
        email: "Grace@Example.com",
        name: "Grace Hopper",
        avatar_url: null,
        is_admin: false,
      },
    });

    const profile = await app.inject({ method: "GET", url: "/api/auth/profile", headers: bearer(result.token) });
    expect(profile.statusCode).toBe(200);
    expect(profile.json().data).toMatchObject({ email: "Grace@Example.com", name: "Grace Hopper" });
  });

  it("stores only the SHA-256 of session tokens", async () => {
    const { token } = await devSignIn(app, { email: "hash@example.com", name: "Hash Check" });
    const stored = await rows<{ token_hash: string }>(sql`select token_hash from sessions`);
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.some((row) => row.token_hash === token)).toBe(false);
    const { createHash } = await import("node:crypto");
    expect(stored.map((row) => row.token_hash)).toContain(createHash("sha256").update(token).digest("hex"));
  });

  it("signing in again with the same email reuses the customer and updates the name", async () => {
    const first = await devSignIn(app, { email: "same@example.com", name: "First Name" });
    const second = await devSignIn(app, { email: "SAME@example.com", name: "Second Name" });
    expect(second.customer.id).toBe(first.customer.id);
    expect(second.customer.name).toBe("Second Name");
    expect(second.token).not.toBe(first.token);
  });

  it.each([
    ["//evil.example", "/dashboard"],
    ["https://evil.example", "/dashboard"],
    ["/\\evil.example", "/dashboard"],
    ["/%2F%2Fevil.example", "/dashboard"],
    ["%2F%2Fevil.example", "/dashboard"],
    ["javascript:alert(1)", "/dashboard"],
    ["/dashboard?tab=devices", "/dashboard?tab=devices"],
  ])("return path %j becomes %j", async (returnPath, expected) => {
    const result = await devSignIn(app, { email: "redirect@example.com", name: "Redirect Probe", returnPath });
    expect(result.redirectTo).toBe(expected);
  });
});

describe("sign-in failures give a 4xx and no session", () => {
  async function sessionCount() {
    const [row] = await rows<{ n: number }>(sql`select count(*)::int as n from sessions`);
    return row!.n;
  }

  async function expectRejected(payload: Record<string, unknown>, cookie = "") {
    const before = await sessionCount();
    const response = await app.inject({
      method: "POST",
      url: "/api/auth/google/callback",
      payload,
      headers: cookie ? { cookie } : {},
    });
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
    expect(response.json()).toMatchObject({ success: false });
    expect(response.json().error).toEqual(expect.any(String));
    expect(await sessionCount()).toBe(before);
    return response;
  }

  it("state mismatch (a state the server never issued)", async () => {
    const { code, cookie } = await browseDevSignIn(app, { email: "mismatch@example.com", name: "Mismatch" });
    await expectRejected({ code, state: "not-a-state-this-server-issued-xxxxxxxx" }, cookie);
  });

  it("missing state", async () => {
    const { code, cookie } = await browseDevSignIn(app, { email: "nostate@example.com", name: "No State" });
    await expectRejected({ code }, cookie);
  });

  it("reused state (the transaction is single use)", async () => {
    const { code, state, cookie } = await browseDevSignIn(app, { email: "reuse@example.com", name: "Reuse" });
    const first = await app.inject({
      method: "POST",
      url: "/api/auth/google/callback",
      payload: { code, state },
      headers: { cookie },
    });
    expect(first.statusCode).toBe(200);
    await expectRejected({ code, state }, cookie);
  });

  it("expired transaction", async () => {
    const { code, state, cookie } = await browseDevSignIn(app, { email: "expired@example.com", name: "Expired" });
    await app.database.db.execute(sql`update login_transactions set expires_at = now() - interval '1 second'`);
    await expectRejected({ code, state }, cookie);
  });

  it("wrong nonce (the ID token was not minted for this transaction)", async () => {
    const { code, state, cookie } = await browseDevSignIn(app, { email: "nonce@example.com", name: "Nonce" });
    await app.database.db.execute(
      sql`update login_transactions set nonce = 'tampered-nonce-value' where consumed_at is null`,
    );
    const response = await expectRejected({ code, state }, cookie);
    expect(response.json().error).toBe("Authentication failed");
  });

  it("wrong PKCE verifier", async () => {
    const { code, state, cookie } = await browseDevSignIn(app, { email: "pkce@example.com", name: "Pkce" });
    await app.database.db.execute(
      sql`update login_transactions set code_verifier = 'x' || code_verifier where consumed_at is null`,
    );
    await expectRejected({ code, state }, cookie);
  });

  it("unknown code", async () => {
    const { state, cookie } = await browseDevSignIn(app, { email: "code@example.com", name: "Code" });
    await expectRejected({ code: "this-code-was-never-issued", state }, cookie);
  });

  it("malformed bodies", async () => {
    await expectRejected({});
    await expectRejected({ code: "" });
    await expectRejected({ code: 42, state: [] });
  });
});

describe("sessions", () => {
  it("missing, malformed and unknown tokens get 401 {success:false,error}", async () => {
    for (const headers of [{}, { authorization: "Basic abc" }, bearer("unknown-token-unknown-token-unknown-token")]) {
      const response = await app.inject({ method: "GET", url: "/api/auth/validate", headers });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ success: false, error: expect.any(String) });
    }
  });

  it("logout revokes the session server-side", async () => {
    const { token } = await devSignIn(app, { email: "logout@example.com", name: "Logout" });
    const logout = await app.inject({ method: "POST", url: "/api/auth/logout", headers: bearer(token) });
    expect(logout.statusCode).toBe(200);
    const after = await app.inject({ method: "GET", url: "/api/auth/validate", headers: bearer(token) });
    expect(after.statusCode).toBe(401);
    const [row] = await rows<{ revoked: boolean }>(
      sql`select revoked_at is not null as revoked from sessions order by created_at desc limit 1`,
    );
    expect(row?.revoked).toBe(true);
  });

  it("refresh rotates the token and revokes the old one, once", async () => {
    const { token } = await devSignIn(app, { email: "refresh@example.com", name: "Refresh" });
    const refresh = await app.inject({ method: "POST", url: "/api/auth/refresh", headers: bearer(token) });
    expect(refresh.statusCode).toBe(200);
    const fresh: string = refresh.json().data.token;
    expect(fresh).not.toBe(token);
    expect((await app.inject({ method: "GET", url: "/api/auth/validate", headers: bearer(token) })).statusCode).toBe(
      401,
    );
    expect((await app.inject({ method: "GET", url: "/api/auth/validate", headers: bearer(fresh) })).statusCode).toBe(
      200,
    );
    const again = await app.inject({ method: "POST", url: "/api/auth/refresh", headers: bearer(token) });
    expect(again.statusCode).toBe(401);
  });

  it("an expired session is refused", async () => {
    const { token } = await devSignIn(app, { email: "stale@example.com", name: "Stale" });
    const { createHash } = await import("node:crypto");
    const hash = createHash("sha256").update(token).digest("hex");
    await app.database.db.execute(
      sql`update sessions set expires_at = now() - interval '1 minute' where token_hash = ${hash}`,
    );
    const response = await app.inject({ method: "GET", url: "/api/auth/validate", headers: bearer(token) });
    expect(response.statusCode).toBe(401);
  });
});
