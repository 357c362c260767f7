/**
 * What an operation answers besides success, declared on the route itself (issue 25): `refusals()` gives each status
 * the operation can answer its meaning for that operation, and adds, once, the failures any operation may give as
 * OpenAPI `default` ("Other failures"). The meaning becomes the response's description in the OpenAPI document
 * (@fastify/swagger reads the schema's `description`); the schema still serializes the answer.
 *
 *   response: { 200: X, ...refusals({ 401: "…", 404: "NOT_FOUND: no license has this key, or it is not yours" }) }
 *
 * `default` covers exactly these, and nothing a client can cause on purpose:
 *   - 500 INTERNAL_ERROR: a fault of ours (errors.ts answers anything unforeseen so), on every operation;
 *   - 503 UNAVAILABLE with Retry-After: the database did not answer within its bound (a pool connection within
 *     DATABASE_CONNECT_TIMEOUT_MS, a statement within DATABASE_STATEMENT_TIMEOUT_MS), on operations that use it;
 *   - 415 UNSUPPORTED_MEDIA_TYPE, on every operation: a Content-Encoding the service does not decode (@fastify/compress
 *     checks it on every route, a GET's too) and, where there is a body, one that is not JSON;
 *   - 413 PAYLOAD_TOO_LARGE (over BODY_LIMIT), on operations whose method carries a body — POST, PUT, PATCH, DELETE:
 *     Fastify reads a body for these whether or not the route declares one.
 * An operation that declares one of these statuses itself (a 503 of its own) keeps the generic meaning in that
 * status's description, and `default` no longer names it. Everything else a client can cause — 400 (a body that is
 * not JSON included), 401, 403, 404, 409, 422, 429… — is declared with its meaning, never left to `default`: the API
 * tests fail when a route answers a status it does not declare (test/setup/declared-answers.ts).
 */
import { ApiErrorSchema, ERROR_CODES } from "@flotilla/contracts/api-errors";
import { SessionRefusalSchema } from "@flotilla/contracts/auth";
import type { z } from "zod";

/** A status's meaning for this operation, or its meaning with a body of a shape of its own. */
export type Refusal = string | { meaning: string; schema: z.ZodType };

/** What decides which failures `default` covers. */
export interface Reach {
  /** The method carries a body (POST, PUT, PATCH, DELETE). */
  body?: boolean;
  /** The operation waits for the database (all but a few constant answers do). */
  database?: boolean;
}

const OTHER_FAILURES = [
  { status: 500, when: () => true, meaning: `${ERROR_CODES.internal}: the service failed; try again.` },
  {
    status: 503,
    when: (reach: Required<Reach>) => reach.database,
    meaning: `${ERROR_CODES.unavailable}: the database did not answer in time; retry after Retry-After (seconds).`,
  },
  {
    status: 413,
    when: (reach: Required<Reach>) => reach.body,
    meaning: `${ERROR_CODES.payloadTooLarge}: the body is larger than the service accepts (BODY_LIMIT).`,
  },
  {
    status: 415,
    when: (reach: Required<Reach>) => reach.body,
    meaning: `${ERROR_CODES.unsupportedMediaType}: a body that is not Content-Type: application/json, or a Content-Encoding the service does not decode (it decodes gzip, deflate and br, and zstd on Node.js 22.15 and later).`,
  },
  {
    status: 415,
    when: (reach: Required<Reach>) => !reach.body,
    meaning: `${ERROR_CODES.unsupportedMediaType}: a Content-Encoding the service does not decode (it decodes gzip, deflate and br, and zstd on Node.js 22.15 and later).`,
  },
] as const;

/** The statuses each `default` made here stands for (read by the tests' conformance check). */
const coveredBy = new WeakMap<object, readonly number[]>();

/** The statuses a route's `default` response stands for: none unless `refusals()` made it. */
export function otherFailureStatuses(schema: unknown): readonly number[] {
  return typeof schema === "object" && schema !== null ? (coveredBy.get(schema) ?? []) : [];
}

/** The response schemas `refusals()` declares, typed: the reply types of the route's handler stay exact. */
export type Refusals<M> = {
  [Status in keyof M]: M[Status] extends { schema: infer Schema }
    ? Schema
    : Status extends 401
      ? typeof SessionRefusalSchema
      : typeof ApiErrorSchema;
} & { default: typeof ApiErrorSchema };

/**
 * The body a status's refusal has unless it names its own: a 401 may say why the session ended (`reason`, decision
 * 0056), every other status is the plain error.
 */
function refusalSchema(status: number): z.ZodType {
  return status === 401 ? SessionRefusalSchema : ApiErrorSchema;
}

export function refusals<const M extends Readonly<Record<number, Refusal>>>(
  meanings: M,
  reach: Reach = {},
): Refusals<M> {
  const applies = OTHER_FAILURES.filter((failure) =>
    failure.when({ body: reach.body ?? false, database: reach.database ?? true }),
  );
  const others = applies.filter((failure) => !(failure.status in meanings));
  // A Markdown list: one failure a line.
  const fallback = ApiErrorSchema.describe(
    others.map((failure) => `- ${failure.status} ${failure.meaning}`).join("\n"),
  );
  coveredBy.set(
    fallback,
    others.map((failure) => failure.status),
  );
  const declared: Record<number | "default", z.ZodType> = { default: fallback };
  for (const [status, refusal] of Object.entries(meanings)) {
    const { meaning, schema } =
      typeof refusal === "string" ? { meaning: refusal, schema: refusalSchema(Number(status)) } : refusal;
    // A status declared here replaces `default` for it: its description keeps the generic meaning too.
    const generic = applies.find((failure) => failure.status === Number(status));
    declared[Number(status)] = schema.describe(generic ? `${meaning} Or ${generic.meaning}` : meaning);
  }
  return declared as Refusals<M>;
}
