/**
 * The admin API's contracts (/api/admin/*): filters, pages, actions and answers. Pages are keyset-paginated:
 * pass back `next_cursor` as `cursor` until it is null.
 */
import { z } from "zod";
import { EVENT_TYPE_NAMES, WEBHOOK_EVENT_TYPES } from "./events";
import { StopExecutionAnswerSchema } from "./execution-api";
import { EXECUTION_END_REASONS } from "./executions";
import { AUDIT_NETWORK_TEXT } from "./retention";
import { EMAIL_SHAPE } from "./signup";
import { TIER_IDS } from "./tiers";

export const ADMIN_ERRORS = {
  forbidden: "This needs an admin account.",
  reasonRequired: "Give a reason for the change.",
  badCursor: "This page link is no longer valid; start from the first page.",
  customerNotFound: "No customer with this id.",
  licenseNotFound: "No license with this key.",
  endpointNotFound: "No webhook endpoint with this id.",
  deliveryNotFound: "No delivery with this id for this endpoint.",
  machineNotFound: "No machine with this id on this license.",
  executionNotFound: "No execution with this id on this license.",
  personNotFound: "We hold no signup, subscription or account under this address.",
  reasonNamesPerson: "Leave the address and name out of the reason: the audit log keeps it after the erasure.",
  eraseAdmin: "This address has the admin role: revoke it before erasing the person.",
  changeNeedsSomething: "Give a tier, a device limit, license files on or off, or any of them.",
  adminEmailInvalid: "Enter an email address, like name@example.com.",
  adminNotFound: "This address is not an admin.",
  adminConfigured:
    "This address is an admin by configuration (ADMIN_EMAILS): remove it there, then restart the server.",
  adminSelf: "You cannot revoke your own admin role: another admin can.",
  adminLast: "This is the last admin: grant the role to someone else first.",
  limitBelowSlotsInUse: (inUse: number) =>
    `${inUse} ${inUse === 1 ? "device holds a slot" : "devices hold slots"} on this license: choose at least ${inUse}, or revoke devices first.`,
} as const;

const optionalText = z.string().trim().max(200).optional();
const isoDate = z.iso.datetime({ offset: true }).or(z.iso.date()).optional();

export const PageQuerySchema = z.object({
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const SignupFilterSchema = z.object({
  q: optionalText,
  role: optionalText,
  platform: optionalText,
  experience: optionalText,
  interest: optionalText,
  from: isoDate,
  to: isoDate,
});
export const SignupListQuerySchema = SignupFilterSchema.extend(PageQuerySchema.shape);
export const SignupCountsQuerySchema = SignupFilterSchema.extend({
  interval: z.enum(["day", "week", "month"]).default("day"),
});

const page = <T extends z.ZodType>(item: T) =>
  z.object({ success: z.literal(true), data: z.array(item), next_cursor: z.string().nullable() });

export const AdminSignupSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  company: z.string(),
  role: z.string(),
  ai_experience: z.string(),
  platform: z.string(),
  interests: z.string(),
  newsletter: z.boolean(),
  created_at: z.string(),
});
export const SignupPageSchema = page(AdminSignupSchema);
export const SignupCountsSchema = z.object({
  success: z.literal(true),
  interval: z.enum(["day", "week", "month"]),
  total: z.number().int(),
  data: z.array(z.object({ period: z.string(), count: z.number().int() })),
});

export const SUBSCRIBER_STATUSES = ["pending", "confirmed", "unsubscribed"] as const;
export const SubscriberFilterSchema = z.object({
  q: optionalText,
  status: z.enum(SUBSCRIBER_STATUSES).optional(),
});
export type SubscriberFilter = z.output<typeof SubscriberFilterSchema>;
export const SubscriberListQuerySchema = SubscriberFilterSchema.extend(PageQuerySchema.shape);
export const AdminSubscriberSchema = z.object({
  id: z.string(),
  email: z.string(),
  source: z.string(),
  status: z.enum(SUBSCRIBER_STATUSES),
  subscribed_at: z.string(),
  confirmed_at: z.string().nullable(),
  unsubscribed_at: z.string().nullable(),
});
export const SubscriberPageSchema = page(AdminSubscriberSchema);

