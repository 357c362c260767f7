/**
 * Every event the service records (the audit log) and may send out (webhooks, email): one list, read by the
 * API (recordEvent, the outbox, the admin API's filters), the docs and the tests. `webhook: false` marks events
 * that stay in the audit log only (operators' own housekeeping is not something to push to an integration).
 */
import { z } from "zod";

export const EVENT_TYPES = {
  "signup.created": { webhook: true, description: "Someone joined the early-access list." },
  "newsletter.subscription_requested": {
    webhook: false,
    description: "An address asked to subscribe; a confirmation mail went out.",
  },
  "newsletter.subscribed": { webhook: true, description: "An address confirmed its newsletter subscription." },
  "newsletter.unsubscribed": { webhook: true, description: "A subscriber unsubscribed." },
  "customer.created": { webhook: true, description: "A customer signed in for the first time." },
  "customer.sessions_revoked": { webhook: false, description: "Every session of a customer was ended." },
  "license.created": { webhook: true, description: "A customer created their license." },
  "license.status_changed": { webhook: true, description: "A license was suspended, reactivated or expired." },
  "license.extended": { webhook: true, description: "A license's end date changed." },
  "license.updated": { webhook: true, description: "A license's tier or device limit changed." },
  "license.key_rotated": { webhook: true, description: "A license's key was replaced by a new one." },
  "license.machine_limit_reached": {
    webhook: true,
    description: "A machine was refused because every device slot of the license is taken.",
  },
  "machine.bound": { webhook: true, description: "A machine was activated on a license." },
  "machine.removed": { webhook: true, description: "The owner removed a machine from their license." },
  "machine.revoked": {
    webhook: true,
    description:
      "A machine was revoked: its slot freed and its id barred, though its license file may still run offline.",
  },
  "machine.revived": { webhook: true, description: "A machine that had lost its slot by silence got it back." },
  "machine.license_file_issued": {
    webhook: true,
    description: "A license file was issued to a machine: its slot is held until the file expires.",
  },
  "license.offline_files_changed": {
    webhook: true,
    description: "The owner turned license files for offline machines on or off.",
  },
  "machine.restored": { webhook: true, description: "The owner allowed a removed machine back." },
  "machine.deactivated": { webhook: true, description: "The desktop app released its machine's slot." },
  "machine.culled": { webhook: true, description: "A machine unseen for too long was released." },
  "execution.refused": {
    webhook: false,
    description: "An execution was refused because the license ran its plan's limit of concurrent executions.",
  },
  "execution.ended": {
    webhook: true,
    description: "The license's owner or an admin ended a running execution.",
  },
  "person.exported": {
    webhook: false,
    description: "An admin exported what the service holds about a person (a privacy request).",
  },
  "person.erased": {
    webhook: false,
    description: "An admin erased a person (a privacy request); the record names nobody.",
  },
  "beta.wave_created": { webhook: false, description: "An admin opened a wave of beta testers." },
  "beta.invited": {
    webhook: false,
    description: "An early-access signup was admitted to the beta: the invitation mail went out.",
  },
  "beta.invitation_resent": { webhook: false, description: "An admin sent a beta invitation again." },
  "beta.invitation_withdrawn": { webhook: false, description: "An admin withdrew a beta invitation." },
  "beta.invitation_accepted": {
    webhook: false,
    description: "Someone signed in with the address of a beta invitation, which accepted it.",
  },
  "admin.granted": { webhook: false, description: "An address was given the admin role." },
  "admin.revoked": { webhook: false, description: "An address lost the admin role." },
  "webhook.endpoint_created": { webhook: false, description: "A webhook endpoint was registered." },
  "webhook.endpoint_updated": { webhook: false, description: "A webhook endpoint was changed, enabled or disabled." },
  "webhook.endpoint_deleted": { webhook: false, description: "A webhook endpoint was deleted." },
  "webhook.secret_rotated": { webhook: false, description: "A webhook endpoint's signing secret was replaced." },
  "release.created": { webhook: false, description: "An operator created a draft release." },
  "release.artifact_uploaded": {
    webhook: false,
    description: "An artifact's upload completed and its checksums and signatures verified.",
  },
  "release.published": { webhook: true, description: "A release was published: updaters and the portal offer it." },
  "release.yanked": { webhook: true, description: "A published release was yanked: nothing offers it any more." },
  "release.promoted": { webhook: true, description: "A published release moved to another channel (beta → stable)." },
  "downloads.platform_opened": { webhook: true, description: "Downloads for a platform were opened." },
  "downloads.platform_closed": { webhook: true, description: "Downloads for a platform were closed." },
  "operator_token.created": { webhook: false, description: "An admin created an operator token (for CI)." },
  "operator_token.revoked": { webhook: false, description: "An admin revoked an operator token." },
  "webhook.endpoint_disabled": {
    webhook: false,
    description: "The service disabled an endpoint after three days of failed deliveries.",
  },
} as const satisfies Record<string, { webhook: boolean; description: string }>;

export type EventType = keyof typeof EVENT_TYPES;
export const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as [EventType, ...EventType[]];
export const EventTypeSchema = z.enum(EVENT_TYPE_NAMES);

/** Events an endpoint can subscribe to. */
export const WEBHOOK_EVENT_TYPES = EVENT_TYPE_NAMES.filter((type) => EVENT_TYPES[type].webhook) as [
  EventType,
  ...EventType[],
];
/** The test event an admin sends from the console; never recorded, never subscribed to. */
export const WEBHOOK_TEST_EVENT = "webhook.test" as const;

/**
 * Who made a change: a signed-in customer, an admin, the service (licensing API, admin CLI), the system (outbox
 * runner, jobs), or "anonymous" — nobody signed in (signups, newsletter requests, links followed from a mail). An
 * anonymous actor has no id and no email: an address typed by a stranger belongs to the target, not the actor.
 */
export const ACTOR_TYPES = ["customer", "admin", "service", "system", "anonymous"] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/**
 * What a webhook receives: the event id is stable across retries and resends (dedupe on it), `created` is when
 * the change happened. Signed with the endpoint's secret: `Flotilla-Signature: t=<unix seconds>,v1=<hex>`, where
 * v1 = HMAC-SHA256(secret, `${t}.${raw body}`).
 */
export interface WebhookPayload {
  id: string;
  type: EventType | typeof WEBHOOK_TEST_EVENT;
  created: string;
  data: {
    target: { type: string; id: string };
    before: unknown;
    after: unknown;
  };
}

/** Standard Webhooks' headers (standardwebhooks.com), then ours: the event type, and the deprecated signature. */
export const WEBHOOK_HEADERS = {
  id: "webhook-id",
  timestamp: "webhook-timestamp",
  signature: "webhook-signature",
  eventType: "flotilla-event-type",
  /** Deprecated: the Stripe-style signature of the first release, kept for receivers written against it. */
  legacySignature: "flotilla-signature",
  /** Deprecated: the same value as webhook-id. */
  legacyEventId: "flotilla-event-id",
} as const;

/** How far a receiver should accept a signature's timestamp from its own clock (replay window). */
export const WEBHOOK_TOLERANCE_SECONDS = 300;
/** How long a delivery is retried before it is given up (and its endpoint disabled). */
export const WEBHOOK_RETRY_WINDOW_HOURS = 72;
