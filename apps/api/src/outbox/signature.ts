/**
 * Webhook signatures, Stripe-style: `Flotilla-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "t.body")>`.
 * During a secret rotation the header carries a v1 for each live secret. `verifyWebhookSignature` is the receiver's
 * side, the same code as docs/webhooks.md shows: constant-time compare, and a timestamp window against replays.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { WEBHOOK_TOLERANCE_SECONDS } from "@flotilla/contracts/events";

export function signWebhook(secrets: string[], body: string, timestamp: number): string {
  const signatures = secrets.map(
    (secret) => `v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`,
  );
  return [`t=${timestamp}`, ...signatures].join(",");
}

export type VerifyOutcome =
  | { ok: true; timestamp: number }
  | { ok: false; reason: "malformed" | "signature" | "stale" };

export function verifyWebhookSignature(
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