export const CustomerListQuerySchema = PageQuerySchema.extend({ q: optionalText });
export const AdminCustomerSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  created_at: z.string(),
  last_sign_in_at: z.string().nullable(),
});
export const CustomerPageSchema = page(AdminCustomerSchema);
export const AdminLicenseSchema = z.object({
  id: z.string(),
  license_key: z.string(),
  tier: z.string(),
  status: z.string(),
  max_machines: z.number().int(),
  expires_at: z.string().nullable(),
  last_seen: z.string().nullable(),
  created_at: z.string(),
  offline_files_allowed: z.boolean(),
});
/**
 * A lease as the console shows it: running (holds a slot), stopping (stopped, holds its slot until its app has
 * stopped), expired (silent, not counted) or ended.
 */
export const ADMIN_EXECUTION_STATUSES = ["running", "stopping", "expired", "ended"] as const;
export type AdminExecutionStatus = (typeof ADMIN_EXECUTION_STATUSES)[number];
/** How many ended or expired executions the customer detail lists per license, after every running one. */
export const ADMIN_RECENT_EXECUTIONS = 10;
/** At most this many running executions are listed per license (an unlimited tier may run many); `running` counts all. */
export const ADMIN_RUNNING_EXECUTIONS_LISTED = 100;
export const AdminExecutionSchema = z.object({
  id: z.string(),
  /** The machine's short id and name; null when the machine's row is gone. */
  display_id: z.string().nullable(),
  machine_name: z.string().nullable(),
  feature: z.string(),
  started_at: z.string(),
  last_heartbeat_at: z.string(),
  expires_at: z.string(),
  ended_at: z.string().nullable(),
  end_reason: z.enum(EXECUTION_END_REASONS).nullable(),
  status: z.enum(ADMIN_EXECUTION_STATUSES),
});
export type AdminExecution = z.infer<typeof AdminExecutionSchema>;
/** A license's executions in the customer detail: every running one, then the most recent others; newest first. */
export const AdminLicenseExecutionsSchema = z.object({
  /** The tier's limit of concurrent executions; null when unlimited. */
  limit: z.number().int().nullable(),
  /** Executions running now (all of them, even past the listed bound). */
  running: z.number().int(),
  list: z.array(AdminExecutionSchema),
});
export type AdminLicenseExecutions = z.infer<typeof AdminLicenseExecutionsSchema>;

export const CustomerDetailSchema = z.object({
  success: z.literal(true),
  data: z.object({
    customer: AdminCustomerSchema,
    is_admin: z.boolean(),
    licenses: z.array(
      AdminLicenseSchema.extend({
        machines: z.array(
          z.object({
            machine_id: z.string(),
            display_id: z.string(),
            machine_name: z.string().nullable(),
            platform: z.string().nullable(),
            is_primary: z.boolean(),
            bound_at: z.string(),
            last_seen: z.string().nullable(),
            status: z.enum(["active", "inactive"]),
            /** Until when a license file issued to it works offline; null without one. */
            license_file_until: z.string().nullable(),
          }),
        ),
        executions: AdminLicenseExecutionsSchema,
      }),
    ),
    sessions: z.array(
      z.object({
        id: z.string(),
        created_at: z.string(),
        last_used_at: z.string(),
        expires_at: z.string(),
      }),
    ),
  }),
});
export type CustomerDetail = z.infer<typeof CustomerDetailSchema>["data"];
export type AdminLicense = CustomerDetail["licenses"][number];
export type AdminMachine = AdminLicense["machines"][number];
export const SignOutEverywhereSchema = z.object({ success: z.literal(true), revoked: z.number().int() });

