/**
 * The OpenAPI 3.1 document, built from the same zod schemas that validate the routes, in the shape integrators' tools
 * expect (Redocly's recommended rules, code generators; decision 0042):
 *   - every operation has a stable, readable `operationId` from OPERATION_IDS below: lowerCamelCase, a verb and what
 *     it acts on (`validateLicense`, `listMachines`); operations of the admin API start with `admin`;
 *   - every operation says how it is authorised: the bearer session where the route declares it, `security: []`
 *     (public) everywhere else;
 *   - `servers` names the deployment's public origin.
 * Routes that are not API operations (the static site) are hidden by their own schema.
 */
import swagger from "@fastify/swagger";
import { BRAND } from "@flotilla/contracts";
import type { FastifyInstance } from "fastify";
import { jsonSchemaTransform } from "fastify-type-provider-zod";

/**
 * "METHOD /path" (OpenAPI path syntax) → operationId. Renaming one breaks every generated client: add, don't rename.
 * The test in openapi-lint.test.ts fails when an operation has no entry here or an entry names no operation.
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  "GET /api/health": "getHealth",
  "GET /api/ready": "getReadiness",
  "POST /api/signup": "joinEarlyAccess",
  "POST /api/newsletter": "subscribeToNewsletter",
  "GET /api/newsletter/unsubscribe": "unsubscribeFromNewsletter",
  "POST /api/newsletter/confirm": "confirmNewsletterSubscription",
  "POST /api/auth/google/url": "startSignIn",
  "GET /api/auth/google/url": "startSignInByQuery",
  "POST /api/auth/google/callback": "finishSignIn",
  "POST /api/auth/adopt": "adoptSession",
  "GET /api/auth/validate": "validateSession",
  "POST /api/auth/logout": "signOut",
  "POST /api/auth/logout-all": "signOutEverywhere",
  "POST /api/auth/refresh": "refreshSession",
  "GET /api/auth/profile": "getProfile",
  "POST /api/license/validate": "validateLicense",
  "POST /api/license/usage": "reportUsage",
  "POST /api/license/heartbeat": "sendHeartbeat",
  "POST /api/license/deactivate": "deactivateMachine",
  "POST /api/license/checkout": "checkOutLicenseFile",
  "POST /api/license/offline-activations": "activateOffline",
  "GET /api/license/public-key": "getLicensePublicKey",
  "GET /api/license/tiers": "listTiers",
  "GET /api/license/configurations": "listClientConfigurations",
  "GET /api/license/health": "getLicensingHealth",
  "POST /api/license/executions": "startExecution",
  "POST /api/license/executions/{executionId}/heartbeat": "sendExecutionHeartbeat",
  "POST /api/license/executions/{executionId}/end": "endExecution",
  "POST /api/license/executions/running": "listRunningExecutions",
  "POST /api/license/executions/watch": "watchExecutions",
  "DELETE /api/customer/licenses/{licenseKey}/executions/{executionId}": "endCustomerExecution",
  "GET /api/customer/dashboard": "getDashboard",
  "POST /api/customer/licenses": "createLicense",
  "POST /api/customer/licenses/{licenseKey}/rotate": "rotateLicenseKey",
  "PUT /api/customer/licenses/{licenseKey}/offline-files": "setOfflineFiles",
  "DELETE /api/customer/licenses/{licenseKey}/refusals": "dismissRefusedActivations",
  "GET /api/customer/activity": "listActivity",
  "GET /api/customer/events": "streamCustomerEvents",
  "GET /api/license/machines/{licenseKey}": "listMachines",
  "GET /api/license/machines/{licenseKey}/analytics": "getMachineAnalytics",
  "DELETE /api/license/machines/{licenseKey}/{machineId}": "removeMachine",
  "POST /api/license/machines/{licenseKey}/{machineId}/revoke": "revokeMachine",
  "POST /api/license/machines/{licenseKey}/{machineId}/restore": "restoreMachine",
  "GET /api/admin/me": "adminGetMe",
  "GET /api/admin/admins": "adminListAdmins",
  "POST /api/admin/admins": "adminGrantAdmin",
  "POST /api/admin/admins/revoke": "adminRevokeAdmin",
  "GET /api/admin/signups": "adminListSignups",
  "GET /api/admin/signups/counts": "adminCountSignups",
  "GET /api/admin/signups/export": "adminExportSignups",
  "GET /api/admin/subscribers": "adminListSubscribers",
  "GET /api/admin/subscribers/export": "adminExportSubscribers",
  "GET /api/admin/customers": "adminListCustomers",
  "GET /api/admin/customers/{customerId}": "adminGetCustomer",
  "POST /api/admin/customers/{customerId}/sign-out-everywhere": "adminSignOutCustomerEverywhere",
  "POST /api/admin/licenses/{licenseKey}/actions": "adminChangeLicense",
  "POST /api/admin/licenses/{licenseKey}/machines/{machineId}/revoke": "adminRevokeMachine",
  "POST /api/admin/licenses/{licenseKey}/executions/{executionId}/end": "adminEndExecution",
  "POST /api/admin/privacy/export": "adminExportPerson",
  "POST /api/admin/privacy/erase": "adminErasePerson",
  "GET /api/admin/audit": "adminListAuditEvents",
  "GET /api/admin/webhooks": "adminListWebhookEndpoints",
  "POST /api/admin/webhooks": "adminCreateWebhookEndpoint",
  "GET /api/admin/webhooks/{endpointId}": "adminGetWebhookEndpoint",
  "PATCH /api/admin/webhooks/{endpointId}": "adminUpdateWebhookEndpoint",
  "DELETE /api/admin/webhooks/{endpointId}": "adminDeleteWebhookEndpoint",
  "POST /api/admin/webhooks/{endpointId}/rotate-secret": "adminRotateWebhookSecret",
  "POST /api/admin/webhooks/{endpointId}/test": "adminSendWebhookTest",
  "GET /api/admin/webhooks/{endpointId}/deliveries": "adminListWebhookDeliveries",
  "POST /api/admin/webhooks/{endpointId}/deliveries/{deliveryId}/resend": "adminResendWebhookDelivery",
  "POST /api/admin/releases": "adminCreateRelease",
  "GET /api/admin/releases": "adminListReleases",
  "GET /api/admin/releases/{releaseId}": "adminGetRelease",
  "POST /api/admin/releases/{releaseId}/artifacts": "adminAddArtifact",
  "DELETE /api/admin/releases/{releaseId}/artifacts/{artifactId}": "adminRemoveArtifact",
  "GET /api/admin/uploads/{uploadId}": "adminGetUpload",
  "PATCH /api/admin/uploads/{uploadId}": "adminAppendUpload",
  "POST /api/admin/uploads/{uploadId}/parts": "adminPresignUploadParts",
  "POST /api/admin/uploads/{uploadId}/complete": "adminCompleteUpload",
  "POST /api/admin/releases/{releaseId}/publish": "adminPublishRelease",
  "POST /api/admin/releases/{releaseId}/yank": "adminYankRelease",
  "POST /api/admin/releases/{releaseId}/promote": "adminPromoteRelease",
  "GET /api/admin/operator-tokens": "adminListOperatorTokens",
  "POST /api/admin/operator-tokens": "adminCreateOperatorToken",
  "DELETE /api/admin/operator-tokens/{tokenId}": "adminRevokeOperatorToken",
  "GET /api/admin/downloads/platforms": "adminListDownloadPlatforms",
  "PUT /api/admin/downloads/platforms/{platform}": "adminSetDownloadPlatform",
  "POST /api/license/updates/check": "checkForUpdate",
  "GET /api/license/updates/sparkle/appcast.xml": "getSparkleAppcast",
  "GET /api/license/updates/tauri/{target}/{arch}/{currentVersion}": "getTauriUpdate",
  "GET /api/license/updates/artifacts/{artifactId}/download": "downloadFeedArtifact",
  "GET /api/customer/downloads": "listCustomerDownloads",
  "GET /api/downloads/{token}": "downloadArtifact",
  "GET /api/releases/notes": "listReleaseNotes",
  "GET /api/downloads/platforms": "listOpenPlatforms",
  "GET /api/admin/beta/waves": "adminListBetaWaves",
  "POST /api/admin/beta/waves": "adminCreateBetaWave",
  "GET /api/admin/beta/candidates": "adminListBetaCandidates",
  "GET /api/admin/beta/waves/{waveId}/invitations": "adminListBetaInvitations",
  "POST /api/admin/beta/waves/{waveId}/admit": "adminAdmitBetaTesters",
  "POST /api/admin/beta/invitations/{invitationId}/resend": "adminResendBetaInvitation",
  "POST /api/admin/beta/invitations/{invitationId}/withdraw": "adminWithdrawBetaInvitation",
};

/** Fastify's `/a/:b` as OpenAPI's `/a/{b}`. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

export async function registerOpenApi(app: FastifyInstance, options: { publicOrigin: string }) {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: `${BRAND.name} API`,
        version: "1.0.0",
        description: `The JSON API behind the ${BRAND.name} site, customer portal and desktop app. Errors are { success: false, error, code }.`,
        license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
      },
      servers: [{ url: options.publicOrigin, description: `${BRAND.name} at this deployment's public origin` }],
      tags: [
        { name: "Early access", description: "Signup and newsletter" },
        { name: "Sign-in", description: "OpenID Connect sign-in and bearer sessions" },
        { name: "Licensing", description: "What the desktop app calls with its license key" },
        {
          name: "Executions",
          description: "Leases on a license's concurrent executions, held by the desktop app while a task runs",
        },
        { name: "Customer", description: "The signed-in customer's licenses, devices and usage (bearer token)" },
        { name: "Admin", description: "The operator's console (bearer token of an admin)" },
        {
          name: "Releases",
          description:
            "Distribution: releases and signed artifacts (operator token or admin), update checks and updater feeds (license key), download links",
        },
        { name: "Service", description: "Health and readiness" },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: "http",
            scheme: "bearer",
            description: "The opaque session token returned by the sign-in callback.",
          },
          licenseAuth: {
            type: "apiKey",
            in: "header",
            name: "Authorization",
            description:
              "`License <license key>` (Keygen's scheme), with the machine's id in the `Flotilla-Machine-Id` header: what Sparkle and Tauri send to the update feeds.",
          },
        },
      },
    },
    transform: (input) => {
      const transformed = jsonSchemaTransform(input);
      const { schema } = transformed;
      if (!schema || schema.hide) return transformed;
      const method = String(Array.isArray(input.route.method) ? input.route.method[0] : input.route.method);
      const operationId = OPERATION_IDS[`${method.toUpperCase()} ${openApiPath(input.url)}`];
      return {
        ...transformed,
        schema: { ...schema, security: schema.security ?? [], ...(operationId ? { operationId } : {}) },
      };
    },
  });
}
