import { ApiErrorSchema } from "@flotilla/contracts/api-errors";
import {
  AuthUrlRequestSchema,
  AuthUrlResponseSchema,
  GoogleCallbackRequestSchema,
  GoogleCallbackResponseSchema,
  LogoutResponseSchema,
  ProfileResponseSchema,
  RefreshResponseSchema,
  ValidateResponseSchema,
} from "@flotilla/contracts/auth";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { Config } from "../../config";
import { requireSession, sessionOf } from "../../plugins/auth-guard";
import { type AuthService, toCustomer } from "./service";

const errors = { 400: ApiErrorSchema, 401: ApiErrorSchema, 429: ApiErrorSchema, 503: ApiErrorSchema };
const bearer = [{ bearerAuth: [] }];

export function registerAuthRoutes(app: FastifyInstance, deps: { auth: AuthService; config: Config }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { auth } = deps;
  // One budget per client address shared by every sign-in endpoint (a route-level limit would count each
  // route apart). Validation and profile reads use the general per-route limit instead.
  const authLimit = app.rateLimit({ max: deps.config.rateLimits.authPerMinute, timeWindow: "1 minute" });
  const guard = requireSession(auth);
  app.decorateRequest("session", null);

  api.post(
    "/api/auth/google/url",
    {
      schema: {
        tags: ["Sign-in"],
        summary: "Start a Google sign-in",
        description:
          "Returns the identity provider's authorization URL. `state` is the path to return to after sign-in; it is sanitised to a same-origin path (else /dashboard) and kept server-side. The redirect URI is always the service's own /auth/callback.",
        body: AuthUrlRequestSchema,
        response: { 200: AuthUrlResponseSchema, ...errors },
      },
      onRequest: authLimit,
    },
    async (request) => ({ success: true as const, authUrl: await auth.start(request.body.state) }),
  );

  api.get(
    "/api/auth/google/url",
    {
      schema: {
        tags: ["Sign-in"],
        summary: "Start a Google sign-in (query-string form)",
        querystring: AuthUrlRequestSchema,
        response: { 200: AuthUrlResponseSchema, ...errors },
      },
      onRequest: authLimit,
    },
    async (request) => ({ success: true as const, authUrl: await auth.start(request.query.state) }),
  );

  api.post(
    "/api/auth/google/callback",
    {
      schema: {
        tags: ["Sign-in"],
        summary: "Finish a sign-in: exchange the code for a session",
        description:
          "Consumes the single-use sign-in transaction named by `state`, exchanges `code` with PKCE and verifies the ID token (issuer, audience, nonce, signature). Returns a bearer token valid for 30 days of inactivity.",
        body: GoogleCallbackRequestSchema,
        response: { 200: GoogleCallbackResponseSchema, ...errors },
      },
      onRequest: authLimit,
    },
    async (request, reply) => {
      const result = await auth.complete(request.body.code, request.body.state, request.body.iss);
      reply.header("cache-control", "no-store");
      return {
        success: true as const,
        data: {
          token: result.token,
          customer: result.customer,
          redirectTo: result.redirectTo,
          expires_at: result.expiresAt.toISOString(),
        },
      };
    },
  );

  api.get(
    "/api/auth/validate",
    {
      schema: {
        tags: ["Sign-in"],
        summary: "Check a bearer token and return its user",
        security: bearer,
        response: { 200: ValidateResponseSchema, ...errors },
      },
      config: { rateLimit: { max: deps.config.rateLimits.perMinute, timeWindow: "1 minute" } },
      onRequest: guard,
    },
    async (request) => ({ success: true as const, user: toCustomer(sessionOf(request).customer) }),
  );

  api.post(
    "/api/auth/logout",
    {
      schema: {
        tags: ["Sign-in"],
        summary: "Revoke the current session",
        security: bearer,
        response: { 200: LogoutResponseSchema, ...errors },
      },
      onRequest: [authLimit, guard],
    },
    async (request) => {
      await auth.logout(sessionOf(request));
      return { success: true as const, message: "Signed out" };
    },
  );

  api.post(
    "/api/auth/refresh",
    {
      schema: {
        tags: ["Sign-in"],
        summary: "Rotate the bearer token (the old one is revoked)",
        security: bearer,
        response: { 200: RefreshResponseSchema, ...errors },
      },
      onRequest: [authLimit, guard],
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
        response: { 200: ProfileResponseSchema, ...errors },
      },
      config: { rateLimit: { max: deps.config.rateLimits.perMinute, timeWindow: "1 minute" } },
      onRequest: guard,
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
