import { normalizeIP } from "@fastify/rate-limit";
import {
  AUTH_ERRORS,
  AuthUrlRequestSchema,
  AuthUrlResponseSchema,
  type Customer,
  GoogleCallbackRequestSchema,
  GoogleCallbackResponseSchema,
  LogoutEverywhereResponseSchema,
  LogoutResponseSchema,
  ProfileResponseSchema,
  RefreshResponseSchema,
  ValidateResponseSchema,
} from "@flotilla/contracts/auth";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { Config } from "../../config";
import { newOpaqueToken } from "../../lib/tokens";
import { refusals } from "../../plugins/answers";
import { bearerToken, invalidSession, requireSession, sessionOf } from "../../plugins/auth-guard";
import { failureLimit, keyedLimit } from "../../plugins/rate-limit";
import { type AuthService, toCustomer } from "./service";

const withBody = { body: true } as const;
const NOT_JSON = "MALFORMED_JSON: a body that is not JSON.";
const NO_SESSION =
  "UNAUTHENTICATED: no bearer token; INVALID_SESSION: the session is unknown, expired or ended (`reason` says why, when the service knows).";
const PROVIDER_DOWN = "PROVIDER_UNAVAILABLE: the identity provider did not answer; try again shortly.";
const TOO_MANY =
  "RATE_LIMITED: too many requests from this address this minute (RATE_LIMIT_PER_MINUTE); retry after Retry-After.";
const TOO_MANY_FAILURES =
  "RATE_LIMITED: too many requests, or too many failed sign-in calls, from this address this minute (RATE_LIMIT_PER_MINUTE, RATE_LIMIT_AUTH_FAILURES_PER_MINUTE); retry after Retry-After.";
/** Session operations: also budgeted per account. */
const TOO_MANY_SESSION_CALLS =
  "RATE_LIMITED: too many requests or failed calls from this address, or session operations of this account, this minute (RATE_LIMIT_PER_MINUTE, RATE_LIMIT_AUTH_FAILURES_PER_MINUTE, RATE_LIMIT_ACCOUNT_PER_MINUTE); retry after Retry-After.";
const SESSION_CALL = refusals({ 400: NOT_JSON, 401: NO_SESSION, 429: TOO_MANY_SESSION_CALLS }, withBody);
const START_TOO_MANY =
  "RATE_LIMITED: too many sign-ins started from this address this minute, in either form (RATE_LIMIT_PER_MINUTE); retry after Retry-After.";
const bearer = [{ bearerAuth: [] }];

/**
 * The random value that ties a sign-in to the browser that started it (HttpOnly: no script can read it). Over
 * https it is a `__Host-` cookie (Secure, this host only, Path=/): a sibling subdomain or a plain-http response
 * cannot plant a value of the attacker's choosing, which would re-open login CSRF. Over http (development) it is
 * scoped to /api/auth.
 */
export function signInCookie(secure: boolean) {
  return secure
    ? { name: "__Host-flotilla_signin", path: "/", secure: true }
    : { name: "flotilla_signin", path: "/api/auth", secure: false };
}
const COOKIE_VALUE = /^[A-Za-z0-9_-]{43}$/;

