import { createHmac, timingSafeEqual } from "node:crypto";
import { and, eq, isNotNull, isNull, lt, or } from "drizzle-orm";
import type { Database } from "../../db/client";
import { newsletterSubscribers } from "../../db/schema";
import { normalizeEmail } from "../../lib/privacy";
import { confirmationToken } from "../../outbox/mail-templates";
import { recordEvent } from "../events/record";
import { findSubscriber, insertSubscriber, markUnsubscribed } from "./queries";

/**
 * Unsubscribe links carry `<subscriber id>.<HMAC of the id>`: nothing secret is stored, any instance
 * with the shared APP_SECRET can check a link, and a link cannot be forged for someone else.
 */
function signature(secret: string, id: string): string {
  return createHmac("sha256", secret).update(`newsletter-unsubscribe:${id}`).digest("base64url");
}

export function unsubscribeToken(secret: string, subscriberId: string): string {
  return `${subscriberId}.${signature(secret, subscriberId)}`;
}

function verifiedSubscriberId(secret: string, token: string): string | null {
  const [id, mac, extra] = token.split(".");
  if (!id || !mac || extra !== undefined || !/^[0-9a-f-]{36}$/.test(id)) return null;
  const expected = Buffer.from(signature(secret, id));
  const given = Buffer.from(mac);
  return expected.length === given.length && timingSafeEqual(expected, given) ? id : null;
}

/** Another confirmation mail to the same address at most this often (nobody can mail-bomb an address through us). */
export const CONFIRMATION_RESEND_MS = 60 * 60 * 1000;
/** A confirmation link works this long. */
export const CONFIRMATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Double opt-in: a new address, a pending one, or one that unsubscribed gets a confirmation mail (at most one an
 * hour); it counts as subscribed only once the link is followed. A confirmed address is left as it is. Nothing in
 * the answer tells which case it was.
 */
export async function subscribe(db: Database, email: string, source: string, address: string | null = null) {
  const emailNormalized = normalizeEmail(email);
  return db.transaction(async (tx) => {
    const now = new Date();
    await insertSubscriber(tx as unknown as Database, { email: email.trim(), emailNormalized, source });
    const [row] = await tx
      .update(newsletterSubscribers)
      .set({ confirmationSentAt: now, updatedAt: now })
      .where(
        and(
          eq(newsletterSubscribers.emailNormalized, emailNormalized),
          or(isNull(newsletterSubscribers.confirmedAt), isNotNull(newsletterSubscribers.unsubscribedAt)),
          or(
            isNull(newsletterSubscribers.confirmationSentAt),
            lt(newsletterSubscribers.confirmationSentAt, new Date(now.getTime() - CONFIRMATION_RESEND_MS)),
          ),
        ),
      )
      .returning();
    if (!row) return { mailed: false };
    await recordEvent(tx, {
      type: "newsletter.subscription_requested",
      actor: { type: "anonymous" },
      target: { type: "newsletter_subscriber", id: row.id },
      before: null,
      after: { email: row.email, source, confirmation_sent_at: now.toISOString() },
      recipient: row.email,
      address,
    });
    return { mailed: true };
  });
}

export type ConfirmOutcome = "confirmed" | "already" | "invalid";

/** Follows a confirmation link: only the latest one asked for, within 7 days, counts. */
export async function confirmSubscription(
  db: Database,
  secret: string,
  token: string,
  address: string | null,
): Promise<ConfirmOutcome> {
  const [id, sentAt, mac, extra] = token.split(".");
  if (!id || !sentAt || !mac || extra !== undefined || !/^[0-9a-f-]{36}$/.test(id) || !/^\d{1,15}$/.test(sentAt)) {
    return "invalid";
  }
  const expected = Buffer.from(confirmationToken(secret, id, Number(sentAt)));
  const given = Buffer.from(token);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return "invalid";
  const now = new Date();
  if (now.getTime() - Number(sentAt) > CONFIRMATION_TTL_MS) return "invalid";
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(newsletterSubscribers).where(eq(newsletterSubscribers.id, id)).for("update");
    if (!row) return "invalid";
    if (row.confirmedAt && !row.unsubscribedAt) return "already";
    // An older link (a newer one was sent, or this one was used and the address later unsubscribed) is dead.
    if (row.confirmationSentAt?.getTime() !== Number(sentAt)) return "invalid";
    await tx
      .update(newsletterSubscribers)
      .set({ confirmedAt: now, unsubscribedAt: null, confirmationSentAt: null, subscribedAt: now, updatedAt: now })
      .where(eq(newsletterSubscribers.id, id));
    await recordEvent(tx, {
      type: "newsletter.subscribed",
      actor: { type: "anonymous" },
      target: { type: "newsletter_subscriber", id },
      before: {
        confirmed_at: row.confirmedAt?.toISOString() ?? null,
        unsubscribed_at: row.unsubscribedAt?.toISOString() ?? null,
      },
      after: { confirmed_at: now.toISOString(), unsubscribed_at: null },
      address,
    });
    return "confirmed";
  });
}

export type UnsubscribeOutcome = "unsubscribed" | "already" | "invalid";

export async function unsubscribe(
  db: Database,
  secret: string,
  token: string,
  address: string | null = null,
): Promise<UnsubscribeOutcome> {
  const id = verifiedSubscriberId(secret, token);
  if (!id) return "invalid";
  const done = await db.transaction(async (tx) => {
    if (!(await markUnsubscribed(tx as unknown as Database, id))) return false;
    await recordEvent(tx, {
      type: "newsletter.unsubscribed",
      actor: { type: "anonymous" },
      target: { type: "newsletter_subscriber", id },
      before: { unsubscribed_at: null },
      after: { unsubscribed_at: new Date().toISOString() },
      address,
    });
    return true;
  });
  if (done) return "unsubscribed";
  return (await findSubscriber(db, id)) ? "already" : "invalid";
}
