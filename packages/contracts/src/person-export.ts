/**
 * The privacy export (decisions 0046, 0056): one JSON document a person can read and a program can parse. It opens
 * with a summary — for each kind of data we hold, what it is, where it came from, how long we keep it (KEPT_FOR, the
 * policy's own words and the retention job's numbers), how many records there are and where they are — and the data
 * itself follows under `data`. The service sends it pretty-printed.
 */
import { z } from "zod";
import { BRAND } from "./brand";
import { KEPT_FOR } from "./retention";

/** Version 2 added `about`, `summary` and moved the records under `data` (version 1 had them at the top level). */
export const PERSON_EXPORT_FORMAT = "flotilla.person-export/2";

/** The export's file name: the product, what it is, and the day (never the address: file names travel). */
export function personExportFileName(generatedAt: string): string {
  return `${BRAND.name.toLowerCase()}-personal-data-${generatedAt.slice(0, 10)}.json`;
}

export const PERSON_EXPORT_CATEGORY_KEYS = [
  "signups",
  "newsletter",
  "beta_invitations",
  "account",
  "licenses",
  "devices",
  "device_events",
  "executions",
  "usage",
  "validations",
  "sessions",
  "audit_log",
  "messages",
] as const;
export type PersonExportCategoryKey = (typeof PERSON_EXPORT_CATEGORY_KEYS)[number];

export interface PersonExportCategory {
  category: string;
  what_we_hold: string;
  where_it_came_from: string;
  how_long_we_keep_it: string;
  /** Where the records are in the document: paths under `data` (`[]` marks a list to look into). */
  data: readonly string[];
}

const license = "data.customers[].licenses[]";

/** Every kind of personal data an export can hold, in the order the summary lists them. */
export const PERSON_EXPORT_CATEGORIES: Readonly<Record<PersonExportCategoryKey, PersonExportCategory>> = {
  signups: {
    category: "Early-access signup answers",
    what_we_hold:
      "The answers given in the early-access form: email address, name, company, role, experience with AI tools, preferred platform, interests and whether you wanted the newsletter.",
    where_it_came_from: "The early-access form on our website, sent with this email address.",
    how_long_we_keep_it: KEPT_FOR.signups,
    data: ["data.signups"],
  },
  newsletter: {
    category: "Newsletter subscription",
    what_we_hold:
      "The email address, where the subscription was asked for, and when it was asked for, confirmed or cancelled.",
    where_it_came_from:
      "The Stay Updated box on our blog, or the newsletter choice in the early-access form; confirmed through the link we mailed.",
    how_long_we_keep_it: KEPT_FOR.newsletter,
    data: ["data.newsletter_subscriptions"],
  },
  beta_invitations: {
    category: "Beta invitation",
    what_we_hold:
      "The invitation to the beta: the email address it was sent to, the wave and its date, when it was sent (and how many times), and when it was accepted or withdrawn.",
    where_it_came_from:
      "Our staff, who admitted your early-access signup to the beta; accepted when you signed in with this address.",
    how_long_we_keep_it: KEPT_FOR.betaInvitations,
    data: ["data.beta_invitations"],
  },
  account: {
    category: "Account",
    what_we_hold:
      "Your account ID at your identity provider (issuer and subject), email address, name and profile picture URL, and when the account was created and last signed in.",
    where_it_came_from: "Google (your identity provider), each time you signed in to the customer portal.",
    how_long_we_keep_it: KEPT_FOR.account,
    data: ["data.customers"],
  },
  licenses: {
    category: "Licenses",
    what_we_hold:
      "Each license's tier, status, device limit, end date, whether license files for offline devices are allowed, and when it was last used. The key appears only as its last five characters.",
    where_it_came_from:
      "Created when you asked for it in the dashboard; changed by you, or by our staff (the audit log says which).",
    how_long_we_keep_it: KEPT_FOR.licenses,
    data: ["data.customers[].licenses"],
  },
  devices: {
    category: "Devices",
    what_we_hold:
      "Each device activated with your license (machine ID, name, platform, app version, when it was bound and last seen), and the devices you removed, the ones refused for want of a free slot, and the license files you revoked.",
    where_it_came_from:
      "The Flotilla desktop app on each device, when it activated or checked your license; removals and revocations from your dashboard.",
    how_long_we_keep_it: KEPT_FOR.licenses,
    data: [
      `${license}.machines`,
      `${license}.removed_machines`,
      `${license}.refused_machines`,
      `${license}.revoked_license_files`,
    ],
  },
  device_events: {
    category: "Device activations and releases",
    what_we_hold: "When each device was activated, released, or let go after a long silence.",
    where_it_came_from: "The Flotilla desktop app, and the service's own checks of silent devices.",
    how_long_we_keep_it: KEPT_FOR.deviceEvents,
    data: [`${license}.machine_events`],
  },
  executions: {
    category: "Executions",
    what_we_hold:
      "Each execution the app ran under your license: the feature, when it started, last reported and ended, and why it ended. Never what it worked on.",
    where_it_came_from: "The Flotilla desktop app on your devices; executions ended from the dashboard.",
    how_long_we_keep_it: KEPT_FOR.licenses,
    data: [`${license}.executions`],
  },
  usage: {
    category: "Usage reports and daily usage",
    what_we_hold: "How many executions each device reported, per feature: each report, and the totals per day.",
    where_it_came_from: "The Flotilla desktop app on your devices.",
    how_long_we_keep_it: KEPT_FOR.usage,
    data: [`${license}.usage_reports`, `${license}.usage_per_day`],
  },
  validations: {
    category: "Validation attempts",
    what_we_hold: "How many times each device checked your license each day, and the answer it got.",
    where_it_came_from: "The Flotilla desktop app on your devices.",
    how_long_we_keep_it: KEPT_FOR.validations,
    data: [`${license}.validations_per_day`],
  },
  sessions: {
    category: "Sign-in sessions",
    what_we_hold:
      "When each sign-in to the customer portal started, was last used, ends or ended, and whether you signed out. Never the session token.",
    where_it_came_from: "Your sign-ins to the customer portal.",
    how_long_we_keep_it: KEPT_FOR.sessions,
    data: ["data.customers[].sessions"],
  },
  audit_log: {
    category: "Audit log of changes",
    what_we_hold:
      "Each change to your signup, subscription, account and licenses: what changed and when, and who changed it, by internal ID. For the changes you made yourself, the network they came from.",
    where_it_came_from: "The service, recording every change made by you, by our staff or by the service itself.",
    how_long_we_keep_it: KEPT_FOR.auditLog,
    data: ["data.audit_events"],
  },
  messages: {
    category: "Emails and webhook messages about you",
    what_we_hold:
      "Each email we sent you and each webhook message about you: whether it was an email or a webhook, the event it reported, and when it was sent.",
    where_it_came_from: "The service, when a change sends a mail or a webhook.",
    how_long_we_keep_it: KEPT_FOR.messages,
    data: ["data.messages"],
  },
};

