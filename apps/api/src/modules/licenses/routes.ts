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
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Config } from "../../config";
import { requireSession, sessionOf } from "../../plugins/auth-guard";
import type { Metrics } from "../../plugins/metrics";
import { keyedLimit } from "../../plugins/rate-limit";
import type { AuthService } from "../auth/service";
import type { CustomerLicenses } from "./customer-licenses";
import { normalizeLicenseKey } from "./keys";
import type { LicensingService } from "./licensing-service";
import type { LicenseSigner } from "./signing";

const IdempotencyHeaders = z.object({ "idempotency-key": z.string().min(8).max(128).optional() });
const licenseKeyOf = (body: unknown) => {
  const key = (body as { license_key?: unknown } | undefined)?.license_key;
  return typeof key === "string" ? normalizeLicenseKey(key) : null;
};
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
    metrics: Pick<Metrics, "validation">;
  },
) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { licensing, customers, config } = deps;
  const perAddress = { max: config.rateLimits.licensePerMinute, timeWindow: "1 minute" };
  // Runs after the body is validated, so the budget follows the license key whichever address calls; the
  // per-address limit (config.rateLimit) runs first and both hold.
  const perKey = keyedLimit(app, {
    name: "license-key",
    max: config.rateLimits.licenseKeyPerMinute,
    keyOf: (request) => licenseKeyOf(request.body),
  });

  api.post(
    "/api/license/validate",
    {
      schema: {
        tags: ["Licensing"],
        summary: "Validate a license on a machine (binds the machine when a slot is free)",
        description:
          "Codes are checked in this order: NOT_FOUND, SUSPENDED, EXPIRED, MACHINE_REMOVED, TOO_MANY_MACHINES. A valid answer carries an Ed25519-signed token (EdDSA JWT, `kid` in its header) that the app verifies offline with the public keys pinned in its build, until it expires (the offline grace period). Validation is naturally idempotent: every call decides from the license's current state, so a retry is safe and never replays an earlier answer (an Idempotency-Key header is accepted and ignored). Limited per client address and per license key (`RATE_LIMIT_LICENSE_PER_MINUTE`, `RATE_LIMIT_LICENSE_KEY_PER_MINUTE`); the `X-RateLimit-*` headers show the limit closer to running out.",
        body: ValidateRequestSchema,
        response: { 200: LicenseValidateResponseSchema, ...errors },
      },
      config: { rateLimit: perAddress },
      preHandler: perKey,
    },
    async (request) => {
      const data = await licensing.validate(request.body);
      deps.metrics.validation(data.code);
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
          "Stored before the answer is sent. With an Idempotency-Key, a report retried within 24 hours gets the first answer and is never counted twice; the same key with a different report is a 422.",
        headers: IdempotencyHeaders,
        body: UsageRequestSchema,
        response: { 200: UsageResponseSchema, ...errors },
      },
      config: { rateLimit: perAddress },
      preHandler: perKey,
    },
    async (request) => ({
      success: true as const,
      data: await licensing.reportUsage(request.body, request.headers["idempotency-key"]),
    }),
  );

  api.get(
    "/api/license/public-key",
    {
      schema: {
        tags: ["Licensing"],
        summary: "The public key (JWK) that signs validation tokens, for pinning into an SDK build",
        description:
          "What a publisher pins into its build of the SDK (packages/license-client, FLOTILLA_TRUSTED_KEYS). The SDK never fetches it at run time: a key fetched from whatever server the app talks to proves nothing.",
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
        license_cache_seconds: licensing.changeVisibleWithinSeconds(),
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
      preValidation: guard,
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
      preValidation: guard,
    },
    async (request) => ({
      success: true as const,
      data: { license: await customers.create(sessionOf(request).customer, request.body.tier, request.ip) },
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
      preValidation: guard,
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
      preValidation: guard,
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
        description:
          "The machine loses its slot and its next validation answers MACHINE_REMOVED (the app then drops its offline token). It does not bind again until the owner allows it back (POST …/restore).",
        security: bearer,
        params: KeyParams.extend({ machineId: z.string().min(1).max(128) }),
        response: { 200: RemoveMachineResponseSchema, ...errors },
      },
      config: { rateLimit: customerLimit },
      preValidation: guard,
    },
    async (request) => ({
      success: true as const,
      message: await customers.removeMachine(
        sessionOf(request).customer,
        request.params.licenseKey,
        request.params.machineId,
        request.ip,
      ),
    }),
  );

  api.post(
    "/api/license/machines/:licenseKey/:machineId/restore",
    {
      schema: {
        tags: ["Customer"],
        summary: "Allow a removed machine again (it re-binds on its next validation while a slot is free)",
        security: bearer,
        params: KeyParams.extend({ machineId: z.string().min(1).max(128) }),
        response: { 200: RemoveMachineResponseSchema, ...errors },
      },
      config: { rateLimit: customerLimit },
      preValidation: guard,
    },
    async (request) => ({
      success: true as const,
      message: await customers.restoreMachine(
        sessionOf(request).customer,
        request.params.licenseKey,
        request.params.machineId,
        request.ip,
      ),
    }),
  );
}
