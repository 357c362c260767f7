/** HTTP for execution leases (decision 0048): the desktop calls (signed answers) and the owner's forced end. */
import { ApiErrorSchema } from "@flotilla/contracts/api-errors";
import {
  EndExecutionAnswerSchema,
  ExecutionAnswerSchema,
  ExecutionEndedSchema,
  ExecutionLeaseRequestSchema,
  ExecutionParamsSchema,
  ExecutionRefusalSchema,
  RunningExecutionsAnswerSchema,
  StartExecutionRequestSchema,
  StopExecutionAnswerSchema,
  WatchExecutionsAnswerSchema,
  WatchExecutionsRequestSchema,
} from "@flotilla/contracts/execution-api";
import { EXECUTION_RULES, executionExpiresAfterSeconds } from "@flotilla/contracts/executions";
import type { FastifyInstance, preHandlerHookHandler, preValidationHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { refusals } from "../../plugins/answers";
import { sessionOf } from "../../plugins/auth-guard";
import type { CustomerLicenses } from "./customer-licenses";
import type { ExecutionsService } from "./executions-service";

const withBody = { body: true } as const;
const NOT_IN_FORCE =
  "SUSPENDED or EXPIRED: the license is not in force; NOT_ACTIVATED: this machine holds no slot of it (validate first).";
const NO_LICENSE = "NOT_FOUND: no license has this key (or a rotated key's grace is over).";

export interface DesktopRouteOptions {
  config: { rateLimit: { max: number; timeWindow: string } };
  preHandler: preHandlerHookHandler;
  onSend: NonNullable<import("fastify").RouteShorthandOptions["onSend"]>;
  compress: false;
}

export function registerExecutionRoutes(
  app: FastifyInstance,
  deps: {
    executions: ExecutionsService;
    customers: CustomerLicenses;
    desktop: DesktopRouteOptions;
    signedNote: string;
    /** What every desktop call may be refused for (400, 429), with its meaning. */
    desktopRefusals: Readonly<Record<400 | 429, string>>;
    guard: preValidationHookHandler;
    customerLimit: { max: number; timeWindow: string };
  },
) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { executions, desktop, signedNote, desktopRefusals } = deps;
  const NOT_A_UUID = `${desktopRefusals[400]} Also an execution id that is not a UUID.`;
  const rule = `Send a heartbeat every ${EXECUTION_RULES.heartbeatIntervalSeconds} seconds (\`heartbeat_interval_seconds\`); a lease silent for ${executionExpiresAfterSeconds()} seconds has expired and no longer counts, and one whose app comes back within ${EXECUTION_RULES.revivalWindowSeconds} seconds after that is revived while a slot is free.`;

  api.post(
    "/api/license/executions",
    {
      ...desktop,
      schema: {
        tags: ["Executions"],
        summary: "Start an execution: a lease on one of the license's concurrent executions",
        description: `For an activated machine. The license's running executions, on all of its machines, are capped by its tier (\`max_concurrent_executions\`: Self Hosted Free runs 1); at the limit the start is refused with 409 EXECUTION_LIMIT, naming the machines that hold the running executions and when the soonest of them expires if its app has stopped. Unlimited tiers record leases too. ${rule} An ended lease counts as one execution in the usage figures (feature: \`feature\`). With an Idempotency-Key, a start retried within 24 hours (its answer was lost) answers with the execution the first attempt started instead of starting another; the same key with a different request is a 422; a refused start does not keep the key.${signedNote}`,
        headers: z.object({ "idempotency-key": z.string().min(8).max(128).optional() }),
        body: StartExecutionRequestSchema,
        response: {
          200: ExecutionAnswerSchema,
          ...refusals(
            {
              ...desktopRefusals,
              400: `${desktopRefusals[400]} Also an Idempotency-Key shorter than 8 or longer than 128 characters.`,
              403: NOT_IN_FORCE,
              404: NO_LICENSE,
              409: {
                meaning:
                  "EXECUTION_LIMIT: the license runs as many executions as its plan allows; the answer names who holds them and when the soonest expires. Or IDEMPOTENCY_IN_PROGRESS: the first start with this Idempotency-Key is still under way; retry it.",
                schema: z.union([ExecutionRefusalSchema, ApiErrorSchema]),
              },
              422: "IDEMPOTENCY_KEY_REUSED: this Idempotency-Key came with a different request.",
            },
            withBody,
          ),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await executions.start(request.body, request.headers["idempotency-key"]),
    }),
  );

  api.post(
    "/api/license/executions/:executionId/heartbeat",
    {
      ...desktop,
      schema: {
        tags: ["Executions"],
        summary: "Keep an execution's lease alive (revives an expired one while a slot is free)",
        description: `${rule} 410 EXECUTION_ENDED once the lease was stopped or has ended (its owner or an admin stopped it, its machine lost its slot, the plan's limit was lowered, or it was silent past its revival window; \`end_reason\` says which): stop the execution, then end it — a stopped lease holds its slot until its app has ended it or its heartbeat window has passed. 409 EXECUTION_LIMIT when an expired lease cannot be revived because the slots are taken.${signedNote}`,
        params: ExecutionParamsSchema,
        body: ExecutionLeaseRequestSchema,
        response: {
          200: ExecutionAnswerSchema,
          ...refusals(
            {
              ...desktopRefusals,
              400: NOT_A_UUID,
              403: NOT_IN_FORCE,
              404: `${NO_LICENSE} Or EXECUTION_NOT_FOUND: this machine holds no execution with this id.`,
              409: {
                meaning:
                  "EXECUTION_LIMIT: the lease had expired and cannot be revived while the license's slots are taken; the answer names who holds them.",
                schema: ExecutionRefusalSchema,
              },
              410: {
                meaning:
                  "EXECUTION_ENDED: the lease was stopped or has ended (`end_reason`: ended_by_owner, ended_by_admin, machine_released, limit_lowered, expired, completed): stop the execution and end it, or start a new one.",
                schema: ExecutionEndedSchema,
              },
            },
            withBody,
          ),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await executions.heartbeat(request.params.executionId, request.body),
    }),
  );

  api.post(
    "/api/license/executions/:executionId/end",
    {
      ...desktop,
      schema: {
        tags: ["Executions"],
        summary: "End an execution: its slot is free at once, and it counts as one execution",
        description: `Also how an app says it has stopped an execution that was stopped (its slot is held until then; \`end_reason\` stays why it was stopped). Idempotent: ending an ended execution answers how it ended. Allowed while the license is not in force: ending only frees.${signedNote}`,
        params: ExecutionParamsSchema,
        body: ExecutionLeaseRequestSchema,
        response: {
          200: EndExecutionAnswerSchema,
          ...refusals(
            {
              ...desktopRefusals,
              400: NOT_A_UUID,
              404: `${NO_LICENSE} Or EXECUTION_NOT_FOUND: this machine holds no execution with this id.`,
            },
            withBody,
          ),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await executions.end(request.params.executionId, request.body),
    }),
  );

  api.post(
    "/api/license/executions/watch",
    {
      ...desktop,
      schema: {
        tags: ["Executions"],
        summary:
          "Wait until one of this machine's executions is stopped or ended, or the license is no longer in force",
        description: `The app holds one watch open per machine for its running executions and asks again as soon as it is answered: answered at once when one of them is not running (\`stopping\`: stop it, then end it; \`ended\`; \`unknown\`) or the license is not in force (\`code\`), within about a second of the change whichever instance made it; otherwise after \`wait_seconds\` (at most and by default ${EXECUTION_RULES.watchHoldSeconds}) with \`changed: false\`. The heartbeat remains the fallback. Counts against the desktop rate limits like any call.${signedNote}`,
        body: WatchExecutionsRequestSchema,
        response: {
          200: WatchExecutionsAnswerSchema,
          ...refusals(
            {
              ...desktopRefusals,
              400: `${desktopRefusals[400]} Also an execution id that is not a UUID, or more than ${EXECUTION_RULES.watchedPerRequest} of them.`,
            },
            withBody,
          ),
        },
      },
    },
    async (request, reply) => {
      // The client went away (the answer's connection closed before it was sent): stop holding its answer.
      const gone = new AbortController();
      reply.raw.once("close", () => gone.abort());
      return { success: true as const, data: await executions.watch(request.body, gone.signal) };
    },
  );

  api.post(
    "/api/license/executions/running",
    {
      ...desktop,
      schema: {
        tags: ["Executions"],
        summary: "The license's running executions (ids only for this machine's own)",
        description: `What the CLI lists.${signedNote}`,
        body: ExecutionLeaseRequestSchema,
        response: {
          200: RunningExecutionsAnswerSchema,
          ...refusals(
            { ...desktopRefusals, 403: "SUSPENDED or EXPIRED: the license is not in force.", 404: NO_LICENSE },
            withBody,
          ),
        },
      },
    },
    async (request) => ({ success: true as const, data: await executions.running(request.body) }),
  );

  api.delete(
    "/api/customer/licenses/:licenseKey/executions/:executionId",
    {
      schema: {
        tags: ["Customer"],
        summary: "Stop a running execution of one of the customer's licenses",
        description:
          "The execution is `stopping` until its app has stopped — its watch hears it within about a second, its next heartbeat otherwise (410 EXECUTION_ENDED) — or its heartbeat window has passed (`holds_slot_until`); its slot is held until then, so no other machine starts meanwhile. Recorded in the audit log as execution.ended.",
        security: [{ bearerAuth: [] }],
        params: z.object({ licenseKey: z.string().min(1).max(64) }).extend(ExecutionParamsSchema.shape),
        response: {
          200: StopExecutionAnswerSchema,
          ...refusals(
            {
              400: "VALIDATION_ERROR: the license key or execution id is malformed; MALFORMED_JSON: a body that is not JSON.",
              401: "UNAUTHENTICATED: no bearer token; INVALID_SESSION: the session is unknown, expired or ended.",
              404: "NOT_FOUND: none of your licenses has this key; EXECUTION_NOT_FOUND: the license has no execution with this id.",
              429: "RATE_LIMITED: too many requests from this address this minute (RATE_LIMIT_PER_MINUTE); retry after Retry-After.",
            },
            withBody,
          ),
        },
      },
      config: { rateLimit: deps.customerLimit },
      preValidation: deps.guard,
    },
    async (request) => {
      const customer = sessionOf(request).customer;
      const license = await deps.customers.ownedOrNotFound(customer, request.params.licenseKey);
      return {
        success: true as const,
        data: await executions.stop(
          license,
          request.params.executionId,
          { actor: { type: "customer", id: customer.id, email: customer.email }, reason: "ended_by_owner" },
          request.ip,
        ),
      };
    },
  );
}
