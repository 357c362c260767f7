/**
 * The mails the service sends, keyed by the event that sends them. recordEvent stores a MailJob (template, address,
 * the event's data) in the outbox; the runner renders it when it delivers, with the public origin and the secret
 * that sign links — nothing secret is stored in the outbox. Every mail has a plain-text and an HTML part.
 *
 * A mail goes out from our domain, so it says nothing that someone who did not sign in typed (launch review 2): not
 * the name an anonymous signup gave, not the name, id or platform a device sent with a license key. Only what the
 * service itself decided (tier, counts, key hints, links) and values from a fixed set.
 */
import { createHmac } from "node:crypto";
import { BRAND, LEGAL_ENTITY } from "@flotilla/contracts/brand";
import type { EventType } from "@flotilla/contracts/events";
import { RETENTION_DAYS } from "@flotilla/contracts/retention";

export interface MailJob {
  template: EventType;
  to: string;
  data: { target: { type: string; id: string }; before: unknown; after: unknown };
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

export interface MailContext {
  publicOrigin: string;
  secret: string;
}

type Fields = Record<string, unknown>;
/** `eventId`: the event the mail reports (its audit row), which a mail may quote as a reference. */
type Template = (data: MailJob["data"], context: MailContext, eventId: string | null) => RenderedMail;

/**
 * Mails whose outbox row is deleted as soon as it is delivered or given up, rather than kept with the others
 * (RETENTION.finishedOutboxMs): the erasure notice goes to an address the service has just forgotten, and its row is
 * the last thing that holds it (decision 0056). Until then — seconds, or the retry window if the mail server is down —
 * the row holds the address to deliver to, and a later request about the address finds it.
 */
export const MAIL_FORGOTTEN_ONCE_SENT: ReadonlySet<EventType> = new Set<EventType>(["person.erased"]);

export function forgottenOnceSent(job: Pick<MailJob, "template">): boolean {
  return MAIL_FORGOTTEN_ONCE_SENT.has(job.template);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Same as newsletter/service.ts: `<id>.<HMAC>`; kept here so rendering needs no module import cycle. */
export function unsubscribeLink(context: MailContext, subscriberId: string): string {
  const mac = createHmac("sha256", context.secret).update(`newsletter-unsubscribe:${subscriberId}`).digest("base64url");
  return `${context.publicOrigin}/newsletter/unsubscribe?token=${encodeURIComponent(`${subscriberId}.${mac}`)}`;
}

/** `<id>.<sent-at ms>.<HMAC>`: valid only for the latest confirmation asked for (newsletter/service.ts checks). */
export function confirmationToken(secret: string, subscriberId: string, sentAtMs: number): string {
  const mac = createHmac("sha256", secret).update(`newsletter-confirm:${subscriberId}:${sentAtMs}`).digest("base64url");
  return `${subscriberId}.${sentAtMs}.${mac}`;
}

/** Paragraphs of text (a line starting with http becomes a link in HTML). */
function compose(subject: string, paragraphs: string[], extraHeaders: Record<string, string> = {}): RenderedMail {
  const footer = `— ${BRAND.name} · ${LEGAL_ENTITY.name}, ${LEGAL_ENTITY.postalAddress}`;
  const text = `${paragraphs.join("\n\n")}\n\n${footer}\n`;
  const body = paragraphs
    .map((p) =>
      /^https?:\/\//.test(p)
        ? `<p><a href="${escapeHtml(p)}">${escapeHtml(p)}</a></p>`
        : `<p>${escapeHtml(p).replace(/\n/g, "<br>")}</p>`,
    )
    .join("\n");
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111">\n${body}\n<p style="color:#666">${escapeHtml(footer)}</p>\n</body></html>\n`;
  return { subject, text, html, headers: extraHeaders };
}

function listUnsubscribe(context: MailContext, subscriberId: unknown): Record<string, string> {
  return typeof subscriberId === "string" ? { "List-Unsubscribe": `<${unsubscribeLink(context, subscriberId)}>` } : {};
}

const str = (value: unknown, fallback = "") =>
  typeof value === "string" || typeof value === "number" ? String(value) : fallback;

const count = (value: unknown) => (typeof value === "number" && Number.isInteger(value) && value > 0 ? value : 0);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** "a", "a and b", "a, b and c". */
function listed(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** What an erasure deleted, from its counts (the person.erased event's `after`), in words. */
function erasedParts(after: Fields): string[] {
  const licenses = count(after.licenses);
  const machines = count(after.machines);
  const accounts = count(after.customers);
  return [
    ...(count(after.signups) > 0 ? ["your early-access answers"] : []),
    ...(count(after.newsletter_subscriptions) > 0 ? ["your newsletter subscription"] : []),
    ...(count(after.beta_invitations) > 0 ? ["your beta invitation"] : []),
    ...(accounts > 0 ? [accounts === 1 ? "your account" : `your ${accounts} accounts`] : []),
    ...(licenses > 0
      ? [
          `${licenses === 1 ? "your license" : `your ${licenses} licenses`}${machines > 0 ? ` and the ${plural(machines, "device")} activated with ${licenses === 1 ? "it" : "them"}` : ""}`,
          `${licenses === 1 ? "its" : "their"} usage and validation counts`,
        ]
      : []),
    ...(count(after.sessions_revoked) > 0 ? ["your sign-in sessions"] : []),
    ...(count(after.messages) + count(after.dev_mail) > 0 ? ["the emails and webhook messages about you"] : []),
  ];
}

/** What Node.js reports as `${process.platform}-${process.arch}` (the SDK's default): a device's platform, if one. */
const NODE_PLATFORM =
  /^(aix|android|darwin|freebsd|linux|openbsd|sunos|win32)-(arm|arm64|ia32|loong64|mips|mipsel|ppc|ppc64|riscv64|s390|s390x|x64)$/;

/**
 * The beta invitation (issue 36, decision 0062): a sign-in link on the public origin, and the invitation's id as a
 * reference. Nothing in it is a secret: signing in with this address is what accepts, whoever clicks the link. The
 * wave's name and date are the operator's; nothing the signup typed is repeated.
 */
export function betaInvitationLink(context: MailContext, invitationId: string): string {
  return `${context.publicOrigin}/login?redirect=${encodeURIComponent("/dashboard")}&invite=${encodeURIComponent(invitationId)}`;
}

const betaInvitation: Template = (data, context) => {
  const after = (data.after ?? {}) as Fields;
  const wave = str(after.wave_name);
  const date = /^\d{4}-\d{2}-\d{2}$/.test(str(after.wave_date)) ? str(after.wave_date) : "";
  return compose(`You're invited to the ${BRAND.name} beta`, [
    "Hello,",
    `You joined the ${BRAND.name} early-access list, and your place in the beta is ready${wave ? ` (wave "${wave}"${date ? `, from ${date}` : ""})` : ""}.`,
    "Sign in with this email address to accept it; your dashboard then lets you create your license:",
    betaInvitationLink(context, data.target.id),
    `Invitation reference: ${data.target.id}. You do not need it to sign in; quote it if you write to us at ${BRAND.supportEmail}. If you did not sign up, ignore this mail.`,
  ]);
};

export const MAIL_TEMPLATES: Partial<Record<EventType, Template>> = {
  "beta.invited": betaInvitation,
  "beta.invitation_resent": betaInvitation,
  "signup.created": (data, context) => {
    const after = (data.after ?? {}) as Fields;
    // No name: the signup is anonymous, and its name field would be words of the sender's choosing.
    return compose(`You're on the ${BRAND.name} early-access list`, [
      "Hello,",
      `Thanks for joining the ${BRAND.name} early-access programme. We'll write when your invitation is ready.`,
      ...(after.newsletter ? ["You also asked for the newsletter: a separate mail asks you to confirm it."] : []),
      `${context.publicOrigin}/`,
    ]);
  },
  "newsletter.subscription_requested": (data, context) => {
    const after = (data.after ?? {}) as Fields;
    const sentAt = Date.parse(str(after.confirmation_sent_at));
    const link = `${context.publicOrigin}/newsletter/confirm?token=${encodeURIComponent(
      confirmationToken(context.secret, data.target.id, sentAt),
    )}`;
    return compose(
      `Confirm your ${BRAND.name} newsletter subscription`,
      [
        `Someone — hopefully you — asked to receive the ${BRAND.name} newsletter at this address.`,
        "Confirm with this link (valid for 7 days):",
        link,
        "If it wasn't you, ignore this mail: nothing is sent until the address is confirmed.",
      ],
      listUnsubscribe(context, data.target.id),
    );
  },
  "license.created": (data, context) => {
    const after = (data.after ?? {}) as Fields;
    // The key itself is never mailed (nor kept in the audit log or sent to webhooks): the dashboard shows it.
    return compose(`Your ${BRAND.name} license`, [
      `Your ${str(after.tier)} license is ready${after.key_hint ? ` (key ending ${str(after.key_hint)})` : ""}.`,
      `Copy its key from your dashboard and paste it into ${BRAND.name} on up to ${str(after.max_machines)} devices:`,
      `${context.publicOrigin}/dashboard`,
    ]);
  },
  "license.key_rotated": (data, context) => {
    const after = (data.after ?? {}) as Fields;
    // The new key is never mailed: it was shown once, in the dashboard, to whoever rotated it.
    return compose(`Your ${BRAND.name} license key changed`, [
      `Your license has a new key${after.key_hint ? ` (ending ${str(after.key_hint)})` : ""}; the old one stops working${after.previous_key_valid_until ? ` at ${str(after.previous_key_valid_until)}` : " within the hour"}. Your devices keep their slots when they use the new key.`,
      "If you did not ask for this, sign in and check your devices:",
      `${context.publicOrigin}/dashboard`,
    ]);
  },
  "person.erased": (data, context, eventId) => {
    // Counts only (decision 0056): the person's data is gone, and this mail is deleted once sent.
    const after = (data.after ?? {}) as Fields;
    const parts = erasedParts(after);
    const stopped =
      count(after.licenses) === 0
        ? null
        : `${count(after.licenses) === 1 ? "Your license" : "Your licenses"} stopped working on every device at once`;
    const signedOut = count(after.sessions_revoked) > 0 ? "signed out everywhere" : null;
    const atOnce = stopped && signedOut ? `${stopped}, and you were ${signedOut}.` : stopped ? `${stopped}.` : null;
    return compose(`Your ${BRAND.name} data has been erased`, [
      "Hello,",
      `We have erased what we held about this email address${parts.length > 0 ? `: ${listed(parts)}` : ""}.`,
      ...(atOnce ? [atOnce] : signedOut ? [`You were ${signedOut}.`] : []),
      `What we keep: our audit log records past changes and this erasure, to keep the service secure and to show that we honoured the request. It names people by internal numbers only, never by email address or name, and nothing links those numbers to you any more. Copies in our backups disappear as they roll over, within ${RETENTION_DAYS.backupsRollOver} days.`,
      count(after.customers) > 0
        ? `If you sign in to ${BRAND.name} again, we create a new, empty account: your earlier licenses, devices and usage do not come back.`
        : "Nothing we erased comes back: signing up or subscribing again starts afresh.",
      `${eventId ? `Reference: ${eventId}. Quote it if you write to us at ${BRAND.supportEmail}. ` : ""}We do not keep this email once it is sent. Our privacy policy says what we hold and for how long:`,
      `${context.publicOrigin}/privacy`,
    ]);
  },
  "license.machine_limit_reached": (data, context) => {
    const after = (data.after ?? {}) as Fields;
    // The device's name, id and platform are whatever a holder of the key sent: only a platform from the fixed set
    // names it here; the dashboard lists the rest, as the device reported it.
    const platform = NODE_PLATFORM.test(str(after.platform)) ? `${str(after.platform)} ` : "";
    return compose(`A device could not activate your ${BRAND.name} license`, [
      `Every device slot of your license is in use${after.max_machines ? ` (${str(after.max_machines)})` : ""}, so a new ${platform}device was refused. Your dashboard lists it.`,
      "Remove a device you no longer use, and the refused one gets its slot the next time it starts:",
      `${context.publicOrigin}/dashboard`,
    ]);
  },
};

export function renderMail(job: MailJob, context: MailContext, eventId: string | null = null): RenderedMail {
  const template = MAIL_TEMPLATES[job.template];
  if (!template) throw new Error(`no mail template for ${job.template}`);
  return template(job.data, context, eventId);
}
