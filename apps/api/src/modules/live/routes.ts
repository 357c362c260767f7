/** GET /api/customer/events: the signed-in customer's live event stream (customer-events.ts, decision 0049). */
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { refusals } from "../../plugins/answers";
import { bearerToken, requireSession, sessionOf } from "../../plugins/auth-guard";
import type { AuthService } from "../auth/service";
import {
  COALESCE_MS,
  type CustomerEventHub,
  PING_MS,
  STREAMS_PER_CUSTOMER,
  STREAMS_PER_INSTANCE,
} from "./customer-events";

export const EVENT_STREAM_TYPE = "text/event-stream";

export function registerLiveEventRoutes(
  app: FastifyInstance,
  deps: { hub: CustomerEventHub; auth: AuthService; perMinute: number },
) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.get(
    "/api/customer/events",
    {
      schema: {
        tags: ["Customer"],
        summary: "Live notices of changes to the customer's licenses (server-sent events)",
        description: `A \`text/event-stream\` (send \`Accept: text/event-stream\`; anything else is 406). Events: \`ready\` on every connection and \`resync\` after a gap in the service's change channel (re-read everything), \`license\` with \`{"license_ids": [...]}\` when one of the customer's licenses changed — a device bound, removed, seen or suspended, an execution started or ended — gathered over ${COALESCE_MS} ms (re-read those licenses through the usual endpoints: the stream carries no data), and \`signed-out\` (as soon as the session ends: signed out anywhere, ended by an admin or an erasure, or expired; its data says why when the service knows, \`{"reason": "signed_out" | "expired" | "account_erased"}\`, as a 401's \`reason\` does), \`replaced\` (the customer opened more than ${STREAMS_PER_CUSTOMER} streams across the service: the oldest goes) or \`closing\` (the instance is shutting down) before it ends. A comment every ${PING_MS / 1000} s keeps proxies from closing it.`,
        security: [{ bearerAuth: [] }],
        response: {
          200: z.string().describe("text/event-stream"),
          ...refusals({
            401: "UNAUTHENTICATED: no bearer token; INVALID_SESSION: the session is unknown, expired or ended.",
            406: "NOT_ACCEPTABLE: the request does not accept text/event-stream.",
            429: "RATE_LIMITED: too many requests from this address this minute (RATE_LIMIT_PER_MINUTE); retry after Retry-After.",
            503: `UNAVAILABLE: this instance holds as many live streams as it serves (${STREAMS_PER_INSTANCE.toLocaleString("en")}) or is shutting down; retry after Retry-After (seconds), a little later at random.`,
          }),
        },
      },
      config: { rateLimit: { max: deps.perMinute, timeWindow: "1 minute" } },
      preValidation: requireSession(deps.auth),
    },
    async (request, reply) => {
      const accept = request.headers.accept ?? "";
      if (!accept.includes(EVENT_STREAM_TYPE)) {
        return reply
          .code(406)
          .send({ success: false, error: `Send Accept: ${EVENT_STREAM_TYPE}`, code: "NOT_ACCEPTABLE" });
      }
      if (!deps.hub.hasRoom()) {
        return reply
          .code(503)
          .header("retry-after", "5")
          .send({ success: false, error: "Live updates are busy. Try again shortly.", code: "UNAVAILABLE" });
      }
      const session = sessionOf(request);
      const token = bearerToken(request) ?? "";
      reply.hijack();
      // The headers every answer carries (security, request id), set by hooks on the reply, then the stream's own.
      reply.raw.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        "content-type": `${EVENT_STREAM_TYPE}; charset=utf-8`,
        "cache-control": "no-store",
        // nginx buffers proxied answers unless told not to; a buffered stream is no stream.
        "x-accel-buffering": "no",
        connection: "keep-alive",
      });
      request.raw.socket.setKeepAlive(true);
      const endOf = (held: { expiresAt: Date; absoluteExpiresAt: Date }) =>
        Math.min(held.expiresAt.getTime(), held.absoluteExpiresAt.getTime());
      await deps.hub.open(
        {
          customerId: session.customer.id,
          sessionId: session.sessionId,
          endsAt: endOf(session),
          check: async () => {
            const current = await deps.auth.authenticate(token);
            return current?.sessionId === session.sessionId ? endOf(current) : null;
          },
          endReason: () => deps.auth.endReason(token),
        },
        reply.raw,
      );
    },
  );
}
