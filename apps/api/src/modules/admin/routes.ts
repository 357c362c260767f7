/** /api/admin/*: every route runs the admin guard (session + role, server-side); /api/customer/activity for customers. */
import {
  ActivityPageSchema,
  AdminListSchema,
  AdminMeSchema,
  AdminRoleChangeResponseSchema,
  AdminRoleChangeSchema,
  AuditPageSchema,
  AuditQuerySchema,
  CreateWebhookSchema,
  CustomerDetailSchema,
  CustomerListQuerySchema,
  CustomerPageSchema,
  EndExecutionResponseSchema,
  EndExecutionSchema,
  ErasePersonSchema,
  LicenseActionResponseSchema,
  LicenseActionSchema,
  PageQuerySchema,
  PersonErasureSchema,
  PersonExportSchema,
  PersonRequestSchema,
  QueuedSchema,
  RevokeMachineResponseSchema,
  RevokeMachineSchema,
  SignOutEverywhereSchema,
  SignupCountsQuerySchema,
  SignupCountsSchema,
  SignupFilterSchema,
  SignupListQuerySchema,
  SignupPageSchema,
  SubscriberFilterSchema,
  SubscriberListQuerySchema,
  SubscriberPageSchema,
  UpdateWebhookSchema,
  WebhookDeliveryPageSchema,
  WebhookEndpointResponseSchema,
  WebhookListSchema,
  WebhookWithSecretSchema,
} from "@flotilla/contracts/admin";
import { ApiErrorSchema } from "@flotilla/contracts/api-errors";
import { ExecutionParamsSchema } from "@flotilla/contracts/execution-api";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Config } from "../../config";
import type { Database } from "../../db/client";
import { toCsv } from "../../lib/csv";
import { requireSession, sessionOf } from "../../plugins/auth-guard";
import type { AuthService } from "../auth/service";
import type { Actor } from "../events/record";
import type { ExecutionsService } from "../licenses/executions-service";
import type { PrivacyRequests } from "./privacy";
import { type AdminRoles, requireAdmin } from "./roles";
import { type AdminService, customerActivity } from "./service";
import type { WebhookAdmin } from "./webhooks";

const errors = {
  400: ApiErrorSchema,
  401: ApiErrorSchema,
  403: ApiErrorSchema,
  404: ApiErrorSchema,
  429: ApiErrorSchema,
};
const bearer = [{ bearerAuth: [] }];
const CustomerParams = z.object({ customerId: z.string().min(1).max(64) });
const LicenseParams = z.object({ licenseKey: z.string().min(1).max(64) });
const EndpointParams = z.object({ endpointId: z.string().min(1).max(64) });
const DeliveryParams = EndpointParams.extend({ deliveryId: z.string().min(1).max(64) });
const OkSchema = z.object({ success: z.literal(true), message: z.string() });

function adminActor(request: FastifyRequest): Actor & { email: string } {
  const { customer } = sessionOf(request);
  return { type: "admin", id: customer.id, email: customer.email };
}

