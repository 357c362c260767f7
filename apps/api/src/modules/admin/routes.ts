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
import { ExecutionParamsSchema } from "@flotilla/contracts/execution-api";
import { PersonExportSchema, personExportFileName } from "@flotilla/contracts/person-export";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { Config } from "../../config";
import type { Database } from "../../db/client";
import { toCsv } from "../../lib/csv";
import { refusals } from "../../plugins/answers";
import { requireSession, sessionOf } from "../../plugins/auth-guard";
import type { AuthService } from "../auth/service";
import type { Actor } from "../events/record";
import type { ExecutionsService } from "../licenses/executions-service";
import type { PrivacyRequests } from "./privacy";
import { type AdminRoles, requireAdmin } from "./roles";
import { type AdminService, customerActivity } from "./service";
import type { WebhookAdmin } from "./webhooks";

const SIGNED_IN = {
  401: "UNAUTHENTICATED: no bearer token; INVALID_SESSION: the session is unknown, expired or ended.",
  429: "RATE_LIMITED: too many requests from this address this minute (RATE_LIMIT_PER_MINUTE); retry after Retry-After.",
} as const;
/** What every admin call may be refused for: the guard (session, then role) and the rate limit. */
const ADMIN = { ...SIGNED_IN, 403: "FORBIDDEN: the signed-in account is not an admin." } as const;
const withBody = { body: true } as const;
const NOT_JSON = "MALFORMED_JSON: the body is not JSON.";
const BAD_PAGE = "BAD_CURSOR: the cursor is not one this list gave.";
const NO_ENDPOINT = "NOT_FOUND: no webhook endpoint has this id.";
const NO_CUSTOMER = "NOT_FOUND: no customer has this id.";
const NO_LICENSE = "NOT_FOUND: no license has this key.";
const NO_PERSON = "NOT_FOUND: the service holds nothing about this address.";
/** A document a person reads as well as a program: two-space indents, and a final newline. */
const prettyJson = (payload: unknown) => `${JSON.stringify(payload, null, 2)}\n`;
const BAD_WEBHOOK_URL = "INVALID_WEBHOOK_URL: the URL is not https to a public address (the error says why)";
const BAD_ENDPOINT_ID = "VALIDATION_ERROR: the endpoint id is longer than 64 characters";
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
    { schema: { ...common("The signed-in admin"), response: { 200: AdminMeSchema, ...refusals(ADMIN) } }, ...route },
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
        response: { 200: AdminListSchema, ...refusals(ADMIN) },
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
        response: {
          200: AdminRoleChangeResponseSchema,
          ...refusals(
            { ...ADMIN, 400: `VALIDATION_ERROR: the email or reason is missing or invalid; ${NOT_JSON}` },
            withBody,
          ),
        },
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
        response: {
          200: AdminRoleChangeResponseSchema,
          ...refusals(
            {
              ...ADMIN,
              400: `VALIDATION_ERROR: the email or reason is missing or invalid; ${NOT_JSON}`,
              403: `${ADMIN[403]} Also when your own role was revoked meanwhile.`,
              404: "NOT_FOUND: the address holds no granted admin role.",
              409: "ADMIN_CONFIGURED: the address is in ADMIN_EMAILS (change the configuration); ADMIN_SELF: your own address (another admin revokes it); LAST_ADMIN: no admin would be left.",
            },
            withBody,
          ),
        },
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
        response: {
          200: SignupPageSchema,
          ...refusals({ ...ADMIN, 400: `VALIDATION_ERROR: a filter or the limit is invalid; ${BAD_PAGE}` }),
        },
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
        response: {
          200: SignupCountsSchema,
          ...refusals({ ...ADMIN, 400: "VALIDATION_ERROR: a filter or the interval is invalid." }),
        },
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
        response: { 200: z.string(), ...refusals({ ...ADMIN, 400: "VALIDATION_ERROR: a filter is invalid." }) },
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
        response: {
          200: SubscriberPageSchema,
          ...refusals({ ...ADMIN, 400: `VALIDATION_ERROR: a filter or the limit is invalid; ${BAD_PAGE}` }),
        },
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
        response: { 200: z.string(), ...refusals({ ...ADMIN, 400: "VALIDATION_ERROR: a filter is invalid." }) },
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
        response: {
          200: CustomerPageSchema,
          ...refusals({ ...ADMIN, 400: `VALIDATION_ERROR: the search or the limit is invalid; ${BAD_PAGE}` }),
        },
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
        response: {
          200: CustomerDetailSchema,
          ...refusals({
            ...ADMIN,
            400: "VALIDATION_ERROR: the customer id is longer than 64 characters.",
            404: NO_CUSTOMER,
          }),
        },
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
        response: {
          200: SignOutEverywhereSchema,
          ...refusals(
            {
              ...ADMIN,
              400: `VALIDATION_ERROR: the customer id is longer than 64 characters; ${NOT_JSON}`,
              404: NO_CUSTOMER,
            },
            withBody,
          ),
        },
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
        response: {
          200: LicenseActionResponseSchema,
          ...refusals(
            {
              ...ADMIN,
              400: `VALIDATION_ERROR: the action or one of its fields is invalid, or a change names nothing to change; ${NOT_JSON}`,
              404: NO_LICENSE,
              409: "SLOTS_IN_USE: the new machine limit is below the slots the license's machines hold now.",
            },
            withBody,
          ),
        },
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
        response: {
          200: RevokeMachineResponseSchema,
          ...refusals(
            {
              ...ADMIN,
              400: `VALIDATION_ERROR: the reason is missing, or the key or machine id too long; ${NOT_JSON}`,
              404: `${NO_LICENSE} Or NOT_FOUND: the license has no such machine.`,
            },
            withBody,
          ),
        },
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
        response: {
          200: EndExecutionResponseSchema,
          ...refusals(
            {
              ...ADMIN,
              400: `VALIDATION_ERROR: the reason is missing, the key too long or the execution id not a UUID; ${NOT_JSON}`,
              404: `${NO_LICENSE} Or EXECUTION_NOT_FOUND: the license has no execution with this id.`,
            },
            withBody,
          ),
        },
      },
      ...route,
    },
    async (request) => {
      const license = await admin.license(request.params.licenseKey);
      return {
        success: true as const,
        data: await deps.executions.stop(
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
          "A pretty-printed JSON file (`flotilla.person-export/2`, sent as an attachment) that opens with `about` and a `summary`: for each kind of data, what we hold, where it came from, how long we keep it (the retention job's own periods), how many records there are and where they are under `data`. `data` holds signups, newsletter subscription, accounts with their licenses (key hint only), devices, sessions (no token hashes), usage, validation counts, the audit events and messages about them (matched by their ids and exact address, never by text search). An audit event shows its actor's id and network only where the person acted themselves. Recorded in the audit log as person.exported, without the address. The address travels in the body so that it stays out of URLs and logs.",
        ),
        body: PersonRequestSchema,
        response: {
          200: PersonExportSchema,
          ...refusals(
            { ...ADMIN, 400: `VALIDATION_ERROR: the email is missing or invalid; ${NOT_JSON}`, 404: NO_PERSON },
            withBody,
          ),
        },
      },
      ...route,
    },
    async (request, reply) => {
      const document = await deps.privacy.exportPerson(request.body.email, adminActor(request), request.ip);
      // Pretty-printed for the person who reads it (decision 0056); the same JSON for a program.
      return reply
        .header("content-disposition", `attachment; filename="${personExportFileName(document.generated_at)}"`)
        .header("cache-control", "no-store")
        .serializer(prettyJson)
        .type("application/json; charset=utf-8")
        .send(document);
    },
  );

  api.post(
    "/api/admin/privacy/erase",
    {
      schema: {
        ...common(
          "Erase a person: delete their signups, subscription, accounts, licenses, devices, sessions and messages (reason required)",
          "One transaction: each license is deleted under its seat lock, so their devices lose their slots at once; their sessions end (a token of one of them then answers 401 with `reason: account_erased` until the session would have ended); mail and webhook messages about them go. The append-only audit log keeps its rows, which name people by id only, and records person.erased with counts and the reason — which may not contain the address or name. A notice goes to the address (through the outbox): what was erased, what is kept, and that signing in again creates a new, empty account; its outbox row is deleted once the mail is sent or given up.",
        ),
        body: ErasePersonSchema,
        response: {
          200: PersonErasureSchema,
          ...refusals(
            {
              ...ADMIN,
              400: `VALIDATION_ERROR: the email or reason is missing or invalid, or the reason names the person; ${NOT_JSON}`,
              404: NO_PERSON,
              409: "IS_ADMIN: the address is an admin's; revoke the role first.",
            },
            withBody,
          ),
        },
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
        ...common(
          "The audit log, newest first, filtered by type, actor, target or time",
          "Pseudonymous (decision 0053): actors, targets and admin grants are ids, never addresses or names; `address` is the request's network (IPv4 /24, IPv6 /48). An admin actor's `email` is their account's address today, while it exists. `actor` matches an actor type or id exactly, or an address exactly (the actions of the account that has it now).",
        ),
        querystring: AuditQuerySchema,
        response: {
          200: AuditPageSchema,
          ...refusals({ ...ADMIN, 400: `VALIDATION_ERROR: a filter or the limit is invalid; ${BAD_PAGE}` }),
        },
      },
      ...route,
    },
    async (request) => ({ success: true as const, ...(await admin.audit(request.query)) }),
  );

  api.get(
    "/api/admin/webhooks",
    { schema: { ...common("Webhook endpoints"), response: { 200: WebhookListSchema, ...refusals(ADMIN) } }, ...route },
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
        response: {
          200: WebhookWithSecretSchema,
          ...refusals(
            { ...ADMIN, 400: `${BAD_WEBHOOK_URL}; VALIDATION_ERROR: a field is missing or invalid; ${NOT_JSON}` },
            withBody,
          ),
        },
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
        response: {
          200: WebhookEndpointResponseSchema,
          ...refusals({ ...ADMIN, 400: `${BAD_ENDPOINT_ID}.`, 404: NO_ENDPOINT }),
        },
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
        response: {
          200: WebhookEndpointResponseSchema,
          ...refusals(
            {
              ...ADMIN,
              400: `${BAD_WEBHOOK_URL}; ${BAD_ENDPOINT_ID} or a field is invalid; ${NOT_JSON}`,
              404: NO_ENDPOINT,
            },
            withBody,
          ),
        },
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
      schema: {
        ...common("Delete an endpoint"),
        params: EndpointParams,
        response: {
          200: OkSchema,
          ...refusals({ ...ADMIN, 400: `${BAD_ENDPOINT_ID}; ${NOT_JSON}`, 404: NO_ENDPOINT }, withBody),
        },
      },
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
        response: {
          200: WebhookWithSecretSchema,
          ...refusals({ ...ADMIN, 400: `${BAD_ENDPOINT_ID}; ${NOT_JSON}`, 404: NO_ENDPOINT }, withBody),
        },
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
        response: {
          200: QueuedSchema,
          ...refusals({ ...ADMIN, 400: `${BAD_ENDPOINT_ID}; ${NOT_JSON}`, 404: NO_ENDPOINT }, withBody),
        },
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
        response: {
          200: WebhookDeliveryPageSchema,
          ...refusals({ ...ADMIN, 400: `${BAD_ENDPOINT_ID}, or the limit is invalid; ${BAD_PAGE}`, 404: NO_ENDPOINT }),
        },
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
        response: {
          200: QueuedSchema,
          ...refusals(
            {
              ...ADMIN,
              400: `VALIDATION_ERROR: an id is longer than 64 characters; ${NOT_JSON}`,
              404: `${NO_ENDPOINT} Or NOT_FOUND: the endpoint has no delivery with this id.`,
            },
            withBody,
          ),
        },
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
        response: {
          200: ActivityPageSchema,
          ...refusals({ ...SIGNED_IN, 400: `VALIDATION_ERROR: the limit is invalid; ${BAD_PAGE}` }),
        },
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
