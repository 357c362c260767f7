/** The domain model (ARCHITECTURE.md). One schema and one set of migrations for PGlite and PostgreSQL. */

import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

const timestamps = {
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
};

/** Early-access answers (spec section 3). One row per email, compared case-insensitively. */
export const signups = pgTable(
  "signups",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    email: text("email").notNull(),
    emailNormalized: text("email_normalized").notNull(),
    name: text("name").notNull(),
    company: text("company").notNull().default(""),
    role: text("role").notNull(),
    aiExperience: text("ai_experience").notNull(),
    platform: text("platform").notNull(),
    interests: text("interests").notNull().default(""),
    newsletter: boolean("newsletter").notNull().default(true),
    ...timestamps,
  },
  (table) => [
    uniqueIndex("signups_email_normalized_key").on(table.emailNormalized),
    index("signups_created_at_idx").on(table.createdAt, table.id),
    // The admin's "contains" search (migration 0007, pg_trgm): a rare match no longer reads the whole table.
    index("signups_email_trgm_idx").using("gin", sql`${table.email} gin_trgm_ops`),
    index("signups_name_trgm_idx").using("gin", sql`${table.name} gin_trgm_ops`),
    index("signups_company_trgm_idx").using("gin", sql`${table.company} gin_trgm_ops`),
  ],
);

/** The blog's Stay Updated box and signups with newsletter on. One subscriber per email. */
export const newsletterSubscribers = pgTable(
  "newsletter_subscribers",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    email: text("email").notNull(),
    emailNormalized: text("email_normalized").notNull(),
    source: text("source").notNull(),
    subscribedAt: timestamp("subscribed_at", { withTimezone: true }).notNull().defaultNow(),
    unsubscribedAt: timestamp("unsubscribed_at", { withTimezone: true }),
    /** Double opt-in: a subscription counts only once the address confirmed it. */
    confirmedAt: timestamp("confirmed_at", { withTimezone: true }),
    /** When the pending confirmation mail was asked for; its link carries this time, so an old link dies. */
    confirmationSentAt: timestamp("confirmation_sent_at", { withTimezone: true }),
    ...timestamps,
  },
  (table) => [uniqueIndex("newsletter_subscribers_email_normalized_key").on(table.emailNormalized)],
);

/** People who signed in, keyed by their identity provider's issuer and subject. */
export const customers = pgTable(
  "customers",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    avatarUrl: text("avatar_url"),
    lastSignInAt: timestamp("last_sign_in_at", { withTimezone: true }),
    ...timestamps,
  },
  (table) => [
    uniqueIndex("customers_issuer_subject_key").on(table.issuer, table.subject),
    index("customers_email_idx").on(sql`lower(${table.email})`),
  ],
);

/** Bearer sessions. Only the SHA-256 of a token is stored; the token itself exists only in the client. */
export const sessions = pgTable(
  "sessions",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    tokenHash: text("token_hash").notNull(),
    customerId: uuid("customer_id")
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }).notNull().defaultNow(),
    /** However often it is used, the session ends here (SESSION_MAX_DAYS after sign-in). */
    absoluteExpiresAt: timestamp("absolute_expires_at", { withTimezone: true }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    /** SHA-256 of the sign-in cookie of the browser that started it: a token in an address only signs in there. */
    browserHash: text("browser_hash"),
  },
  (table) => [
    uniqueIndex("sessions_token_hash_key").on(table.tokenHash),
    index("sessions_customer_id_idx").on(table.customerId),
  ],
);

/**
 * Sessions an erasure ended (decision 0056): only the token's SHA-256 and when the session would have ended at the
 * latest — no customer, no address — so a browser still holding the token is told `account_erased` rather than
 * nothing. The retention job deletes a row once `ends_at` has passed.
 */
export const erasedSessions = pgTable(
  "erased_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    endsAt: timestamp("ends_at", { withTimezone: true }).notNull(),
  },
  (table) => [index("erased_sessions_ends_at_idx").on(table.endsAt)],
);

/**
 * One sign-in attempt between "send me to the provider" and the callback: the server-generated state
 * (stored hashed), PKCE verifier, nonce and sanitised return path. Short-lived and single use.
 */
