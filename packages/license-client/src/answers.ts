/**
 * Signed answers: the licensing server signs every answer to the desktop calls (validate, heartbeat, usage,
 * deactivate, checkout, offline activation) with its license key — Ed25519 over the method, path, creation time,
 * the nonce this client sent and a digest of the body (contracts/seats.ts). The SDK checks it against the keys
 * pinned in the app and refuses an answer that is unsigned, signed by another key, made for another request, or
 * older (or newer) than a few minutes: a proxy on the user's machine cannot turn SUSPENDED into VALID, nor replay
 * yesterday's VALID.
 */
import { createHash, createPublicKey, randomBytes, verify } from "node:crypto";
import { SEAT_RULES, signingInput } from "@flotilla/contracts/seats";
import { keyIdOf, NO_TRUSTED_KEYS, type TrustedKey } from "./trusted-keys";

export type AnswerFailureReason = "unsigned" | "untrusted_key" | "bad_signature" | "wrong_request" | "stale";

export type AnswerVerification =
  | { ok: true; kid: string }
  | { ok: false; reason: AnswerFailureReason; message: string };

/** A fresh nonce for one request: the answer must echo it, so an answer recorded earlier cannot be replayed. */
export function newNonce(): string {
  return randomBytes(18).toString("base64url");
}

/** The fields of a `Flotilla-Signature` header (key="quoted" or key=digits, comma separated). */
export function parseSignatureHeader(header: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of header.matchAll(/([a-z]+)=(?:"([^"]*)"|(\d+))/g)) {
    const [, name, quoted, digits] = match;
    if (name && !(name in fields)) fields[name] = quoted ?? digits ?? "";
  }
  return fields;
}

export function verifyAnswer(
  answer: { method: string; path: string; nonce: string; body: string | Uint8Array; header: string | null },
  trustedKeys: readonly TrustedKey[],
  options: { now?: Date; maxAgeSeconds?: number } = {},
): AnswerVerification {
  if (!answer.header) return fail("unsigned", "The answer is not signed by the licensing server.");
  const fields = parseSignatureHeader(answer.header);
  const { keyid, alg, created, nonce, signature } = fields;
  if (alg !== "ed25519" || !keyid || !created || !signature || nonce === undefined) {
    return fail("unsigned", "The answer's signature header is malformed.");
  }
  if (trustedKeys.length === 0) return fail("untrusted_key", NO_TRUSTED_KEYS);
  const trusted = trustedKeys.find((candidate) => keyIdOf(candidate.x) === keyid);
  if (!trusted)
    return fail("untrusted_key", `The answer is signed with key "${keyid}", which this build does not trust.`);
  if (nonce !== answer.nonce) return fail("wrong_request", "The answer was made for another request (nonce differs).");
  const now = (options.now ?? new Date()).getTime() / 1000;
  const maxAge = options.maxAgeSeconds ?? SEAT_RULES.signedAnswerMaxAgeSeconds;
  if (Math.abs(now - Number(created)) > maxAge) {
    return fail(
      "stale",
      `The answer was signed at ${new Date(Number(created) * 1000).toISOString()}, too far from now.`,
    );
  }
  const bodyDigest = createHash("sha256").update(answer.body).digest("base64");
  const input = signingInput({ method: answer.method, path: answer.path, created: Number(created), nonce, bodyDigest });
  let valid = false;
  try {
    const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: trusted.x }, format: "jwk" });
    valid = verify(null, Buffer.from(input, "utf8"), key, Buffer.from(signature, "base64url"));
  } catch {
    valid = false;
  }
  return valid ? { ok: true, kid: keyid } : fail("bad_signature", "The answer's signature does not match its content.");
}

function fail(reason: AnswerFailureReason, message: string): AnswerVerification {
  return { ok: false, reason, message };
}
