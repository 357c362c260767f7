/** HTTP for licensing: the desktop API (license key, no bearer) and the customer API (bearer, owner-scoped). */
import { ApiErrorSchema } from "@flotilla/contracts/api-errors";
import {
  AnalyticsQuerySchema,
  CreateLicenseRequestSchema,
  CreateLicenseResponseSchema,
  DashboardResponseSchema,
  LicenseValidateResponseSchema,
  MachineAnalyticsResponseSchema,
  MachineListResponseSchema,
  RemoveMachineResponseSchema,
  UsageRequestSchema,
  UsageResponseSchema,
  ValidateRequestSchema,
} from "@flotilla/contracts/licensing";
import { CLIENT_CONFIGURATION, TIERS } from "@flotilla/contracts/tiers";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Config } from "../../config";
import { requireSession, sessionOf } from "../../plugins/auth-guard";
import type { AuthService } from "../auth/service";
import type { CustomerLicenses } from "./customer-licenses";
import { normalizeLicenseKey } from "./keys";
import { LICENSE_CACHE_TTL_MS } from "./license-cache";
import type { LicensingService } from "./licensing-service";
import type { LicenseSigner } from "./signing";

const IdempotencyHeaders = z.object({ "idempotency-key": z.string().min(8).max(128).optional() });
const errors = {
  400: ApiErrorSchema,
  401: ApiErrorSchema,
  403: ApiErrorSchema,
  404: ApiErrorSchema,
  409: ApiErrorSchema,
  422: ApiErrorSchema,
  429: ApiErrorSchema,
};
const bearer = [{ bearerAuth: [] }];
const KeyParams = z.object({ licenseKey: z.string().min(1).max(64) });

