/**
 * Signed answers: every licensing response (validate, heartbeat, usage, deactivate, checkout, offline activation)
 * carries a detached Ed25519 signature over its method, path, creation time, the client's nonce and a digest of the
 * body (contracts/seats.ts `signingInput`), made with the license signing key. The SDK checks it against the keys
 * pinned in the app, so a proxy on the user's machine cannot rewrite SUSPENDED into VALID, nor replay an old answer.
 * Error answers (404, 403, 429…) are signed too: the app can tell a real refusal from a forged one.
 */
import { hash } from "node:crypto";
import { NONCE_HEADER, SIGNATURE_HEADER, signingInput } from "@flotilla/contracts/seats";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { LicenseSigner } from "./signing";

/** What a client may send as a nonce: short and header-safe, so it can be echoed in a quoted string. */
const NONCE = /^[A-Za-z0-9_-]{8,128}$/;

export function nonceOf(request: FastifyRequest): string | null {
  const value = request.headers[NONCE_HEADER];
  return typeof value === "string" && NONCE.test(value) ? value : null;
}

export function signatureHeader(
  signer: Pick<LicenseSigner, "kid" | "signDetached">,
  answer: { method: string; path: string; nonce: string | null; body: string | Buffer; created: number },
): string {
  // One-shot: no Hash object per answer.
  const bodyDigest = hash("sha256", answer.body, "base64");
  const signature = signer.signDetached(signingInput({ ...answer, bodyDigest }));
  return `keyid="${signer.kid}", alg="ed25519", created=${answer.created}, nonce="${answer.nonce ?? "-"}", signature="${signature}"`;
}

/**
 * The route-level onSend hook that signs an answer. The payload is the serialized body (these routes are not
 * compressed: answers are small, and the signature must cover the bytes the client reads).
 */
export function signAnswers(signer: LicenseSigner) {
  // A callback hook, not an async one: it runs on every desktop answer and has nothing to wait for (Fastify turns a
  // throw into the request's error, as it did a rejection).
  return (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: (error: Error | null, payload: unknown) => void,
  ) => {
    const body = typeof payload === "string" || Buffer.isBuffer(payload) ? payload : "";
    reply.header(
      SIGNATURE_HEADER,
      signatureHeader(signer, {
        method: request.method,
        path: request.url,
        nonce: nonceOf(request),
        body,
        created: Math.floor(Date.now() / 1000),
      }),
    );
    done(null, payload);
  };
}
