/**
 * Webhook signatures, Standard Webhooks (standardwebhooks.com; decision 0044), so that any receiver verifies a delivery
 * with a maintained library in its own language:
 *   webhook-id         the event id, the same for every retry and resend (receivers dedupe on it);
 *   webhook-timestamp  unix seconds of this attempt;
 *   webhook-signature  "v1,<base64 HMAC-SHA256(key, `${id}.${timestamp}.${body}`)>", one per live secret, separated by
 *                      spaces (two during a rotation), where the key is the secret's bytes: base64 after "whsec_".
 * Deliveries still carry the earlier `Flotilla-Signature` (Stripe-style, keyed by the whole secret text) for receivers
 * written against it; `verifyLegacySignature` is that receiver's check.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { WEBHOOK_TOLERANCE_SECONDS } from "@flotilla/contracts/events";

export const SECRET_PREFIX = "whsec_";

/** The HMAC key of a secret: the bytes its base64 text stands for (Node reads the url-safe alphabet of older secrets too). */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
}

/** The `webhook-signature` header: a `v1,<base64>` signature per live secret. */
export function standardSignature(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map(
      (secret) => `v1,${createHmac("sha256", secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest("base64")}`,
    )
    .join(" ");
}

/** The deprecated `Flotilla-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret text, "t.body")>`. */
export function legacySignature(secrets: string[], body: string, timestamp: number): string {
  const signatures = secrets.map(
    (secret) => `v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`,
  );
  return [`t=${timestamp}`, ...signatures].join(",");
}

export type VerifyOutcome =
  | { ok: true; timestamp: number }
  | { ok: false; reason: "malformed" | "signature" | "stale" };

/** A receiver's check of the deprecated header: constant-time compare, and a timestamp window against replays. */
export function verifyLegacySignature(
  secret: string,
  header: string | undefined,
  rawBody: string,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = WEBHOOK_TOLERANCE_SECONDS,
): VerifyOutcome {
  if (!header) return { ok: false, reason: "malformed" };
  const parts = header.split(",").map((part) => part.trim().split("="));
  const t = Number(parts.find(([key]) => key === "t")?.[1]);
  const given = parts.filter(([key, value]) => key === "v1" && value).map(([, value]) => value!);
  if (!Number.isInteger(t) || given.length === 0) return { ok: false, reason: "malformed" };
  const expected = Buffer.from(createHmac("sha256", secret).update(`${t}.${rawBody}`).digest("hex"));
  const match = given.some((sig) => {
    const candidate = Buffer.from(sig);
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
  if (!match) return { ok: false, reason: "signature" };
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return { ok: false, reason: "stale" };
  return { ok: true, timestamp: t };
}