export const loginTransactions = pgTable(
  "login_transactions",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    stateHash: text("state_hash").notNull(),
    codeVerifier: text("code_verifier").notNull(),
    nonce: text("nonce").notNull(),
    returnPath: text("return_path").notNull(),
    /** SHA-256 of the sign-in cookie set when it started: the callback must come from the same browser. */
    browserHash: text("browser_hash").notNull().default(""),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    consumedAt: timestamp("consumed_at", { withTimezone: true }),
  },
  (table) => [
    uniqueIndex("login_transactions_state_hash_key").on(table.stateHash),
    index("login_transactions_expires_at_idx").on(table.expiresAt),
  ],
);

/** One license per customer: the unique index on customer_id is the rule, not a check in code. */
export const licenses = pgTable(
  "licenses",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    customerId: uuid("customer_id")
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    licenseKey: text("license_key").notNull(),
    /** One of the tier table's (contracts/tiers.ts): what the license may do comes from there, nowhere else. */
    tier: text("tier").notNull(),
    status: text("status").notNull().default("active"),
    maxMachines: integer("max_machines").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    lastSeen: timestamp("last_seen", { withTimezone: true }),
    /** The owner's consent to license files (checkout, offline activation): off by default (decision 0036). */
    offlineFilesAllowed: boolean("offline_files_allowed").notNull().default(false),
    ...timestamps,
  },
  (table) => [
    uniqueIndex("licenses_customer_id_key").on(table.customerId),
    uniqueIndex("licenses_license_key_key").on(table.licenseKey),
    check("licenses_tier_known", sql`${table.tier} IN ('free', 'plus', 'pro', 'pro+', 'ultra')`),
  ],
);

/** Machines bound to a license; (license, machine id) is unique. The first one bound is primary. */
export const machines = pgTable(
  "machines",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    licenseId: uuid("license_id")
      .notNull()
      .references(() => licenses.id, { onDelete: "cascade" }),
    machineId: text("machine_id").notNull(),
    displayId: text("display_id").notNull(),
    machineName: text("machine_name"),
    platform: text("platform"),
    appVersion: text("app_version"),
    isPrimary: boolean("is_primary").notNull().default(false),
    boundAt: timestamp("bound_at", { withTimezone: true }).notNull().defaultNow(),
    /** The last validation or heartbeat: a machine silent too long loses its slot (seats.ts). */
    lastSeen: timestamp("last_seen", { withTimezone: true }),
    /** "active" holds a slot; "inactive" (culled) does not, and may come back within the revival window. */
    status: text("status").notNull().default("active"),
    inactiveSince: timestamp("inactive_since", { withTimezone: true }),
    /** Until when a license file issued to this machine works offline: the slot is held (never culled) till then. */
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
  },
  (table) => [
    uniqueIndex("machines_license_machine_key").on(table.licenseId, table.machineId),
    index("machines_status_last_seen_idx").on(table.status, table.lastSeen),
  ],
);

/**
 * What happened to a license's machines (activated, revived, deactivated, culled, forgotten): the caps on
 * activations and deactivations count these. Kept 30 days (retention).
 */
export const machineEvents = pgTable(
  "machine_events",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    licenseId: uuid("license_id")
      .notNull()
      .references(() => licenses.id, { onDelete: "cascade" }),
    machineId: text("machine_id").notNull(),
    kind: text("kind").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("machine_events_license_kind_at_idx").on(table.licenseId, table.kind, table.at)],
);

