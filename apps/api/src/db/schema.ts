/** The domain model (ARCHITECTURE.md). One schema and one set of migrations for PGlite and PostgreSQL. */
import { sql } from "drizzle-orm";
import { boolean, index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

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
  (table) => [uniqueIndex("signups_email_normalized_key").on(table.emailNormalized)],
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
  (table) => [uniqueIndex("customers_issuer_subject_key").on(table.issuer, table.subject)],
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
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (table) => [
    uniqueIndex("sessions_token_hash_key").on(table.tokenHash),
    index("sessions_customer_id_idx").on(table.customerId),
  ],
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
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    consumedAt: timestamp("consumed_at", { withTimezone: true }),
  },
  (table) => [
    uniqueIndex("login_transactions_state_hash_key").on(table.stateHash),
    index("login_transactions_expires_at_idx").on(table.expiresAt),
  ],
);
