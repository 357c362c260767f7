/** HTTP for licensing: the desktop API (license key, no bearer) and the customer API (bearer, owner-scoped). */
import {
  AnalyticsQuerySchema,
  CheckoutRequestSchema,
  CheckoutResponseSchema,
  CreateLicenseRequestSchema,
  CreateLicenseResponseSchema,
  DashboardResponseSchema,
  DeactivateRequestSchema,
  DeactivateResponseSchema,
  FeaturesSchema,
  HeartbeatRequestSchema,
  HeartbeatResponseSchema,
  LicenseValidateResponseSchema,
  MachineAnalyticsResponseSchema,
  MachineListResponseSchema,
  OfflineActivationRequestSchema,
  OfflineActivationResponseSchema,
  OfflineFilesRequestSchema,
  OfflineFilesResponseSchema,
  RemoveMachineResponseSchema,
  RevokeMachineResponseSchema,
  RotateKeyResponseSchema,
  UsageRequestSchema,
  UsageResponseSchema,
  ValidateRequestSchema,
} from "@flotilla/contracts/licensing";
import { inactiveAfterSeconds, SEAT_RULES } from "@flotilla/contracts/seats";
import { CLIENT_CONFIGURATION, TIERS } from "@flotilla/contracts/tiers";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Config } from "../../config";
import { refusals } from "../../plugins/answers";
import { requireSession, sessionOf } from "../../plugins/auth-guard";
import { HttpProblem } from "../../plugins/errors";
import type { Metrics } from "../../plugins/metrics";
import { keyedLimit } from "../../plugins/rate-limit";
import type { AuthService } from "../auth/service";
import { signAnswers } from "./answer-signing";
import type { CustomerLicenses } from "./customer-licenses";
import { registerExecutionRoutes } from "./execution-routes";
import type { ExecutionsService } from "./executions-service";
import { normalizeLicenseKey } from "./keys";
import type { LicensingService } from "./licensing-service";
import type { LicenseSigner } from "./signing";

const IdempotencyHeaders = z.object({ "idempotency-key": z.string().min(8).max(128).optional() });
/** The license key a desktop request names (an offline activation carries it inside its request file). */
const licenseKeyOf = (body: unknown) => {
  const shaped = body as { license_key?: unknown; request?: { license_key?: unknown } } | undefined;
  const key = shaped?.license_key ?? shaped?.request?.license_key;
  return typeof key === "string" ? normalizeLicenseKey(key) : null;
};
/** What every desktop call may be refused for, whatever it does (an outcome of the license is an answer, not this). */
const DESKTOP_REFUSALS = {
  400: "VALIDATION_ERROR: a field is missing or invalid (the error names it); MALFORMED_JSON: the body is not JSON.",
  429: "RATE_LIMITED: too many calls from this address, or with this license key, this minute (RATE_LIMIT_LICENSE_PER_MINUTE, RATE_LIMIT_LICENSE_KEY_PER_MINUTE); retry after Retry-After.",
} as const;
/** What every customer call may be refused for. */
const CUSTOMER_REFUSALS = {
  401: "UNAUTHENTICATED: no bearer token; INVALID_SESSION: the session is unknown, expired or ended.",
  429: "RATE_LIMITED: too many requests from this address this minute (RATE_LIMIT_PER_MINUTE); retry after Retry-After.",
} as const;
const NOT_YOURS = "NOT_FOUND: none of your licenses has this key (someone else's key answers the same).";
const BAD_KEY = "VALIDATION_ERROR: the license key is longer than 64 characters";
const withBody = { body: true } as const;

const TiersResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    tiers: z.array(
      z.object({
        tier: z.string(),
        max_machines: z.number().int(),
        features: FeaturesSchema,
        monthly_quota: z.number().int(),
        available: z.boolean(),
      }),
    ),
  }),
});
const ConfigurationsResponseSchema = z.object({
  success: z.literal(true),
  data: z.object({
    heartbeat_interval_seconds: z.number().int(),
    offline_grace_seconds: z.number().int(),
    usage_report_interval_seconds: z.number().int(),
    license_cache_seconds: z.number(),
    tiers: z.record(
      z.string(),
      z.object({
        max_concurrent_executions: z.number().int().nullable(),
        features: FeaturesSchema,
        heartbeat_interval_seconds: z.number().int(),
        inactive_after_seconds: z.number().int(),
      }),
    ),
  }),
});
const LicensingHealthSchema = z.object({
  success: z.literal(true),
  status: z.literal("ok"),
  signing_key_id: z.string(),
});
const bearer = [{ bearerAuth: [] }];
const KeyParams = z.object({ licenseKey: z.string().min(1).max(64) });
const MachineParams = KeyParams.extend({ machineId: z.string().min(1).max(128) });
const BAD_MACHINE =
  "VALIDATION_ERROR: the license key is longer than 64 characters or the machine id longer than 128; MALFORMED_JSON: a body that is not JSON.";

