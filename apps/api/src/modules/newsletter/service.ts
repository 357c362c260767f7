import { createHmac, timingSafeEqual } from "node:crypto";
import type { Database } from "../../db/client";
import { normalizeEmail } from "../../lib/privacy";
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

export async function subscribe(db: Pick<Database, "insert">, email: string, source: string) {
  return insertSubscriber(db, { email: email.trim(), emailNormalized: normalizeEmail(email), source });
}

export type UnsubscribeOutcome = "unsubscribed" | "already" | "invalid";

export async function unsubscribe(db: Database, secret: string, token: string): Promise<UnsubscribeOutcome> {
  const id = verifiedSubscriberId(secret, token);
  if (!id) return "invalid";
  if (await markUnsubscribed(db, id)) return "unsubscribed";
  return (await findSubscriber(db, id)) ? "already" : "invalid";
}