/** Devices refused because the license was full: the owner is told on the dashboard (the latest few per license). */
export const activationRefusals = pgTable(
  "activation_refusals",
  {
    licenseId: uuid("license_id")
      .notNull()
      .references(() => licenses.id, { onDelete: "cascade" }),
    machineId: text("machine_id").notNull(),
    displayId: text("display_id").notNull(),
    machineName: text("machine_name"),
    platform: text("platform"),
    refusedAt: timestamp("refused_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.licenseId, table.machineId] })],
);

/** A rotated license key keeps working until `validUntil`, so running machines can take the new one. */
export const licenseKeyAliases = pgTable("license_key_aliases", {
  licenseKey: text("license_key").primaryKey(),
  licenseId: uuid("license_id")
    .notNull()
    .references(() => licenses.id, { onDelete: "cascade" }),
  validUntil: timestamp("valid_until", { withTimezone: true }).notNull(),
});

/**
 * Machines the license's owner removed. A removed machine does not bind again on its own: its validations
 * answer MACHINE_REMOVED until the owner allows it back (the row is deleted then).
 */
export const machineRemovals = pgTable(
  "machine_removals",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    licenseId: uuid("license_id")
      .notNull()
      .references(() => licenses.id, { onDelete: "cascade" }),
    machineId: text("machine_id").notNull(),
    displayId: text("display_id").notNull(),
    machineName: text("machine_name"),
    removedAt: timestamp("removed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex("machine_removals_license_machine_key").on(table.licenseId, table.machineId)],
);

/**
 * A machine revoked while a license file issued to it still worked: its slot was freed and its id barred, but the
 * file may keep running offline until `validUntil` (decision 0036). Kept until the file has expired.
 */
export const revokedLicenseFiles = pgTable(
  "revoked_license_files",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    licenseId: uuid("license_id")
      .notNull()
      .references(() => licenses.id, { onDelete: "cascade" }),
    machineId: text("machine_id").notNull(),
    displayId: text("display_id").notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }).notNull().defaultNow(),
    validUntil: timestamp("valid_until", { withTimezone: true }).notNull(),
    /** "customer" or "admin". */
    revokedBy: text("revoked_by").notNull(),
  },
  (table) => [index("revoked_license_files_license_valid_idx").on(table.licenseId, table.validUntil)],
);

/**
 * Validation attempts rolled up per day × license × machine × result code (migration 0010: by the license's id, so a
 * key rotation keeps its history). Attempts with a key that matches no license are counted in one row per day and
 * code (license_id NULL, machine_id ''; NULLs are not distinct in the unique key), so random keys cannot add rows.
 * Analytics read this, never raw events.
 */
export const validationRollups = pgTable(
  "validation_rollups",
  {
    day: date("day").notNull(),
    licenseId: uuid("license_id").references(() => licenses.id, { onDelete: "cascade" }),
    machineId: text("machine_id").notNull(),
    code: text("code").notNull(),
    attempts: integer("attempts").notNull().default(0),
  },
  (table) => [
    unique("validation_rollups_license_day_machine_code_key")
      .on(table.licenseId, table.day, table.machineId, table.code)
      .nullsNotDistinct(),
  ],
);

/**
 * Execution leases (decisions 0048, 0052): one per running execution, kept alive by heartbeats. A lease holds one of
 * its license's execution slots while it has not ended and not expired; it is running while also not stopped, and only
 * on the binding it started on (machine_ref). Every path that frees a machine's slot stops its leases in the same
 * transaction (modules/licenses/seats). Counted once as an execution in the usage figures when it ends.
 */
export const executionLeases = pgTable(
  "execution_leases",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    licenseId: uuid("license_id")
      .notNull()
      .references(() => licenses.id, { onDelete: "cascade" }),
    machineId: text("machine_id").notNull(),
    feature: text("feature").notNull().default(""),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull(),
    lastHeartbeatAt: timestamp("last_heartbeat_at", { withTimezone: true }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    /** How it ended, or, while stopping, why it was stopped. */
    endReason: text("end_reason"),
    /** The machines row (binding) it started on; null once that row is gone. */
    machineRef: uuid("machine_ref").references(() => machines.id, { onDelete: "set null" }),
    /** Stopped by someone else: it holds its slot until its app ends it or it expires (decision 0052). */
    stopRequestedAt: timestamp("stop_requested_at", { withTimezone: true }),
  },
  (table) => [
    index("execution_leases_machine_ref_idx").on(table.machineRef).where(sql`ended_at IS NULL`),
    index("execution_leases_open_idx").on(table.licenseId, table.expiresAt).where(sql`ended_at IS NULL`),
    index("execution_leases_open_expiry_idx").on(table.expiresAt).where(sql`ended_at IS NULL`),
    index("execution_leases_license_started_idx").on(table.licenseId, table.startedAt),
  ],
);

/** Every usage report as received (the audit trail); the rollup below is what queries read. */
export const usageReports = pgTable(
  "usage_reports",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    licenseId: uuid("license_id")
      .notNull()
      .references(() => licenses.id, { onDelete: "cascade" }),
    machineId: text("machine_id").notNull(),
    feature: text("feature").notNull().default(""),
    executions: integer("executions").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("usage_reports_license_id_idx").on(table.licenseId, table.createdAt)],
);