const reason = z.string({ error: ADMIN_ERRORS.reasonRequired }).trim().min(3, ADMIN_ERRORS.reasonRequired).max(500);
export const LicenseActionSchema = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("suspend"), reason }),
  z.strictObject({ action: z.literal("reactivate"), reason }),
  z.strictObject({ action: z.literal("expire"), reason }),
  z.strictObject({
    action: z.literal("extend"),
    reason,
    /** The new end date; null removes it (never ends). */
    expires_at: z.iso.datetime({ offset: true }).nullable(),
  }),
  z.strictObject({
    action: z.literal("change"),
    reason,
    tier: z.enum(TIER_IDS as [string, ...string[]]).optional(),
    max_machines: z.number().int().min(1).max(1000).optional(),
    /** The owner's consent to license files, set on their behalf (support). */
    offline_files: z.boolean().optional(),
  }),
]);
export type LicenseAction = z.infer<typeof LicenseActionSchema>;

/** An admin revokes a machine (even the last, even with a working license file): reason required. */
export const RevokeMachineSchema = z.strictObject({ reason });
export const RevokeMachineResponseSchema = z.object({
  success: z.literal(true),
  /** The revoked machine's license file may keep working offline until then; null without one. */
  license_file_valid_until: z.string().nullable(),
  visible_within_seconds: z.number(),
});
export type RevokeMachineAnswer = z.infer<typeof RevokeMachineResponseSchema>;
/**
 * An admin stops a running execution: reason required, kept in the audit log. It holds its slot until its app has
 * stopped or its heartbeat window has passed (decision 0052).
 */
export const EndExecutionSchema = z.strictObject({ reason });
export const EndExecutionResponseSchema = StopExecutionAnswerSchema;
export type EndExecutionAnswer = z.infer<typeof EndExecutionResponseSchema>;
export const LicenseActionResponseSchema = z.object({
  success: z.literal(true),
  data: AdminLicenseSchema,
  /** Seconds within which every instance answers from the new state. */
  visible_within_seconds: z.number(),
});

export const AuditQuerySchema = PageQuerySchema.extend({
  type: z.enum(EVENT_TYPE_NAMES).optional(),
  actor: optionalText,
  target_type: optionalText,
  target_id: optionalText,
  customer_id: z.uuid().optional(),
  license_id: z.uuid().optional(),
  from: isoDate,
  to: isoDate,
});
export const AuditEventSchema = z.object({
  id: z.string(),
  type: z.string(),
  actor: z.object({ type: z.string(), id: z.string().nullable(), email: z.string().nullable() }),
  target: z.object({ type: z.string(), id: z.string() }),
  customer_id: z.string().nullable(),
  license_id: z.string().nullable(),
  /** "…ABCDE": the license's current key, as much as recognises it; null when the event has no license. */
  license_key_hint: z.string().nullable(),
  before: z.unknown(),
  after: z.unknown(),
  reason: z.string().nullable(),
  address: z.string().nullable(),
  occurred_at: z.string(),
});
export type AuditEvent = z.infer<typeof AuditEventSchema>;
export const AuditPageSchema = page(AuditEventSchema);

/** What a customer sees of their own activity: no addresses, no staff identities. */
export const ActivityEventSchema = z.object({
  id: z.string(),
  type: z.string(),
  actor: z.enum(["you", "support", "service", "anonymous"]),
  target: z.object({ type: z.string(), id: z.string() }),
  before: z.unknown(),
  after: z.unknown(),
  reason: z.string().nullable(),
  occurred_at: z.string(),
});
export const ActivityPageSchema = page(ActivityEventSchema);