export function registerLicensingRoutes(
  app: FastifyInstance,
  deps: {
    licensing: LicensingService;
    customers: CustomerLicenses;
    executions: ExecutionsService;
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

  // Every desktop answer is signed (answer-signing.ts) and sent uncompressed, so the signature covers its bytes.
  const desktop = {
    config: { rateLimit: perAddress },
    preHandler: perKey,
    onSend: signAnswers(deps.signer),
    compress: false as const,
  };
  const signedNote =
    " The answer is signed: the `Flotilla-Signature` header carries an Ed25519 signature (key id, creation time, the request's `Flotilla-Nonce`) over the method, path, time, nonce and SHA-256 of the body; the SDK refuses an answer without a valid one.";

  api.post(
    "/api/license/validate",
    {
      ...desktop,
      schema: {
        tags: ["Licensing"],
        summary: "Validate a license on a machine (binds the machine when a slot is free)",
        description:
          "Codes are checked in this order: NOT_FOUND, SUSPENDED, EXPIRED, MACHINE_REMOVED, TOO_MANY_MACHINES, ACTIVATION_LIMIT. A valid answer carries an Ed25519-signed token (EdDSA JWT, `kid` in its header) that the app verifies offline with the public keys pinned in its build, until it expires (the offline grace period). Validation is naturally idempotent: every call decides from the license's current state, so a retry is safe and never replays an earlier answer (an Idempotency-Key header is accepted and ignored). Limited per client address and per license key (`RATE_LIMIT_LICENSE_PER_MINUTE`, `RATE_LIMIT_LICENSE_KEY_PER_MINUTE`); the `X-RateLimit-*` headers show the limit closer to running out." +
          signedNote,
        body: ValidateRequestSchema,
        // A refused license is an answer (200, `valid: false` and its code), not an error.
        response: { 200: LicenseValidateResponseSchema, ...refusals(DESKTOP_REFUSALS, withBody) },
      },
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
      ...desktop,
      schema: {
        tags: ["Licensing"],
        summary: "Report executions from an activated machine",
        description:
          "Stored before the answer is sent. With an Idempotency-Key, a report retried within 24 hours gets the first answer and is never counted twice; the same key with a different report is a 422.",
        headers: IdempotencyHeaders,
        body: UsageRequestSchema,
        response: {
          200: UsageResponseSchema,
          ...refusals(
            {
              ...DESKTOP_REFUSALS,
              400: `${DESKTOP_REFUSALS[400]} Also an Idempotency-Key shorter than 8 or longer than 128 characters.`,
              403: "SUSPENDED or EXPIRED: the license is not in force; MACHINE_REMOVED: its owner removed this machine; NOT_ACTIVATED: this machine holds no slot (validate first).",
              404: "NOT_FOUND: no license has this key (or a rotated key's grace is over).",
              409: "IDEMPOTENCY_IN_PROGRESS: a report with this Idempotency-Key is still being recorded; retry it.",
              422: "IDEMPOTENCY_KEY_REUSED: this Idempotency-Key came with a different report.",
            },
            withBody,
          ),
        },
      },
    },
    async (request) => ({
      success: true as const,
      data: await licensing.reportUsage(request.body, request.headers["idempotency-key"]),
    }),
  );

  api.post(
    "/api/license/heartbeat",
    {
      ...desktop,
      schema: {
        tags: ["Licensing"],
        summary: "A running app's heartbeat: keeps its slot, refreshes its offline token",
        description: `Send one every \`heartbeat_interval_seconds\` (per tier: GET /api/license/configurations, and in every valid answer). A machine silent for its interval plus ${SEAT_RULES.driftAllowanceSeconds / 60} minutes is marked inactive and its slot freed; if it comes back within ${SEAT_RULES.revivalWindowSeconds / 86400} days it gets its slot back while one is free (else TOO_MANY_MACHINES). A heartbeat never activates a new machine: an unknown one answers NOT_ACTIVATED. The same codes and token as a validation.${signedNote}`,
        body: HeartbeatRequestSchema,
        response: { 200: HeartbeatResponseSchema, ...refusals(DESKTOP_REFUSALS, withBody) },
      },
    },
    async (request) => {
      const data = await licensing.heartbeat(request.body);
      deps.metrics.validation(data.code);
      return { success: true as const, data };
    },
  );

  api.post(
    "/api/license/deactivate",
    {
      ...desktop,
      schema: {
        tags: ["Licensing"],
        summary: "The app frees its own slot (license key and machine id)",
        description: `The machine is forgotten, not barred: it can activate again. At most ${SEAT_RULES.deactivationsPerDay} deactivations per license in any 24 hours (then 429 DEACTIVATION_LIMIT), and at most ${SEAT_RULES.activationsPerDay} new machines per license in any 24 hours (ACTIVATION_LIMIT), so a key cannot be passed around by activating and deactivating in turn. 404 NOT_ACTIVATED when the machine holds no slot.${signedNote}`,
        body: DeactivateRequestSchema,
        response: {
          200: DeactivateResponseSchema,
          ...refusals(
            {
              ...DESKTOP_REFUSALS,
              404: "NOT_FOUND: no license has this key; NOT_ACTIVATED: this machine holds no slot of it.",
              409: "LICENSE_FILE_ACTIVE: the machine holds a license file that still works; it keeps its slot until the file expires.",
              429: `DEACTIVATION_LIMIT: the license's deactivations for 24 hours are used up; retry after Retry-After. Or ${DESKTOP_REFUSALS[429]}`,
            },
            withBody,
          ),
        },
      },
    },
    async (request) => ({ success: true as const, data: await licensing.deactivate(request.body) }),
  );

  api.post(
    "/api/license/checkout",
    {
      ...desktop,
      schema: {
        tags: ["Licensing"],
        summary: "A license file for a machine that will be offline (signed, encrypted to the key and machine)",
        description: `For an activated machine: the same checks as a heartbeat, then a license file valid for \`ttl_seconds\` (default ${SEAT_RULES.licenseFileDefaultTtlSeconds / 86400} days, at most ${SEAT_RULES.licenseFileMaxTtlSeconds / 86400}, never past the license's end). The file is an EdDSA-signed token (typ "license-file": tier, entitlements, machine, issue time, expiry) encrypted with AES-256-GCM under a key derived (HKDF-SHA-256) from the license key and the machine id. A refused check answers 403 with its code: LICENSE_FILES_DISABLED unless the license's owner allowed license files (PUT /api/customer/licenses/{licenseKey}/offline-files).${signedNote}`,
        body: CheckoutRequestSchema,
        response: {
          200: CheckoutResponseSchema,
          ...refusals(
            {
              ...DESKTOP_REFUSALS,
              403: "No file: the code says why, as a heartbeat's would (NOT_FOUND, SUSPENDED, EXPIRED, MACHINE_REMOVED, NOT_ACTIVATED, TOO_MANY_MACHINES), or LICENSE_FILES_DISABLED: the owner has not allowed license files.",
            },
            withBody,
          ),
        },
      },
    },
    async (request) => {
      const { result, file } = await licensing.checkout(request.body);
      if (!file) throw new HttpProblem(403, result.message, result.code);
      return { success: true as const, data: { license_file: file } };
    },
  );

  api.post(
    "/api/license/offline-activations",
    {
      ...desktop,
      schema: {
        tags: ["Licensing"],
        summary: "Activate a machine with no network: its request file in, its license file out",
        description: `The offline machine writes a request file (\`flotilla-license request\`); another computer posts it here (\`flotilla-license exchange\`) and carries the answer back (\`flotilla-license import\`). Binds the machine like a validation (same codes, same limits); \`license_file\` is null when refused. Nothing binds unless the license's owner allowed license files (LICENSE_FILES_DISABLED).${signedNote}`,
        body: OfflineActivationRequestSchema,
        // A refused activation is an answer (200, its code, no file), not an error.
        response: { 200: OfflineActivationResponseSchema, ...refusals(DESKTOP_REFUSALS, withBody) },
      },
    },
    async (request) => {
      const { result, file } = await licensing.offlineActivation(request.body.request, request.body.ttl_seconds);
      deps.metrics.validation(result.code);
      return { success: true as const, data: { code: result.code, message: result.message, license_file: file } };
    },
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
          ...refusals({}, { database: false }),
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
    {
      schema: {
        tags: ["Licensing"],
        summary: "Tiers with their machine limits, features and monthly quota",
        response: { 200: TiersResponseSchema, ...refusals({}, { database: false }) },
      },
    },
    async () => ({ success: true as const, data: { tiers: tiersView() } }),
  );

  api.get(
    "/api/license/configurations",
    {
      schema: {
        tags: ["Licensing"],
        summary: "Client configuration per tier (heartbeat, offline grace, usage reports)",
        response: { 200: ConfigurationsResponseSchema, ...refusals({}, { database: false }) },
      },
    },
    async () => ({
      success: true as const,
      data: {
        // The shortest tier interval, for apps that read one value; each tier's own is below.
        heartbeat_interval_seconds: Math.min(...Object.values(TIERS).map((tier) => tier.heartbeatIntervalSeconds)),
        offline_grace_seconds: CLIENT_CONFIGURATION.offlineGraceSeconds,
        usage_report_interval_seconds: CLIENT_CONFIGURATION.usageReportIntervalSeconds,
        license_cache_seconds: licensing.changeVisibleWithinSeconds(),
        tiers: Object.fromEntries(
          Object.values(TIERS).map((tier) => [
            tier.tier,
            {
              max_concurrent_executions: tier.features.maxConcurrentExecutions,
              features: tier.features,
              heartbeat_interval_seconds: tier.heartbeatIntervalSeconds,
              inactive_after_seconds: inactiveAfterSeconds(tier.heartbeatIntervalSeconds),
            },
          ]),
        ),
      },
    }),
  );

  api.get(
    "/api/license/health",
    {
      schema: {
        tags: ["Licensing"],
        summary: "Licensing service health",
        // Its failure is the generic one: the database did not answer (503).
        response: { 200: LicensingHealthSchema, ...refusals({}) },
      },
    },
    async () => {
      await app.database.ping();
      return { success: true as const, status: "ok" as const, signing_key_id: deps.signer.kid };
    },
  );

  // ── Customer API ──
  const guard = requireSession(deps.auth);
  const customerLimit = { max: config.rateLimits.perMinute, timeWindow: "1 minute" };

  registerExecutionRoutes(app, {
    executions: deps.executions,
    customers,
    desktop,
    signedNote,
    desktopRefusals: DESKTOP_REFUSALS,
    guard,
    customerLimit,
  });

  api.get(
    "/api/customer/dashboard",
    {
      schema: {
        tags: ["Customer"],
        summary: "Everything the dashboard shows",
        security: bearer,
        response: { 200: DashboardResponseSchema, ...refusals(CUSTOMER_REFUSALS) },
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
        response: {
          200: CreateLicenseResponseSchema,
          ...refusals(
            {
              ...CUSTOMER_REFUSALS,
              400: "UNKNOWN_TIER: no tier has this name; TIER_UNAVAILABLE: the tier cannot be chosen yet; VALIDATION_ERROR: no tier given; MALFORMED_JSON: the body is not JSON.",
              409: "LICENSE_EXISTS: you have a license already (one per customer).",
            },
            withBody,
          ),
        },
      },
      config: { rateLimit: customerLimit },
      preValidation: guard,
    },
    async (request) => ({
      success: true as const,
      data: { license: await customers.create(sessionOf(request).customer, request.body.tier, request.ip) },
    }),
  );

  api.post(
    "/api/customer/licenses/:licenseKey/rotate",
    {
      schema: {
        tags: ["Customer"],
        summary: "Rotate a leaked license key: a new key, shown once; the old one stops after a grace period",
        description: `The old key keeps working for ${SEAT_RULES.keyRotationGraceSeconds / 60} minutes so running machines can take the new one, then answers NOT_FOUND. Machines keep their slots when they present the new key.`,
        security: bearer,
        params: KeyParams,
        response: {
          200: RotateKeyResponseSchema,
          ...refusals(
            {
              ...CUSTOMER_REFUSALS,
              400: `${BAD_KEY}; MALFORMED_JSON: a body that is not JSON.`,
              404: NOT_YOURS,
            },
            withBody,
          ),
        },
      },
      config: { rateLimit: customerLimit },
      preValidation: guard,
    },
    async (request) => ({
      success: true as const,
      data: await customers.rotateKey(sessionOf(request).customer, request.params.licenseKey, request.ip),
    }),
  );

  api.put(
    "/api/customer/licenses/:licenseKey/offline-files",
    {
      schema: {
        tags: ["Customer"],
        summary: "Allow or stop license files for offline machines (off by default)",
        description:
          "License files let an activated machine run offline for up to 90 days, holding its slot until the file expires. They are off until the owner allows them, so a leaked key alone cannot check one out (decision 0036). Turning them off stops new files; files already issued work until they expire (revoke a device to free its slot sooner).",
        security: bearer,
        params: KeyParams,
        body: OfflineFilesRequestSchema,
        response: {
          200: OfflineFilesResponseSchema,
          ...refusals(
            {
              ...CUSTOMER_REFUSALS,
              400: `VALIDATION_ERROR: \`allowed\` is missing or not a boolean, or the license key is longer than 64 characters; MALFORMED_JSON: the body is not JSON.`,
              404: NOT_YOURS,
            },
            withBody,
          ),
        },
      },
      config: { rateLimit: customerLimit },
      preValidation: guard,
    },
    async (request) => ({
      success: true as const,
      ...(await customers.setOfflineFiles(
        sessionOf(request).customer,
        request.params.licenseKey,
        request.body.allowed,
        request.ip,
      )),
    }),
  );

  api.delete(
    "/api/customer/licenses/:licenseKey/refusals",
    {
      schema: {
        tags: ["Customer"],
        summary: "Dismiss the notice of devices refused because the license was full",
        security: bearer,
        params: KeyParams,
        response: {
          200: RemoveMachineResponseSchema,
          ...refusals(
            { ...CUSTOMER_REFUSALS, 400: `${BAD_KEY}; MALFORMED_JSON: a body that is not JSON.`, 404: NOT_YOURS },
            withBody,
          ),
        },
      },
      config: { rateLimit: customerLimit },
      preValidation: guard,
    },
    async (request) => ({
      success: true as const,
      message: await customers.dismissRefusals(sessionOf(request).customer, request.params.licenseKey),
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
        response: {
          200: MachineListResponseSchema,
          ...refusals({ ...CUSTOMER_REFUSALS, 400: `${BAD_KEY}.`, 404: NOT_YOURS }),
        },
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
        response: {
          200: MachineAnalyticsResponseSchema,
          ...refusals({
            ...CUSTOMER_REFUSALS,
            400: `VALIDATION_ERROR: \`days\` is not a whole number from 1 to 90, or the license key is longer than 64 characters.`,
            404: NOT_YOURS,
          }),
        },
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
          "The machine loses its slot and its next validation answers MACHINE_REMOVED (the app then drops its offline token). It does not bind again until the owner allows it back (POST …/restore). A machine holding a license file that still works is refused (409 LICENSE_FILE_ACTIVE): revoke it instead (POST …/revoke).",
        security: bearer,
        params: MachineParams,
        response: {
          200: RemoveMachineResponseSchema,
          ...refusals(
            {
              ...CUSTOMER_REFUSALS,
              400: BAD_MACHINE,
              404: `${NOT_YOURS} Or NOT_FOUND: the license has no such machine.`,
              409: "LAST_MACHINE: a license keeps at least one machine; LICENSE_FILE_ACTIVE: the machine holds a license file that still works (revoke it instead).",
            },
            withBody,
          ),
        },
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
    "/api/license/machines/:licenseKey/:machineId/revoke",
    {
      schema: {
        tags: ["Customer"],
        summary: "Revoke a machine: free its slot now, even while its license file works, and bar it",
        description: `The remedy for a leaked key (rotate it first). Like a removal, but a machine holding a license file that still works is freed too: its slot is free at once and its id is barred (MACHINE_REMOVED), while the file itself may keep working offline until it expires — the removed-devices list says until when. A license may hold at most one such revoked file per device slot at a time (409 REVOCATION_LIMIT). Never the last device (409 LAST_MACHINE).`,
        security: bearer,
        params: MachineParams,
        response: {
          200: RevokeMachineResponseSchema,
          ...refusals(
            {
              ...CUSTOMER_REFUSALS,
              400: BAD_MACHINE,
              404: `${NOT_YOURS} Or NOT_FOUND: the license has no such machine.`,
              409: "LAST_MACHINE: a license keeps at least one machine; REVOCATION_LIMIT: the license holds as many revoked files that still work as it has slots (the error says when one frees).",
            },
            withBody,
          ),
        },
      },
      config: { rateLimit: customerLimit },
      preValidation: guard,
    },
    async (request) => ({
      success: true as const,
      ...(await customers.revokeMachine(
        sessionOf(request).customer,
        request.params.licenseKey,
        request.params.machineId,
        request.ip,
      )),
    }),
  );

  api.post(
    "/api/license/machines/:licenseKey/:machineId/restore",
    {
      schema: {
        tags: ["Customer"],
        summary: "Allow a removed machine again (it re-binds on its next validation while a slot is free)",
        security: bearer,
        params: MachineParams,
        response: {
          200: RemoveMachineResponseSchema,
          ...refusals(
            {
              ...CUSTOMER_REFUSALS,
              400: BAD_MACHINE,
              404: `${NOT_YOURS} Or NOT_FOUND: no removed machine of this license has this id.`,
            },
            withBody,
          ),
        },
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