export const usageRollups = pgTable(
  "usage_rollups",
  {
    licenseId: uuid("license_id")
      .notNull()
      .references(() => licenses.id, { onDelete: "cascade" }),
    day: date("day").notNull(),
    machineId: text("machine_id").notNull(),
    feature: text("feature").notNull().default(""),
    executions: bigint("executions", { mode: "number" }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.licenseId, table.day, table.machineId, table.feature] })],
);

/** Answers already given to an Idempotency-Key, per license key. */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    statusCode: integer("status_code").notNull(),
    response: jsonb("response").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.scope, table.key] }),
    index("idempotency_keys_created_at_idx").on(table.createdAt),
  ],
);

/**
 * The development issuer's artefacts (interactions, codes, sessions, grants, its signing key and the accounts
 * signed in through its form), shared by every instance so that a sign-in started on one completes on another.
 * Rows carry their expiry; retention deletes expired ones.
 */
export const oidcStore = pgTable(
  "oidc_store",
  {
    model: text("model").notNull(),
    id: text("id").notNull(),
    payload: jsonb("payload").notNull(),
    grantId: text("grant_id"),
    uid: text("uid"),
    userCode: text("user_code"),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
  },
  (table) => [
    primaryKey({ columns: [table.model, table.id] }),
    index("oidc_store_uid_idx").on(table.model, table.uid),
    index("oidc_store_grant_id_idx").on(table.grantId),
    index("oidc_store_expires_at_idx").on(table.expiresAt),
  ],
);

// ── Operations (issue 16): audit log, outbox, webhooks, mail, admins ─────────────────────────────────────

/**
 * Every state change, with who made it, from where, and what it looked like before and after. Append-only: a
 * trigger refuses UPDATE, DELETE and TRUNCATE, with no exception (migration 0009, decision 0039). No foreign
 * keys: the record outlives what it describes. `seq` orders the log (keyset pagination). Pseudonymous: ids, never
 * an address or a name; `address` is the request's network (decision 0053, modules/events/pseudonymous.ts).
 */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    seq: bigserial("seq", { mode: "number" }).notNull(),
    type: text("type").notNull(),
    actorType: text("actor_type").notNull(),
    /** A customer's or admin's customer id, or the service part ("license-api", "admin-cli"); never an address. */
    actorId: text("actor_id"),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    /** The customer the event concerns (their activity page lists it). */
    customerId: uuid("customer_id"),
    licenseId: uuid("license_id"),
    before: jsonb("before"),
    after: jsonb("after"),
    reason: text("reason"),
    address: text("address"),
    occurredAt: timestamp("occurred_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex("audit_events_seq_key").on(table.seq),
    index("audit_events_type_idx").on(table.type, table.seq),
    index("audit_events_customer_idx").on(table.customerId, table.seq),
    index("audit_events_license_idx").on(table.licenseId, table.seq),
    index("audit_events_occurred_at_idx").on(table.occurredAt),
  ],
);

/** Where webhooks go. The signing secret is stored encrypted (AES-256-GCM under a key derived from APP_SECRET). */
export const webhookEndpoints = pgTable("webhook_endpoints", {
  id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
  url: text("url").notNull(),
  description: text("description").notNull().default(""),
  events: jsonb("events").$type<string[]>().notNull(),
  secretCiphertext: text("secret_ciphertext").notNull(),
  /** After a rotation the old secret still signs (a second v1) until this time, so receivers can switch over. */
  previousSecretCiphertext: text("previous_secret_ciphertext"),
  previousSecretExpiresAt: timestamp("previous_secret_expires_at", { withTimezone: true }),
  enabled: boolean("enabled").notNull().default(true),
  disabledReason: text("disabled_reason"),
  createdBy: text("created_by"),
  ...timestamps,
});

/**
 * The transactional outbox: written in the transaction of the change it reports, delivered at least once by one
 * runner (claims with FOR UPDATE SKIP LOCKED and a lease). channel 'webhook' (one row per endpoint) or 'email'.
 */
export const outbox = pgTable(
  "outbox",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    seq: bigserial("seq", { mode: "number" }).notNull(),
    eventId: uuid("event_id").notNull(),
    channel: text("channel").notNull(),
    endpointId: uuid("endpoint_id").references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    payload: jsonb("payload").notNull(),
    /** pending → delivered | dead (gave up after the retry window) | cancelled (endpoint disabled) */
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (table) => [
    index("outbox_due_idx").on(table.nextAttemptAt).where(sql`${table.status} = 'pending'`),
    index("outbox_endpoint_idx").on(table.endpointId, table.seq),
    index("outbox_finished_at_idx").on(table.finishedAt),
  ],
);