const webhookEvents = z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).max(WEBHOOK_EVENT_TYPES.length);
export const CreateWebhookSchema = z.strictObject({
  url: z.string().trim().min(1).max(2000),
  events: webhookEvents,
  description: z.string().trim().max(200).default(""),
});
export const UpdateWebhookSchema = z.strictObject({
  url: z.string().trim().min(1).max(2000).optional(),
  events: webhookEvents.optional(),
  description: z.string().trim().max(200).optional(),
  enabled: z.boolean().optional(),
});
export const WebhookEndpointSchema = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  disabled_reason: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export const WebhookEndpointResponseSchema = z.object({ success: z.literal(true), data: WebhookEndpointSchema });
/** Creation and rotation answer the secret once; it is never shown again. */
export const WebhookWithSecretSchema = z.object({
  success: z.literal(true),
  data: WebhookEndpointSchema,
  secret: z.string(),
});
export const WebhookListSchema = z.object({ success: z.literal(true), data: z.array(WebhookEndpointSchema) });
export const WebhookDeliverySchema = z.object({
  id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  attempt: z.number().int(),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  created_at: z.string(),
  /** On a failed delivery's latest attempt while it is retried: when the next attempt is due; otherwise null. */
  next_attempt_at: z.string().nullable(),
  /** On the latest attempt of a delivery the service stopped retrying (its retry window ran out). */
  gave_up: z.boolean(),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;
export const WebhookDeliveryPageSchema = page(WebhookDeliverySchema);
export const QueuedSchema = z.object({ success: z.literal(true), event_id: z.string(), message: z.string() });

export const AdminMeSchema = z.object({
  success: z.literal(true),
  data: z.object({ email: z.string(), source: z.enum(["config", "granted"]) }),
});

/** Who is an admin: addresses in ADMIN_EMAILS (configuration) and those granted from the console or the CLI. */
export const AdminEntrySchema = z.object({
  /** The grant's id, as the audit log names it (target of admin.granted / admin.revoked); null for configured ones. */
  id: z.string().nullable(),
  email: z.string(),
  source: z.enum(["config", "granted"]),
  /** Who granted it (an admin's email, or "admin-cli"); null for configured admins. */
  granted_by: z.string().nullable(),
  granted_at: z.string().nullable(),
});
export type AdminEntry = z.infer<typeof AdminEntrySchema>;
export const AdminListSchema = z.object({ success: z.literal(true), data: z.array(AdminEntrySchema) });

/** Grant or revoke the admin role for an address (reason required, recorded in the audit log). */
export const AdminRoleChangeSchema = z.strictObject({
  email: z
    .string({ error: ADMIN_ERRORS.adminEmailInvalid })
    .trim()
    .max(254, ADMIN_ERRORS.adminEmailInvalid)
    .regex(EMAIL_SHAPE, ADMIN_ERRORS.adminEmailInvalid),
  reason,
});
export type AdminRoleChange = z.infer<typeof AdminRoleChangeSchema>;
export const AdminRoleChangeResponseSchema = z.object({
  success: z.literal(true),
  /** False when there was nothing to change (already an admin, on grant). */
  changed: z.boolean(),
  message: z.string(),
});

// ── Privacy requests (decision 0046): export and erase a person by email ──────────────────────────────────────

export const PersonRequestSchema = z.strictObject({
  email: z.string().trim().min(3).max(320).pipe(z.email()),
});
export const ErasePersonSchema = PersonRequestSchema.extend({ reason });

/** What the audit log keeps after an erasure, and why: said in every export and erasure answer. */
export const AUDIT_LOG_NOTE = `The audit log is append-only: it records every change for security and to show that requests like this one were honoured. It names people, staff included, by internal ids (customer, signup, subscriber, license, machine, admin grant), never by email address or name, and keeps of each change ${AUDIT_NETWORK_TEXT}; after an erasure, nothing links those ids to a person.`;

/** The export itself (its summary and data) is in person-export.ts. */

export const PersonErasureSchema = z.object({
  success: z.literal(true),
  data: z.object({
    /** The erasure's reference: the id of its audit row (type person.erased). */
    erasure_id: z.string(),
    erased: z.object({
      signups: z.number().int(),
      newsletter_subscriptions: z.number().int(),
      beta_invitations: z.number().int(),
      customers: z.number().int(),
      licenses: z.number().int(),
      machines: z.number().int(),
      sessions_revoked: z.number().int(),
      messages: z.number().int(),
      dev_mail: z.number().int(),
      sign_in_records: z.number().int(),
    }),
    /** Audit rows about the person that stay, pseudonymous (AUDIT_LOG_NOTE). */
    audit_events_kept: z.number().int(),
    audit_log_note: z.string(),
    /** Seconds within which every instance refuses the erased licenses. */
    visible_within_seconds: z.number(),
  }),
});
export type PersonErasure = z.infer<typeof PersonErasureSchema>["data"];
