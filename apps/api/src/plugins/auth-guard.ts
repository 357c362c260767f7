/**
 * Bearer authentication for customer routes. `requireSession(auth)` as a route's preValidation hook answers
 * 401 `{success:false,error}` for a missing, unknown, expired or revoked token, and otherwise puts the
 * session on `request.session`. Not onRequest: the rate limit (an onRequest hook added after the route's own)
 * must count a request before the guard can answer it, or anonymous probes would never be limited.
 *
 * An INVALID_SESSION answer carries `reason` (signed_out, expired, account_erased) when the token really was a
 * session and the service knows how it ended (decisions 0055, 0056); a token it never issued gets none. The lookup
 * runs only on this failure path: a live session costs nothing more.
 */
import { AUTH_ERRORS, type SessionEndReason } from "@flotilla/contracts/auth";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { AuthenticatedSession, AuthService } from "../modules/auth/service";

declare module "fastify" {
  interface FastifyRequest {
    session: AuthenticatedSession | null;
  }
}

export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== "string") return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/** 401 INVALID_SESSION, with why the session ended when that is known. */
export function invalidSession(reply: FastifyReply, reason: SessionEndReason | null) {
  return reply
    .code(401)
    .header("www-authenticate", 'Bearer realm="api", error="invalid_token"')
    .send({
      success: false,
      error: AUTH_ERRORS.invalidSession,
      code: "INVALID_SESSION",
      ...(reason ? { reason } : {}),
    });
}

export function requireSession(auth: AuthService) {
  return async function sessionGuard(request: FastifyRequest, reply: FastifyReply) {
    const token = bearerToken(request);
    if (!token) {
      return reply
        .code(401)
        .header("www-authenticate", 'Bearer realm="api"')
        .send({ success: false, error: AUTH_ERRORS.missingToken, code: "UNAUTHENTICATED" });
    }
    const session = await auth.authenticate(token);
    if (!session) return invalidSession(reply, await auth.endReason(token));
    request.session = session;
  };
}

/** The session a guarded handler runs with (the guard has set it). */
export function sessionOf(request: FastifyRequest): AuthenticatedSession {
  if (!request.session) throw new Error("route is missing the session guard");
  return request.session;
}