/** What the export opens with: how to read it. */
export function personExportAbout(email: string, generatedAt: string): string {
  return `Everything ${BRAND.name} holds about ${email}, as of ${generatedAt}. "summary" lists each kind of data: what we hold, where it came from, how long we keep it, how many records there are, and where they are in "data", which holds the records themselves. Times are in UTC (ISO 8601). No secrets: a license key appears as its last five characters, and sign-in tokens not at all.`;
}

const row = z.record(z.string(), z.unknown());

export const PersonExportSummarySchema = z.object({
  category: z.string(),
  records: z.number().int(),
  what_we_hold: z.string(),
  where_it_came_from: z.string(),
  how_long_we_keep_it: z.string(),
  data: z.array(z.string()),
});
export type PersonExportSummary = z.infer<typeof PersonExportSummarySchema>;

/** One JSON document with everything the service holds about a person; no secrets (token hashes, keys in clear). */
export const PersonExportSchema = z.object({
  format: z.literal(PERSON_EXPORT_FORMAT),
  generated_at: z.string(),
  email: z.string(),
  about: z.string(),
  summary: z.array(PersonExportSummarySchema),
  audit_log_note: z.string(),
  data: z.object({
    signups: z.array(row),
    newsletter_subscriptions: z.array(row),
    /** Added with issue 36 (an addition: documents written before it parse, with none). */
    beta_invitations: z.array(row).default([]),
    customers: z.array(
      row.and(
        z.object({
          licenses: z.array(row),
          sessions: z.array(row),
        }),
      ),
    ),
    audit_events: z.array(row),
    messages: z.array(row),
  }),
});
export type PersonExport = z.infer<typeof PersonExportSchema>;
export type PersonExportData = PersonExport["data"];

const lengthOf = (value: unknown) => (Array.isArray(value) ? value.length : 0);

/** How many records of each kind the data holds (the summary's `records`). */
export function personExportRecordCounts(data: PersonExportData): Record<PersonExportCategoryKey, number> {
  const licenses = data.customers.flatMap((customer) => customer.licenses);
  const sum = (...fields: string[]) =>
    licenses.reduce((total, item) => total + fields.reduce((n, field) => n + lengthOf(item[field]), 0), 0);
  return {
    signups: data.signups.length,
    newsletter: data.newsletter_subscriptions.length,
    beta_invitations: data.beta_invitations.length,
    account: data.customers.length,
    licenses: licenses.length,
    devices: sum("machines", "removed_machines", "refused_machines", "revoked_license_files"),
    device_events: sum("machine_events"),
    executions: sum("executions"),
    usage: sum("usage_reports", "usage_per_day"),
    validations: sum("validations_per_day"),
    sessions: data.customers.reduce((total, customer) => total + customer.sessions.length, 0),
    audit_log: data.audit_events.length,
    messages: data.messages.length,
  };
}

/** The summary of some data: every kind, in order, with its count (a kind with no records still says so). */
export function personExportSummary(data: PersonExportData): PersonExportSummary[] {
  const counts = personExportRecordCounts(data);
  return PERSON_EXPORT_CATEGORY_KEYS.map((key) => ({
    category: PERSON_EXPORT_CATEGORIES[key].category,
    records: counts[key],
    what_we_hold: PERSON_EXPORT_CATEGORIES[key].what_we_hold,
    where_it_came_from: PERSON_EXPORT_CATEGORIES[key].where_it_came_from,
    how_long_we_keep_it: PERSON_EXPORT_CATEGORIES[key].how_long_we_keep_it,
    data: [...PERSON_EXPORT_CATEGORIES[key].data],
  }));
}
