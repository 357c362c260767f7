/**
 * One error handler for the whole API: bad input → 400 with the schema's message, malformed JSON → 400,
 * oversized body → 413, rate limits → 429; nothing a client sends produces a 5xx or a stack trace. A peer that
 * did not answer in time (lib/peer-waits.ts) → 503 with Retry-After. An answer given while the body is still arriving
 * (413, 415…) ends only once the rest has been read and discarded, within bounds (lib/refused-body.ts): a client still
 * writing its body reads its answer instead of a reset connection.
 */
import { ERROR_CODES } from "@flotilla/contracts/api-errors";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { isPeerUnavailable } from "../lib/peer-waits";
import { answerBeforeBody, REFUSED_BODY_DRAIN, type RefusedBodyBounds } from "../lib/refused-body";

/** A failure a service raises on purpose, with the status and message the client should see. */
export class HttpProblem extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code?: string,
    /** Sent as Retry-After (seconds), e.g. when a daily cap frees up. */
    readonly retryAfterSeconds?: number,
    /** More of the answer, beside success, error and code (e.g. who holds the executions of a refused start). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export function registerErrorHandler(app: FastifyInstance, options: { refusedBody?: RefusedBodyBounds } = {}) {
  const refusedBody = options.refusedBody ?? REFUSED_BODY_DRAIN;
  app.setErrorHandler((error: FastifyError, request, reply) => {
    answerBeforeBody(request.raw, reply.raw, refusedBody);
    if (error instanceof HttpProblem) {
      if (error.retryAfterSeconds !== undefined) reply.header("retry-after", String(error.retryAfterSeconds));
      return reply
        .code(error.statusCode)
        .send({ ...error.details, success: false, error: error.message, code: error.code });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const first = error.validation[0];
      const field = first?.instancePath?.replace(/^\//, "").replace(/\//g, ".");
      const message = first?.message ?? "Invalid request";
      return reply.code(400).send({
        success: false,
        error: message.startsWith("Invalid input") && field ? `${field}: ${message}` : message,
        code: ERROR_CODES.validation,
      });
    }
    if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      return reply
        .code(413)
        .send({ success: false, error: "Request body is too large", code: ERROR_CODES.payloadTooLarge });
    }
    if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
      return reply.code(415).send({
        success: false,
        error: "Send JSON with Content-Type: application/json",
        code: ERROR_CODES.unsupportedMediaType,
      });
    }
    // @fastify/compress refuses a Content-Encoding it does not decode, on any route (even a GET): the same code.
    if (error.code === "FST_CP_ERR_INVALID_CONTENT_ENCODING") {
      return reply.code(415).send({
        success: false,
        error: `${error.message}. Send gzip, deflate, br or no Content-Encoding`,
        code: ERROR_CODES.unsupportedMediaType,
      });
    }
    if (
      error.code === "FST_ERR_CTP_EMPTY_JSON_BODY" ||
      // A compressed body that does not decompress is no JSON either.
      error.code === "FST_CP_ERR_INVALID_CONTENT" ||
      error instanceof SyntaxError ||
      error.code === "FST_ERR_CTP_INVALID_JSON_BODY"
    ) {
      return reply.code(400).send({ success: false, error: "Malformed JSON body", code: ERROR_CODES.malformedJson });
    }
    if (error.statusCode === 429) {
      return reply.code(429).send({ success: false, error: error.message, code: ERROR_CODES.rateLimited });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.code(status).send({ success: false, error: error.message || "Bad request", code: error.code });
    }
    if (isPeerUnavailable(error)) {
      // A peer (PostgreSQL) did not answer within its bound: nothing is wrong with the request.
      request.log.warn({ err: error }, "a peer did not answer in time");
      return reply.code(503).header("retry-after", "1").send({
        success: false,
        error: "The service is briefly unavailable. Please try again.",
        code: ERROR_CODES.unavailable,
      });
    }
    request.log.error({ err: error }, "unhandled error");
    return reply.code(500).send({ success: false, error: "Internal server error", code: ERROR_CODES.internal });
  });
}

/**
 * Errors Fastify answers before any route runs (a URL that does not decode, a path parameter over
 * `maxParamLength`): the same `{ success: false, error, code }` shape as everything else. No hook runs
 * for these, so the API's two essential security headers are set here.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  return reply
    .code(status)
    .header("x-content-type-options", "nosniff")
    .header("content-security-policy", "default-src 'none'; frame-ancestors 'none'")
    .send({ success: false, error: status === 414 ? "The URL is too long" : "Malformed URL", code: error.code });
}

/** True when a parsed value holds U+0000 in any string or key (walked without recursion: nesting can be deep). */
function containsNul(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === "string") {
      if (item.includes("\u0000")) return true;
    } else if (item !== null && typeof item === "object") {
      for (const [key, inner] of Object.entries(item)) {
        if (key.includes("\u0000")) return true;
        pending.push(inner);
      }
    }
  }
  return false;
}

/**
 * PostgreSQL text cannot hold U+0000, so a NUL that passed the schema would fail in the database as a 500.
 * No field of this API has a use for it: refuse it with a 400 before validation, for every /api route, in what the
 * route reads — the params, query and body its schema declares. What it does not read cannot reach the database, and
 * refusing it would give an operation that takes no input a 400 it does not declare (plugins/answers.ts).
 */
export function registerNulGuard(app: FastifyInstance) {
  // A callback hook, not an async one: it runs on every request and has nothing to wait for.
  app.addHook("preValidation", (request, reply, done) => {
    const reads = request.routeOptions.schema;
    if (
      request.url.startsWith("/api/") &&
      ((reads?.params && containsNul(request.params)) ||
        (reads?.querystring && containsNul(request.query)) ||
        (reads?.body && containsNul(request.body)))
    ) {
      reply
        .code(400)
        .send({ success: false, error: "Text must not contain NUL characters", code: ERROR_CODES.validation });
      return;
    }
    done();
  });
}