export function registerAdminRoutes(
  app: FastifyInstance,
  deps: {
    db: Database;
    auth: AuthService;
    roles: AdminRoles;
    admin: AdminService;
    webhooks: WebhookAdmin;
    privacy: PrivacyRequests;
    executions: ExecutionsService;
    config: Config;
  },
) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { admin, webhooks, roles } = deps;
  const guard = requireAdmin(deps.auth, roles);
  const common = (summary: string, description?: string) => ({
    tags: ["Admin"],
    summary,
    ...(description ? { description } : {}),
    security: bearer,
  });
  const route = {
    preValidation: guard,
    config: { rateLimit: { max: deps.config.rateLimits.perMinute, timeWindow: "1 minute" } },
  };

  api.get(
    "/api/admin/me",
    { schema: { ...common("The signed-in admin"), response: { 200: AdminMeSchema, ...errors } }, ...route },
    async (request) => ({
      success: true as const,
      data: { email: sessionOf(request).customer.email, source: request.adminSource ?? "config" },
    }),
  );

  api.get(
    "/api/admin/admins",
    {
      schema: {
        ...common("Who is an admin: configured (ADMIN_EMAILS) and granted"),
        response: { 200: AdminListSchema, ...errors },
      },
      ...route,
    },
    async () => ({ success: true as const, data: await roles.list() }),
  );

  api.post(
    "/api/admin/admins",
    {
      schema: {
        ...common(
          "Grant the admin role to an address (reason required)",
          "The address need not have signed in yet: the role applies when it does. Recorded in the audit log (`admin.granted`) with the reason. `changed` is false when the address is an admin already.",
        ),
        body: AdminRoleChangeSchema,
        response: { 200: AdminRoleChangeResponseSchema, ...errors },
      },
      ...route,
    },
    async (request) => {
      const { email, reason } = request.body;
      const changed = await roles.grant(email, adminActor(request), { reason, address: request.ip });
      return {
        success: true as const,
        changed,
        message: changed ? `${email} is now an admin.` : `${email} is an admin already.`,
      };
    },
  );

  api.post(
    "/api/admin/admins/revoke",
    {
      schema: {
        ...common(
          "Revoke a granted admin role (reason required)",
          "Refused (409) for an address in ADMIN_EMAILS (change the configuration), for your own address (another admin revokes it) and for the last admin. Their sessions stay signed in as customers; the admin API refuses them at once. Recorded in the audit log (`admin.revoked`) with the reason.",
        ),
        body: AdminRoleChangeSchema,
        response: { 200: AdminRoleChangeResponseSchema, ...errors, 409: ApiErrorSchema },
      },
      ...route,
    },
    async (request) => {
      const { email, reason } = request.body;
      await roles.revoke(email, adminActor(request), { reason, address: request.ip });
      return { success: true as const, changed: true, message: `${email} is no longer an admin.` };
    },
  );

  api.get(
    "/api/admin/signups",
    {
      schema: {
        ...common("Early-access signups: search and filter, newest first (keyset pages)"),
        querystring: SignupListQuerySchema,
        response: { 200: SignupPageSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({ success: true as const, ...(await admin.signups(request.query)) }),
  );

  api.get(
    "/api/admin/signups/counts",
    {
      schema: {
        ...common("Signups over time (per UTC day, week or month) for the same filters"),
        querystring: SignupCountsQuerySchema,
        response: { 200: SignupCountsSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({ success: true as const, ...(await admin.signupCounts(request.query)) }),
  );

  api.get(
    "/api/admin/signups/export",
    {
      schema: {
        ...common("CSV of every signup matching the filters"),
        querystring: SignupFilterSchema,
        response: { 200: z.string(), ...errors },
      },
      ...route,
    },
    async (request, reply) => {
      const rows = await admin.signupExport(request.query);
      const headers = [
        "email",
        "name",
        "company",
        "role",
        "ai_experience",
        "platform",
        "interests",
        "newsletter",
        "created_at",
      ];
      reply
        .type("text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="signups-${new Date().toISOString().slice(0, 10)}.csv"`)
        .header("cache-control", "no-store");
      return `${toCsv(rows, headers)}\n`;
    },
  );

  api.get(
    "/api/admin/subscribers",
    {
      schema: {
        ...common("Newsletter subscribers (pending, confirmed, unsubscribed)"),
        querystring: SubscriberListQuerySchema,
        response: { 200: SubscriberPageSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({ success: true as const, ...(await admin.subscribers(request.query)) }),
  );

  api.get(
    "/api/admin/subscribers/export",
    {
      schema: {
        ...common("CSV of every newsletter subscriber matching the filters"),
        querystring: SubscriberFilterSchema,
        response: { 200: z.string(), ...errors },
      },
      ...route,
    },
    async (request, reply) => {
      const rows = await admin.subscriberExport(request.query);
      const headers = ["email", "source", "status", "subscribed_at", "confirmed_at", "unsubscribed_at"];
      reply
        .type("text/csv; charset=utf-8")
        .header(
          "content-disposition",
          `attachment; filename="subscribers-${new Date().toISOString().slice(0, 10)}.csv"`,
        )
        .header("cache-control", "no-store");
      return `${toCsv(rows, headers)}\n`;
    },
  );

  api.get(
    "/api/admin/customers",
    {
      schema: {
        ...common("Customers by email or name"),
        querystring: CustomerListQuerySchema,
        response: { 200: CustomerPageSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({ success: true as const, ...(await admin.customers(request.query)) }),
  );

  api.get(
    "/api/admin/customers/:customerId",
    {
      schema: {
        ...common("A customer with their licenses, devices and live sessions"),
        params: CustomerParams,
        response: { 200: CustomerDetailSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({
      success: true as const,
      data: await admin.customerDetail(
        request.params.customerId,
        async (email) => (await roles.sourceOf(email)) !== null,
      ),
    }),
  );

  api.post(
    "/api/admin/customers/:customerId/sign-out-everywhere",
    {
      schema: {
        ...common("End every session of a customer"),
        params: CustomerParams,
        response: { 200: SignOutEverywhereSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({
      success: true as const,
      revoked: await admin.signOutEverywhere(request.params.customerId, adminActor(request), request.ip),
    }),
  );

  api.post(
    "/api/admin/licenses/:licenseKey/actions",
    {
      schema: {
        ...common(
          "Suspend, reactivate, expire, extend or change a license (reason required)",
          "Recorded in the audit log with the reason; every instance answers from the new state within `visible_within_seconds` (the license-change message, decision 0026).",
        ),
        params: LicenseParams,
        body: LicenseActionSchema,
        response: { 200: LicenseActionResponseSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({
      success: true as const,
      ...(await admin.licenseAction(request.params.licenseKey, request.body, adminActor(request), request.ip)),
    }),
  );

  api.post(
    "/api/admin/licenses/:licenseKey/machines/:machineId/revoke",
    {
      schema: {
        ...common(
          "Revoke a machine: free its slot and bar it, even while its license file works (reason required)",
          "Support's remedy for a leaked key. Unlike the owner, an admin may revoke the last machine and any number of machines holding working license files; each revoked file may keep working offline until it expires (`license_file_valid_until`). Recorded in the audit log with the reason.",
        ),
        params: LicenseParams.extend({ machineId: z.string().min(1).max(128) }),
        body: RevokeMachineSchema,
        response: { 200: RevokeMachineResponseSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({
      success: true as const,
      ...(await admin.revokeMachine(
        request.params.licenseKey,
        request.params.machineId,
        request.body.reason,
        adminActor(request),
        request.ip,
      )),
    }),
  );

  api.post(
    "/api/admin/licenses/:licenseKey/executions/:executionId/end",
    {
      schema: {
        ...common(
          "End a running execution: its slot is free at once (reason required)",
          "For an app that hangs on to its lease. Its app learns it at its next heartbeat (410 EXECUTION_ENDED); the execution counts once in the usage figures. Recorded in the audit log (`execution.ended`, end reason `ended_by_admin`) with the reason. Ending an ended execution changes nothing and answers how it ended. 404 for an execution that is not this license's.",
        ),
        params: LicenseParams.extend(ExecutionParamsSchema.shape),
        body: EndExecutionSchema,
        response: { 200: EndExecutionResponseSchema, ...errors },
      },
      ...route,
    },
    async (request) => {
      const license = await admin.license(request.params.licenseKey);
      return {
        success: true as const,
        data: await deps.executions.forceEnd(
          license,
          request.params.executionId,
          { actor: adminActor(request), reason: "ended_by_admin", note: request.body.reason },
          request.ip,
        ),
      };
    },
  );

  api.post(
    "/api/admin/privacy/export",
    {
      schema: {
        ...common(
          "Export a person: everything the service holds about an email address, as one JSON document",
          "Signups, newsletter subscription, accounts with their licenses (key hint only), devices, sessions (no token hashes), usage, validation counts, the audit events and messages about them. Recorded in the audit log as person.exported, without the address. The address travels in the body so that it stays out of URLs and logs.",
        ),
        body: PersonRequestSchema,
        response: { 200: PersonExportSchema, ...errors },
      },
      ...route,
    },
    async (request, reply) => {
      const document = await deps.privacy.exportPerson(request.body.email, adminActor(request), request.ip);
      reply
        .header(
          "content-disposition",
          `attachment; filename="person-export-${document.generated_at.slice(0, 10)}.json"`,
        )
        .header("cache-control", "no-store");
      return document;
    },
  );

  api.post(
    "/api/admin/privacy/erase",
    {
      schema: {
        ...common(
          "Erase a person: delete their signups, subscription, accounts, licenses, devices, sessions and messages (reason required)",
          "One transaction: each license is deleted under its seat lock, so their devices lose their slots at once; their sessions end; mail and webhook messages about them go. The append-only audit log keeps its rows, which name people by id only, and records person.erased with counts and the reason — which may not contain the address or name.",
        ),
        body: ErasePersonSchema,
        response: { 200: PersonErasureSchema, 409: ApiErrorSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({
      success: true as const,
      data: await deps.privacy.erasePerson(request.body.email, request.body.reason, adminActor(request), request.ip),
    }),
  );

  api.get(
    "/api/admin/audit",
    {
      schema: {
        ...common("The audit log, newest first, filtered by type, actor, target or time"),
        querystring: AuditQuerySchema,
        response: { 200: AuditPageSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({ success: true as const, ...(await admin.audit(request.query)) }),
  );

  api.get(
    "/api/admin/webhooks",
    { schema: { ...common("Webhook endpoints"), response: { 200: WebhookListSchema, ...errors } }, ...route },
    async () => ({ success: true as const, data: await webhooks.list() }),
  );

  api.post(
    "/api/admin/webhooks",
    {
      schema: {
        ...common(
          "Register a webhook endpoint (the signing secret is in this answer only)",
          "https only, to a public address (checked again on every delivery), on any server other machines can reach; a development server reachable from its own machine only also accepts http to localhost.",
        ),
        body: CreateWebhookSchema,
        response: { 200: WebhookWithSecretSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({
      success: true as const,
      ...(await webhooks.create(request.body, adminActor(request), request.ip)),
    }),
  );

  api.get(
    "/api/admin/webhooks/:endpointId",
    {
      schema: {
        ...common("A webhook endpoint"),
        params: EndpointParams,
        response: { 200: WebhookEndpointResponseSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({ success: true as const, data: await webhooks.get(request.params.endpointId) }),
  );

  api.patch(
    "/api/admin/webhooks/:endpointId",
    {
      schema: {
        ...common("Change an endpoint's URL, events or description; enable or disable it"),
        params: EndpointParams,
        body: UpdateWebhookSchema,
        response: { 200: WebhookEndpointResponseSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({
      success: true as const,
      data: await webhooks.update(request.params.endpointId, request.body, adminActor(request), request.ip),
    }),
  );

  api.delete(
    "/api/admin/webhooks/:endpointId",
    {
      schema: { ...common("Delete an endpoint"), params: EndpointParams, response: { 200: OkSchema, ...errors } },
      ...route,
    },
    async (request) => {
      await webhooks.remove(request.params.endpointId, adminActor(request), request.ip);
      return { success: true as const, message: "Endpoint deleted." };
    },
  );

  api.post(
    "/api/admin/webhooks/:endpointId/rotate-secret",
    {
      schema: {
        ...common("Replace the signing secret (shown once); the old one also signs for 24 hours"),
        params: EndpointParams,
        response: { 200: WebhookWithSecretSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({
      success: true as const,
      ...(await webhooks.rotateSecret(request.params.endpointId, adminActor(request), request.ip)),
    }),
  );

  api.post(
    "/api/admin/webhooks/:endpointId/test",
    {
      schema: {
        ...common("Send a webhook.test event to this endpoint"),
        params: EndpointParams,
        response: { 200: QueuedSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({
      success: true as const,
      event_id: await webhooks.sendTest(request.params.endpointId),
      message: "Test event queued.",
    }),
  );

  api.get(
    "/api/admin/webhooks/:endpointId/deliveries",
    {
      schema: {
        ...common("Delivery attempts to this endpoint, newest first, with the status code each got"),
        params: EndpointParams,
        querystring: PageQuerySchema,
        response: { 200: WebhookDeliveryPageSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({
      success: true as const,
      ...(await webhooks.deliveries(request.params.endpointId, request.query)),
    }),
  );

  api.post(
    "/api/admin/webhooks/:endpointId/deliveries/:deliveryId/resend",
    {
      schema: {
        ...common("Send a delivery's event again (same event id)"),
        params: DeliveryParams,
        response: { 200: QueuedSchema, ...errors },
      },
      ...route,
    },
    async (request) => ({
      success: true as const,
      event_id: await webhooks.resend(request.params.endpointId, request.params.deliveryId),
      message: "Delivery queued again.",
    }),
  );

  // The customer's own side of the audit log.
  api.get(
    "/api/customer/activity",
    {
      schema: {
        tags: ["Customer"],
        summary: "What happened to my account and licenses, newest first",
        security: bearer,
        querystring: PageQuerySchema,
        response: { 200: ActivityPageSchema, ...errors },
      },
      preValidation: requireSession(deps.auth),
      config: route.config,
    },
    async (request) => ({
      success: true as const,
      ...(await customerActivity(deps.db, sessionOf(request).customer.id, request.query)),
    }),
  );
}