export function registerAuthRoutes(
  app: FastifyInstance,
  deps: {
    auth: AuthService;
    config: Config;
    /** Whether an address holds the admin role: shown to the user (their menu links the console), checked again there. */
    isAdmin: (email: string) => Promise<boolean>;
  },
) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { auth, config, isAdmin } = deps;
  const signedInUser = async (customer: Customer) => ({ ...customer, is_admin: await isAdmin(customer.email) });
  const cookie = signInCookie(config.publicOrigin.startsWith("https:"));
  const signInCookieOf = (request: FastifyRequest): string | null => {
    const value = request.cookies[cookie.name];
    return value && COOKIE_VALUE.test(value) ? value : null;
  };

  // What an attacker needs is failures: bad states, codes and tokens are budgeted per address (an office behind
  // one address signs in as often as it likes); session operations are budgeted per account.
  const failures = failureLimit(app, {
    name: "auth-failures",
    max: config.rateLimits.authFailuresPerMinute,
    keyOf: (request) => normalizeIP(request.ip, 64),
  });
  const countFailure = failures.settle;
  const perAccount = keyedLimit(app, {
    name: "account",
    max: config.rateLimits.accountPerMinute,
    keyOf: (request) => request.session?.customer.id ?? null,
  });
  const perAddress = { rateLimit: { max: config.rateLimits.perMinute, timeWindow: 60_000 } };
  // The POST and GET forms of "start a sign-in" share one budget: each start writes a login transaction.
  const perAddressStarts = { rateLimit: { ...perAddress.rateLimit, groupId: "sign-in-start" } };
  const guard = requireSession(auth);
  app.decorateRequest("session", null);

  /** Reuses this browser's sign-in cookie or sets a new one; returns its value. */
  const browserSecret = (request: FastifyRequest, reply: FastifyReply): string => {
    const secret = signInCookieOf(request) ?? newOpaqueToken();
    reply.setCookie(cookie.name, secret, {
      httpOnly: true,
      sameSite: "lax",
      secure: cookie.secure,
      path: cookie.path,
      maxAge: config.sessionMaxDays * 24 * 60 * 60,
    });
    return secret;
  };

  api.post(
    "/api/auth/google/url",
    {
      schema: {
        tags: ["Sign-in"],
        summary: "Start a Google sign-in",
        description:
          "Returns the identity provider's authorization URL and sets the HttpOnly sign-in cookie that binds this sign-in to this browser. `state` is the path to return to after sign-in; it is sanitised to a same-origin path (else /dashboard) and kept server-side. The redirect URI is always the service's own /auth/callback.",
        body: AuthUrlRequestSchema,
        response: {
          200: AuthUrlResponseSchema,
          ...refusals(
            {
              400: `VALIDATION_ERROR: \`state\` or \`redirectUrl\` is not a string of at most 2048 characters; ${NOT_JSON}`,
              429: START_TOO_MANY,
              503: PROVIDER_DOWN,
            },
            withBody,
          ),
        },
      },
      config: perAddressStarts,
    },
    async (request, reply) => ({
      success: true as const,
      authUrl: await auth.start(request.body.state, browserSecret(request, reply)),
    }),
  );

  api.get(
    "/api/auth/google/url",
    {
      schema: {
        tags: ["Sign-in"],
        summary: "Start a Google sign-in (query-string form)",
        querystring: AuthUrlRequestSchema,
        response: {
          200: AuthUrlResponseSchema,
          ...refusals({
            400: "VALIDATION_ERROR: `state` or `redirectUrl` is longer than 2048 characters.",
            429: START_TOO_MANY,
            503: PROVIDER_DOWN,
          }),
        },
      },
      config: perAddressStarts,
    },
    async (request, reply) => ({
      success: true as const,
      authUrl: await auth.start(request.query.state, browserSecret(request, reply)),
    }),
  );

  api.post(
    "/api/auth/google/callback",
    {
      schema: {
        tags: ["Sign-in"],
        summary: "Finish a sign-in: exchange the code for a session",
        description:
          "Consumes the single-use sign-in transaction named by `state` — only in the browser that started it (its sign-in cookie) — exchanges `code` with PKCE and verifies the ID token (issuer, audience, nonce, signature). Returns a bearer token valid for 30 days of inactivity, at most 90 days in all. Failed attempts are limited per client address (`RATE_LIMIT_AUTH_FAILURES_PER_MINUTE`).",
        body: GoogleCallbackRequestSchema,
        response: {
          200: GoogleCallbackResponseSchema,
          ...refusals(
            {
              400: `INVALID_STATE: no sign-in waits under this state (unknown, used or expired); BROWSER_MISMATCH: another browser started it; SIGN_IN_REJECTED: the identity provider refused the code, or its ID token did not verify; VALIDATION_ERROR: no code; ${NOT_JSON}`,
              429: TOO_MANY_FAILURES,
              503: PROVIDER_DOWN,
            },
            withBody,
          ),
        },
      },
      config: perAddress,
      onRequest: failures.guard,
      onResponse: countFailure,
    },
    async (request, reply) => {
      const result = await auth.complete(
        request.body.code,
        request.body.state,
        signInCookieOf(request),
        request.body.iss,
      );
      reply.header("cache-control", "no-store");
      return {
        success: true as const,
        data: {
          token: result.token,
          customer: await signedInUser(result.customer),
          redirectTo: result.redirectTo,
          expires_at: result.expiresAt.toISOString(),
        },
      };
    },
  );

  api.post(
    "/api/auth/adopt",
    {
      schema: {
        tags: ["Sign-in"],
        summary: "Accept a session token found in an address (/auth/callback?token=…)",
        description:
          "Answers like GET /api/auth/validate, but only for a session that this browser started (its sign-in cookie): a link carrying someone else's token never signs a browser into their account.",
        security: bearer,
        response: {
          200: ValidateResponseSchema,
          ...refusals(
            {
              400: NOT_JSON,
              401: `${NO_SESSION} TOKEN_NOT_FROM_THIS_BROWSER: the session was started in another browser.`,
              429: TOO_MANY_FAILURES,
            },
            withBody,
          ),
        },
      },
      config: perAddress,
      onRequest: failures.guard,
      onResponse: countFailure,
    },
    async (request, reply) => {
      const token = bearerToken(request);
      if (!token) {
        return reply
          .code(401)
          .header("www-authenticate", 'Bearer realm="api"')
          .send({ success: false, error: AUTH_ERRORS.missingToken, code: "UNAUTHENTICATED" });
      }
      const session = await auth.authenticate(token);
      if (!session) return invalidSession(reply, await auth.endReason(token));
      if (!auth.startedIn(session, signInCookieOf(request))) {
        return reply
          .code(401)
          .header("www-authenticate", 'Bearer realm="api", error="invalid_token"')
          .send({ success: false, error: AUTH_ERRORS.tokenNotFromThisBrowser, code: "TOKEN_NOT_FROM_THIS_BROWSER" });
      }
      return { success: true as const, user: await signedInUser(toCustomer(session.customer)) };
    },
  );

  api.get(
    "/api/auth/validate",
    {
      schema: {
        tags: ["Sign-in"],
        summary: "Check a bearer token and return its user",
        security: bearer,
        response: { 200: ValidateResponseSchema, ...refusals({ 401: NO_SESSION, 429: TOO_MANY }) },
      },
      config: perAddress,
      preValidation: guard,
    },
    async (request) => ({
      success: true as const,
      user: await signedInUser(toCustomer(sessionOf(request).customer)),
    }),
  );

  api.post(
    "/api/auth/logout",
    {
      schema: {
        tags: ["Sign-in"],
        summary: "Revoke the current session",
        security: bearer,
        response: { 200: LogoutResponseSchema, ...SESSION_CALL },
      },
      config: perAddress,
      onRequest: failures.guard,
      preValidation: guard,
      preHandler: perAccount,
      onResponse: countFailure,
    },
    async (request) => {
      await auth.logout(sessionOf(request));
      return { success: true as const, message: "Signed out" };
    },
  );

  api.post(
    "/api/auth/logout-all",
    {
      schema: {
        tags: ["Sign-in"],
        summary: "Sign out everywhere: revoke every session of the signed-in customer",
        security: bearer,
        response: { 200: LogoutEverywhereResponseSchema, ...SESSION_CALL },
      },
      config: perAddress,
      onRequest: failures.guard,
      preValidation: guard,
      preHandler: perAccount,
      onResponse: countFailure,
    },
    async (request) => {
      const revoked = await auth.logoutEverywhere(sessionOf(request));
      return {
        success: true as const,
        message: `Signed out of ${revoked} session${revoked === 1 ? "" : "s"}`,
        revoked,
      };
    },
  );

  api.post(
    "/api/auth/refresh",
    {
      schema: {
        tags: ["Sign-in"],
        summary: "Rotate the bearer token (the old one is revoked; the session's absolute end does not move)",
        security: bearer,
        response: { 200: RefreshResponseSchema, ...SESSION_CALL },
      },
      config: perAddress,
      onRequest: failures.guard,
      preValidation: guard,
      preHandler: perAccount,
      onResponse: countFailure,
    },
    async (request, reply) => {
      const rotated = await auth.refresh(sessionOf(request));
      reply.header("cache-control", "no-store");
      return { success: true as const, data: { token: rotated.token, expires_at: rotated.expiresAt.toISOString() } };
    },
  );

  api.get(
    "/api/auth/profile",
    {
      schema: {
        tags: ["Sign-in"],
        summary: "The signed-in customer's profile",
        security: bearer,
        response: { 200: ProfileResponseSchema, ...refusals({ 401: NO_SESSION, 429: TOO_MANY }) },
      },
      config: perAddress,
      preValidation: guard,
    },
    async (request) => {
      const { customer } = sessionOf(request);
      return {
        success: true as const,
        data: {
          ...toCustomer(customer),
          created_at: customer.createdAt.toISOString(),
          last_sign_in_at: customer.lastSignInAt?.toISOString() ?? null,
        },
      };
    },
  );
}