export function registerLicensingRoutes(
  app: FastifyInstance,
  deps: {
    licensing: LicensingService;
    customers: CustomerLicenses;
    signer: LicenseSigner;
    auth: AuthService;
    config: Config;
  },
) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { licensing, customers, config } = deps;
  const perAddress = { max: config.rateLimits.licensePerMinute, timeWindow: "1 minute" };
  // Runs after the body is parsed, so the budget follows the license key whichever address calls.
  const perKey = app.rateLimit({
    max: config.rateLimits.licenseKeyPerMinute,
    timeWindow: "1 minute",
    keyGenerator: (request: FastifyRequest) => {
      const key = (request.body as { license_key?: unknown } | undefined)?.license_key;
      return `license:${typeof key === "string" ? normalizeLicenseKey(key) : "-"}`;
    },
  });

  api.post(
    "/api/license/validate",
    {
      schema: {
        tags: ["Licensing"],
        summary: "Validate a license on a machine (binds the machine when a slot is free)",
        description:
          "Codes are checked in this order: NOT_FOUND, SUSPENDED, EXPIRED, TOO_MANY_MACHINES. A valid answer carries an Ed25519-signed token (EdDSA JWT) that the app verifies offline with GET /api/license/public-key until it expires (the offline grace period). Send an Idempotency-Key to make retries safe.",
        headers: IdempotencyHeaders,
        body: ValidateRequestSchema,
        response: { 200: LicenseValidateResponseSchema, ...errors },
      },
      config: { rateLimit: perAddress },
      preHandler: perKey,
    },
    async (request) => {
      const key = request.headers["idempotency-key"];
      const data = key ? await licensing.validateIdempotent(request.body, key) : await licensing.validate(request.body);
      return { success: true as const, data };
    },
  );

  api.post(
    "/api/license/usage",
    {
      schema: {
        tags: ["Licensing"],
        summary: "Report executions from an activated machine",
        description:
          "Stored before the answer is sent. With an Idempotency-Key, a retried report is never counted twice.",
        headers: IdempotencyHeaders,
        body: UsageRequestSchema,
        response: { 200: UsageResponseSchema, ...errors },
      },
      config: { rateLimit: perAddress },
      preHandler: perKey,
    },
    async (request) => {
      const key = request.headers["idempotency-key"];
      const outcome = await licensing.reportUsage(request.body, key);
      if (outcome.replayed) {
        const answer = await licensing.replayedAnswer(
          licensing.usageScope(request.body.license_key),
          key!,
          licensing.normalizedUsageBody(request.body),
        );
        return { success: true as const, data: answer as { recorded: number; current_month_executions: number } };
      }
      return { success: true as const, data: outcome.answer };
    },
  );

  api.get(
    "/api/license/public-key",
    {
      schema: {
        tags: ["Licensing"],
        summary: "The public key (JWK) that verifies validation tokens offline",
        response: {
          200: z.object({
            success: z.literal(true),
            data: z.object({ kid: z.string(), alg: z.literal("EdDSA"), jwk: z.record(z.string(), z.string()) }),
          }),
        },
      },
    },
    async (_request, reply) => {
      reply.header("cache-control", "public, max-age=3600");
      return {
        success: true as const,
        data: { kid: deps.signer.kid, alg: "EdDSA" as const, jwk: deps.signer.publicJwk },
      };
    },
  );

  const tiersView = () =>
    Object.values(TIERS).map((tier) => ({
      tier: tier.tier,
      max_machines: tier.maxMachines,
      features: tier.features,
      monthly_quota: tier.monthlyQuota,
      available: tier.available,
    }));

  api.get(
    "/api/license/tiers",
    { schema: { tags: ["Licensing"], summary: "Tiers with their machine limits, features and monthly quota" } },
    async () => ({ success: true as const, data: { tiers: tiersView() } }),
  );

  api.get(
    "/api/license/configurations",
    {
      schema: {
        tags: ["Licensing"],
        summary: "Client configuration per tier (heartbeat, offline grace, usage reports)",
      },
    },
    async () => ({
      success: true as const,
      data: {
        heartbeat_interval_seconds: CLIENT_CONFIGURATION.heartbeatIntervalSeconds,
        offline_grace_seconds: CLIENT_CONFIGURATION.offlineGraceSeconds,
        usage_report_interval_seconds: CLIENT_CONFIGURATION.usageReportIntervalSeconds,
        license_cache_seconds: LICENSE_CACHE_TTL_MS / 1000,
        tiers: Object.fromEntries(
          Object.values(TIERS).map((tier) => [
            tier.tier,
            { max_concurrent_executions: tier.features.maxConcurrentExecutions, features: tier.features },
          ]),
        ),
      },
    }),
  );

  api.get("/api/license/health", { schema: { tags: ["Licensing"], summary: "Licensing service health" } }, async () => {
    await app.database.ping();
    return { success: true as const, status: "ok", signing_key_id: deps.signer.kid };
  });

  // ── Customer API ──
  const guard = requireSession(deps.auth);
  const customerLimit = { max: config.rateLimits.perMinute, timeWindow: "1 minute" };

  api.get(
    "/api/customer/dashboard",
    {
      schema: {
        tags: ["Customer"],
        summary: "Everything the dashboard shows",
        security: bearer,
        response: { 200: DashboardResponseSchema, ...errors },
      },
      config: { rateLimit: customerLimit },
      onRequest: guard,
    },
    async (request) => ({ success: true as const, data: await customers.dashboard(sessionOf(request).customer) }),
  );

  api.post(
    "/api/customer/licenses",
    {
      schema: {
        tags: ["Customer"],
        summary: "Create the customer's license (one per customer; only free today)",
        security: bearer,
        body: CreateLicenseRequestSchema,
        response: { 200: CreateLicenseResponseSchema, ...errors },
      },
      config: { rateLimit: customerLimit },
      onRequest: guard,
    },
    async (request) => ({
      success: true as const,
      data: { license: await customers.create(sessionOf(request).customer, request.body.tier) },
    }),
  );

  api.get(
    "/api/license/machines/:licenseKey",
    {
      schema: {
        tags: ["Customer"],
        summary: "Machines bound to one of the customer's licenses",
        security: bearer,
        params: KeyParams,
        response: { 200: MachineListResponseSchema, ...errors },
      },
      config: { rateLimit: customerLimit },
      onRequest: guard,
    },
    async (request) => ({
      success: true as const,
      data: await customers.machines(sessionOf(request).customer, request.params.licenseKey),
    }),
  );

  api.get(
    "/api/license/machines/:licenseKey/analytics",
    {
      schema: {
        tags: ["Customer"],
        summary: "Validation attempts per machine over the last N days (default 30)",
        security: bearer,
        params: KeyParams,
        querystring: AnalyticsQuerySchema,
        response: { 200: MachineAnalyticsResponseSchema, ...errors },
      },
      config: { rateLimit: customerLimit },
      onRequest: guard,
    },
    async (request) => ({
      success: true as const,
      data: await customers.analytics(sessionOf(request).customer, request.params.licenseKey, request.query.days),
    }),
  );

  api.delete(
    "/api/license/machines/:licenseKey/:machineId",
    {
      schema: {
        tags: ["Customer"],
        summary: "Remove a machine from one of the customer's licenses (never the last one)",
        security: bearer,
        params: KeyParams.extend({ machineId: z.string().min(1).max(128) }),
        response: { 200: RemoveMachineResponseSchema, ...errors },
      },
      config: { rateLimit: customerLimit },
      onRequest: guard,
    },
    async (request) => ({
      success: true as const,
      message: await customers.removeMachine(
        sessionOf(request).customer,
        request.params.licenseKey,
        request.params.machineId,
      ),
    }),
  );
}
