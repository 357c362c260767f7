/** The domain model (ARCHITECTURE.md). One schema and one set of migrations for PGlite and PostgreSQL. */
import { sql } from "drizzle-orm";
import { boolean, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";

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
