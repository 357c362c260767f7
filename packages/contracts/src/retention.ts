/**
 * How long the service keeps what it keeps: one source of truth for the retention job (apps/api/src/jobs/retention.ts),
 * the privacy policy's retention table (content token `{{site:retention-table}}`) and the README.
 */
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** Whole days, for the pieces people read (the policy states days). */
export const RETENTION_DAYS = {
  /** Expired or revoked sessions are kept this long after they end (to answer "was I signed in?"). */
  endedSessions: 30,
  /** Validation attempts, counted per day, license, device and result: the analytics window is at most 90 days. */
  validationAttempts: 90,
  /** Raw usage reports; the totals they add up to stay in the rollups. */
  usageReports: 90,
  /** Daily usage counts older than this are folded into one row per license, month and feature. */
  dailyUsage: 90,
  /** Machine events (activations, deactivations, culls). */
  machineEvents: 30,
  /** Mail and webhook messages once delivered or given up, and the webhook delivery log. */
  deliveredMessages: 30,
  /** Mail kept by a server without SMTP_URL (development). */
  devMail: 7,
  /** A privacy request (export or erasure) is answered within this many days. */
  privacyRequestAnswer: 30,
  /** Backups hold erased data until they roll over, within this many days of the erasure. */
  backupsRollOver: 30,
} as const;

export const RETENTION = {
  /** An Idempotency-Key replays its usage answer for this long, then it is forgotten. */
  idempotencyKeyMs: 24 * HOUR_MS,
  /** Sign-in transactions live 10 minutes; the rows go an hour after they expire. */
  loginTransactionAfterExpiryMs: HOUR_MS,
  endedSessionMs: RETENTION_DAYS.endedSessions * DAY_MS,
  validationRollupMs: RETENTION_DAYS.validationAttempts * DAY_MS,
  usageReportMs: RETENTION_DAYS.usageReports * DAY_MS,
  usageDailyRollupMs: RETENTION_DAYS.dailyUsage * DAY_MS,
  /** The development issuer's artefacts, an hour after they expire (their own lifetimes are an hour at most). */
  devIssuerAfterExpiryMs: HOUR_MS,
  /** The caps look back 24 hours; history is kept longer. */
  machineEventMs: RETENTION_DAYS.machineEvents * DAY_MS,
  /** A rotated key's row, a day after it stopped working (kept that long to answer NOT_FOUND, not to work). */
  rotatedKeyAfterExpiryMs: DAY_MS,
  /** Outbox rows once delivered or given up, and the webhook delivery log (what "resend" and the console show). */
  finishedOutboxMs: RETENTION_DAYS.deliveredMessages * DAY_MS,
  webhookDeliveryLogMs: RETENTION_DAYS.deliveredMessages * DAY_MS,
  devMailMs: RETENTION_DAYS.devMail * DAY_MS,
} as const;

/**
 * What the audit log keeps of a request's network address: its network, not the address (decision 0053). IPv4 keeps
 * its first 24 bits (203.0.113.0/24: about 256 addresses), IPv6 its first 48 (a site's prefix), for ever.
 */
export const AUDIT_ADDRESS_PREFIX = { ipv4: 24, ipv6: 48 } as const;

/** What the audit log keeps of where a change came from, in words people read (the policy, AUDIT_LOG_NOTE). */
export const AUDIT_NETWORK_TEXT = `the network it came from (the first ${AUDIT_ADDRESS_PREFIX.ipv4} bits of an IPv4 address, the first ${AUDIT_ADDRESS_PREFIX.ipv6} of an IPv6 one), never the full address`;

const days = (n: number) => `${n} days`;

/**
 * How long each kind of data is kept, in the words people read: the privacy policy's retention table and every
 * privacy export's summary (person-export.ts) say the same, from the numbers above.
 */
export const KEPT_FOR = {
  signups: "Until the early-access programme ends, or until you ask us to delete them",
  newsletter:
    "Until you ask us to delete it; after an unsubscribe we keep a minimal record so we don't email you again",
  betaInvitations: "Until the beta programme ends, or until you ask us to delete it",
  account: "While your account exists, or until you ask us to delete it",
  licenses: "While your account exists, or until you ask us to delete them",
  sessions: `Until they end, then ${days(RETENTION_DAYS.endedSessions)}`,
  validations: `${days(RETENTION_DAYS.validationAttempts)}, counted per day, license, device and result; then deleted`,
  usage: `${days(RETENTION_DAYS.usageReports)}; daily counts are then reduced to monthly totals per feature, kept while the license exists`,
  deviceEvents: days(RETENTION_DAYS.machineEvents),
  messages: `${days(RETENTION_DAYS.deliveredMessages)} after delivery`,
  auditLog: `Kept, to keep the Service secure and meet legal obligations. It names you, and our staff, by internal numbers, never by email address or name, and keeps of each change ${AUDIT_NETWORK_TEXT}`,
  erasedSessions:
    "Until the session would have ended at the latest, so that a browser still signed in can be told the account was erased; then deleted",
  supportEmails: "Up to 24 months after the conversation ends",
} as const;

/**
 * The privacy policy's retention table, from the numbers above: what the service keeps, and for how long. Rows kept
 * "until you ask" are removed by an erasure (the admin's privacy request, decision 0046).
 */
export const RETENTION_POLICY_ROWS: readonly (readonly [data: string, keptFor: string])[] = [
  ["Early-access signup answers", KEPT_FOR.signups],
  ["Newsletter subscription", KEPT_FOR.newsletter],
  ["Beta invitation", KEPT_FOR.betaInvitations],
  ["Account data", KEPT_FOR.account],
  ["Licenses and device records", KEPT_FOR.licenses],
  ["Sign-in sessions", KEPT_FOR.sessions],
  ["Validation attempts", KEPT_FOR.validations],
  ["Usage reports", KEPT_FOR.usage],
  ["Device activations and releases", KEPT_FOR.deviceEvents],
  ["Emails we sent you, and webhook messages about you", KEPT_FOR.messages],
  ["Audit log of changes to your account and licenses", KEPT_FOR.auditLog],
  [
    "After an erasure: a fingerprint (hash) of each sign-in session it ended, with no address or name",
    KEPT_FOR.erasedSessions,
  ],
  ["Support emails", KEPT_FOR.supportEmails],
];
