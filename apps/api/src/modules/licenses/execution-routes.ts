/** HTTP for execution leases (decision 0048): the desktop calls (signed answers) and the owner's forced end. */
import { ApiErrorSchema } from "@flotilla/contracts/api-errors";
import {
  EndExecutionAnswerSchema,
  ExecutionAnswerSchema,
  ExecutionLeaseRequestSchema,
  ExecutionParamsSchema,
  ExecutionRefusalSchema,
  RunningExecutionsAnswerSchema,
  StartExecutionRequestSchema,
} from "@flotilla/contracts/execution-api";
import { EXECUTION_RULES, executionExpiresAfterSeconds } from "@flotilla/contracts/executions";
import type { FastifyInstance, preHandlerHookHandler, preValidationHookHandler } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { sessionOf } from "../../plugins/auth-guard";
import type { CustomerLicenses } from "./customer-licenses";
import type { ExecutionsService } from "./executions-service";

const errors = {
  400: ApiErrorSchema,
  403: ApiErrorSchema,
  404: ApiErrorSchema,
  410: ApiErrorSchema,
  429: ApiErrorSchema,
};

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
    guard: preValidationHookHandler;
    customerLimit: { max: number; timeWindow: string };
  },
) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { executions, desktop, signedNote } = deps;
  const rule = `Send a heartbeat every ${EXECUTION_RULES.heartbeatIntervalSeconds} seconds (\`heartbeat_interval_seconds\`); a lease silent for ${executionExpiresAfterSeconds()} seconds has expired and no longer counts, and one whose app comes back within ${EXECUTION_RULES.revivalWindowSeconds} seconds after that is revived while a slot is free.`;

  api.post(
    "/api/license/executions",
    {
      ...desktop,
      schema: {
        tags: ["Executions"],
        summary: "Start an execution: a lease on one of the license's concurrent executions",
        description: `For an activated machine. The license's running executions, on all of its machines, are capped by its tier (\`max_concurrent_executions\`: Self Hosted Free runs 1); at the limit the start is refused with 409 EXECUTION_LIMIT, naming the machines that hold the running executions and when the soonest of them expires if its app has stopped. Unlimited tiers record leases too. ${rule} An ended lease counts as one execution in the usage figures (feature: \`feature\`).${signedNote}`,
        body: StartExecutionRequestSchema,
        response: { 200: ExecutionAnswerSchema, 409: ExecutionRefusalSchema, ...errors },
      },
    },
    async (request) => ({ success: true as const, data: await executions.start(request.body) }),
  );

  api.post(
    "/api/license/executions/:executionId/heartbeat",
    {
      ...desktop,
      schema: {
        tags: ["Executions"],
        summary: "Keep an execution's lease alive (revives an expired one while a slot is free)",
        description: `${rule} 410 EXECUTION_ENDED once the lease has ended (its owner or an admin ended it, or it was silent past its revival window): stop the execution or start a new one. 409 EXECUTION_LIMIT when an expired lease cannot be revived because the slots are taken.${signedNote}`,
        params: ExecutionParamsSchema,
        body: ExecutionLeaseRequestSchema,
        response: { 200: ExecutionAnswerSchema, 409: ExecutionRefusalSchema, ...errors },
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
        description: `Idempotent: ending an ended execution answers how it ended.${signedNote}`,
        params: ExecutionParamsSchema,
        body: ExecutionLeaseRequestSchema,
        response: { 200: EndExecutionAnswerSchema, ...errors },
      },
    },
    async (request) => ({
      success: true as const,
      data: await executions.end(request.params.executionId, request.body),
    }),
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
        response: { 200: RunningExecutionsAnswerSchema, ...errors },
      },
    },
    async (request) => ({ success: true as const, data: await executions.running(request.body) }),
  );

  api.delete(
    "/api/customer/licenses/:licenseKey/executions/:executionId",
    {
      schema: {
        tags: ["Customer"],
        summary: "End a running execution of one of the customer's licenses (its slot is free at once)",
        description:
          "The app learns it at its next heartbeat (410 EXECUTION_ENDED). Recorded in the audit log as execution.ended.",
        security: [{ bearerAuth: [] }],
        params: z.object({ licenseKey: z.string().min(1).max(64) }).extend(ExecutionParamsSchema.shape),
        response: { 200: EndExecutionAnswerSchema, 401: ApiErrorSchema, ...errors },
      },
      config: { rateLimit: deps.customerLimit },
      preValidation: deps.guard,
    },
    async (request) => {
      const customer = sessionOf(request).customer;
      const license = await deps.customers.ownedOrNotFound(customer, request.params.licenseKey);
      return {
        success: true as const,
        data: await executions.forceEnd(
          license,
          request.params.executionId,
          { actor: { type: "customer", id: customer.id, email: customer.email }, reason: "ended_by_owner" },
          request.ip,
        ),
      };
    },
  );
}