/** One row per webhook delivery attempt: what the endpoint answered (or why nothing did), and how fast. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    seq: bigserial("seq", { mode: "number" }).notNull(),
    outboxId: uuid("outbox_id").notNull(),
    endpointId: uuid("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    eventId: uuid("event_id").notNull(),
    eventType: text("event_type").notNull(),
    attempt: integer("attempt").notNull(),
    statusCode: integer("status_code"),
    error: text("error"),
    durationMs: integer("duration_ms").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index("webhook_deliveries_endpoint_idx").on(table.endpointId, table.seq),
    index("webhook_deliveries_created_at_idx").on(table.createdAt),
  ],
);

/** Mail "sent" without SMTP_URL: kept here; shown at /dev/mail on a loopback development server only. */
export const devMail = pgTable(
  "dev_mail",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    seq: bigserial("seq", { mode: "number" }).notNull(),
    eventId: uuid("event_id").notNull(),
    recipient: text("recipient").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html").notNull(),
    headers: jsonb("headers").$type<Record<string, string>>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("dev_mail_created_at_idx").on(table.createdAt)],
);

/** Admins granted from the console or the CLI (besides ADMIN_EMAILS in the configuration). */
export const admins = pgTable(
  "admins",
  {
    emailNormalized: text("email_normalized").primaryKey(),
    /** The grant, as the audit log names it (admin.granted, admin.revoked): never the address (migration 0012). */
    id: uuid("id").notNull().default(sql`gen_random_uuid()`),
    email: text("email").notNull(),
    grantedBy: text("granted_by").notNull(),
    grantedAt: timestamp("granted_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex("admins_id_key").on(table.id)],
);

/** The service's instances and when each last said it is alive (db/instances.ts, migration 0014). */
export const serviceInstances = pgTable("service_instances", {
  id: uuid("id").primaryKey(),
  name: text("name").notNull(),
  seenAt: timestamp("seen_at", { withTimezone: true }).notNull(),
});

/**
 * Releases of the desktop app (migration 0018, decision 0059): draft → published → yanked; the version is unique
 * across channels. Promoting changes a published release's channel (beta → stable) and keeps its dates.
 */
export const releases = pgTable(
  "releases",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    version: text("version").notNull(),
    channel: text("channel").notNull(),
    state: text("state").notNull().default("draft"),
    notes: text("notes").notNull().default(""),
    /** A license feature flag (contracts/releases.ts RELEASE_FEATURES) a license needs to download it. */
    requiresFeature: text("requires_feature"),
    /** An operator token's id or an admin's customer id (never an address). */
    createdBy: text("created_by"),
    ...timestamps,
    publishedAt: timestamp("published_at", { withTimezone: true }),
    yankedAt: timestamp("yanked_at", { withTimezone: true }),
    yankReason: text("yank_reason"),
  },
  (table) => [
    uniqueIndex("releases_version_key").on(table.version),
    index("releases_published_idx").on(table.state, table.channel, table.publishedAt),
    check("releases_channel_known", sql`${table.channel} IN ('stable', 'rc', 'beta', 'alpha', 'dev')`),
    check("releases_state_known", sql`${table.state} IN ('draft', 'published', 'yanked')`),
  ],
);

/** One file per (release, platform, arch); complete once the server verified the stored bytes (decision 0060). */
export const releaseArtifacts = pgTable(
  "release_artifacts",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    releaseId: uuid("release_id")
      .notNull()
      .references(() => releases.id, { onDelete: "cascade" }),
    platform: text("platform").notNull(),
    arch: text("arch").notNull(),
    filename: text("filename").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    sha256: text("sha256").notNull(),
    sha512: text("sha512").notNull(),
    signature: text("signature").notNull(),
    minisignSignature: text("minisign_signature").notNull(),
    /** Where storage keeps it (decision 0061): `artifacts/<release id>/<artifact id>/<filename>`. */
    storageKey: text("storage_key").notNull(),
    uploadState: text("upload_state").notNull().default("pending"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
  },
  (table) => [
    uniqueIndex("release_artifacts_target_key").on(table.releaseId, table.platform, table.arch),
    check("release_artifacts_platform_known", sql`${table.platform} IN ('macos', 'windows', 'linux')`),
    check("release_artifacts_arch_known", sql`${table.arch} IN ('x86_64', 'aarch64', 'universal')`),
    check("release_artifacts_upload_state_known", sql`${table.uploadState} IN ('pending', 'complete')`),
  ],
);

/** An artifact's upload: the folder's received offset (tus-like), or the S3 multipart upload's id and part size. */
export const releaseUploads = pgTable(
  "release_uploads",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    artifactId: uuid("artifact_id")
      .notNull()
      .references(() => releaseArtifacts.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    s3UploadId: text("s3_upload_id"),
    partSize: integer("part_size"),
    received: bigint("received", { mode: "number" }).notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp("completed_at", { withTimezone: true }),
  },
  (table) => [
    uniqueIndex("release_uploads_artifact_key").on(table.artifactId),
    check("release_uploads_kind_known", sql`${table.kind} IN ('folder', 's3-multipart')`),
  ],
);

/** Tokens CI publishes with (`flt_op_…`): shown once, stored as SHA-256, revocable, audited. */
export const operatorTokens = pgTable(
  "operator_tokens",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull(),
    hint: text("hint").notNull(),
    scopes: jsonb("scopes").$type<string[]>().notNull(),
    createdBy: text("created_by"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (table) => [uniqueIndex("operator_tokens_token_hash_key").on(table.tokenHash)],
);

/** Downloads started per release and platform (a link redeemed: a redirect given, or a stream from byte 0). */
export const releaseDownloadCounts = pgTable(
  "release_download_counts",
  {
    releaseId: uuid("release_id")
      .notNull()
      .references(() => releases.id, { onDelete: "cascade" }),
    platform: text("platform").notNull(),
    count: bigint("count", { mode: "number" }).notNull().default(0),
  },
  (table) => [primaryKey({ name: "release_download_counts_pkey", columns: [table.releaseId, table.platform] })],
);

/** The download switch per platform: no row, or open = false, is closed (decision 0059). */
export const downloadPlatforms = pgTable(
  "download_platforms",
  {
    platform: text("platform").primaryKey(),
    open: boolean("open").notNull().default(false),
    changedAt: timestamp("changed_at", { withTimezone: true }),
    changedBy: text("changed_by"),
  },
  (table) => [check("download_platforms_platform_known", sql`${table.platform} IN ('macos', 'windows', 'linux')`)],
);

// ── Beta testers (issue 36, decision 0062, migration 0019) ────────────────────────────────────────────────

/** A wave of beta testers: a name and the date it opens. */
export const betaWaves = pgTable(
  "beta_waves",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    name: text("name").notNull(),
    startsOn: date("starts_on").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex("beta_waves_name_key").on(sql`lower(${table.name})`)],
);

/**
 * One invitation per address, for ever (the unique index makes admitting idempotent, races included). Accepted when
 * someone signs in with exactly this address (normalised); withdrawn by an operator. Personal data: the privacy
 * export lists it and an erasure deletes it.
 */
export const betaInvitations = pgTable(
  "beta_invitations",
  {
    id: uuid("id").primaryKey().default(sql`gen_random_uuid()`),
    waveId: uuid("wave_id")
      .notNull()
      .references(() => betaWaves.id, { onDelete: "restrict" }),
    signupId: uuid("signup_id").references(() => signups.id, { onDelete: "set null" }),
    email: text("email").notNull(),
    emailNormalized: text("email_normalized").notNull(),
    invitedAt: timestamp("invited_at", { withTimezone: true }).notNull().defaultNow(),
    lastSentAt: timestamp("last_sent_at", { withTimezone: true }).notNull().defaultNow(),
    sends: integer("sends").notNull().default(1),
    acceptedAt: timestamp("accepted_at", { withTimezone: true }),
    customerId: uuid("customer_id").references(() => customers.id, { onDelete: "set null" }),
    withdrawnAt: timestamp("withdrawn_at", { withTimezone: true }),
  },
  (table) => [
    uniqueIndex("beta_invitations_email_normalized_key").on(table.emailNormalized),
    index("beta_invitations_wave_idx").on(table.waveId, table.invitedAt),
  ],
);
