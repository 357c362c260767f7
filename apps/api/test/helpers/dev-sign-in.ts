/**
 * Plays the browser through the development issuer over HTTP (app.inject): start sign-in, follow the
 * redirects with a cookie jar, submit the Email/Name form, and stop at the site's /auth/callback.
 */
import type { FastifyInstance, LightMyRequestResponse } from "fastify";

export interface CallbackParams {
  code: string;
  state: string;
  authUrl: string;
  /** The browser's sign-in cookie ("flotilla_signin=…"): the callback must carry it, as the browser would. */
  cookie: string;
}

class CookieJar {
  private readonly cookies = new Map<string, string>();
  store(response: LightMyRequestResponse) {
    const header = response.headers["set-cookie"];
    for (const line of Array.isArray(header) ? header : header ? [header] : []) {
      const [pair] = line.split(";");
      const at = pair!.indexOf("=");
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

function pathOf(url: string, origin: string): string {
  const parsed = new URL(url, origin);
  return `${parsed.pathname}${parsed.search}`;
}

/** Runs the browser side of a sign-in and returns what the callback page would receive. */
export async function browseDevSignIn(
  app: FastifyInstance,
  options: { email: string; name: string; returnPath?: string; origin?: string; cookie?: string },
): Promise<CallbackParams> {
  const origin = options.origin ?? "http://localhost:3000";
  const start = await app.inject({
    method: "POST",
    url: "/api/auth/google/url",
    payload: { redirectUrl: `${origin}/auth/callback`, ...(options.returnPath ? { state: options.returnPath } : {}) },
    ...(options.cookie ? { headers: { cookie: options.cookie } } : {}),
  });
  if (start.statusCode !== 200) throw new Error(`start failed: ${start.statusCode} ${start.body}`);
  const authUrl: string = start.json().authUrl;
  const signInCookie = signInCookieFrom(start) ?? options.cookie ?? "";

  const jar = new CookieJar();
  const host = new URL(origin).host;
  let response = await app.inject({ method: "GET", url: pathOf(authUrl, origin), headers: { host } });
  jar.store(response);
  // Follow redirects until the sign-in form.
  for (let hops = 0; response.statusCode >= 300 && response.statusCode < 400 && hops < 5; hops++) {
    response = await app.inject({
      method: "GET",
      url: pathOf(String(response.headers.location), origin),
      headers: { host, cookie: jar.header() },
    });
    jar.store(response);
  }
  if (response.statusCode !== 200 || !response.body.includes('name="email"')) {
    throw new Error(`expected the sign-in form, got ${response.statusCode}: ${response.body.slice(0, 200)}`);
  }
  const action = /action="([^"]+)"/.exec(response.body)?.[1];
  if (!action) throw new Error("sign-in form without an action");

  response = await app.inject({
    method: "POST",
    url: action,
    headers: { host, cookie: jar.header(), "content-type": "application/x-www-form-urlencoded" },
    payload: new URLSearchParams({ email: options.email, name: options.name }).toString(),
  });
  jar.store(response);
  for (let hops = 0; hops < 5; hops++) {
    if (response.statusCode < 300 || response.statusCode >= 400) {
      throw new Error(`sign-in did not redirect: ${response.statusCode} ${response.body.slice(0, 200)}`);
    }
    const location = new URL(String(response.headers.location), origin);
    if (location.pathname === "/auth/callback") {
      const code = location.searchParams.get("code");
      const state = location.searchParams.get("state");
      if (!code || !state) throw new Error(`callback without code/state: ${location}`);
      return { code, state, authUrl, cookie: signInCookie };
    }
    response = await app.inject({
      method: "GET",
      url: `${location.pathname}${location.search}`,
      headers: { host, cookie: jar.header() },
    });
    jar.store(response);
  }
  throw new Error("too many redirects");
}

/** The "flotilla_signin=…" pair a sign-in start set, if any. */
export function signInCookieFrom(response: LightMyRequestResponse): string | null {
  const header = response.headers["set-cookie"];
  for (const line of Array.isArray(header) ? header : header ? [header] : []) {
    const pair = line.split(";")[0]!;
    if (pair.startsWith("flotilla_signin=")) return pair;
  }
  return null;
}

/** A complete sign-in: returns the bearer token and the callback's answer. */
export async function devSignIn(
  app: FastifyInstance,
  options: { email: string; name: string; returnPath?: string },
): Promise<{
  token: string;
  customer: { id: string; email: string; name: string; is_admin: boolean };
  redirectTo: string;
}> {
  const { code, state, cookie } = await browseDevSignIn(app, options);
  const callback = await app.inject({
    method: "POST",
    url: "/api/auth/google/callback",
    payload: { code, state },
    headers: { cookie },
  });
  if (callback.statusCode !== 200) throw new Error(`callback failed: ${callback.statusCode} ${callback.body}`);
  return callback.json().data;
}
