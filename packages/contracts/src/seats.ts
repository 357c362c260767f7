/**
 * The rules of a license's seats (machines), shared by the server, the SDK, the portal and the docs: heartbeats and
 * when a silent machine loses its slot, caps on activations and deactivations, key rotation, license files.
 * Heartbeat intervals are per tier (tiers.ts). No zod here: public pages read it.
 */

const MINUTE = 60;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const SEAT_RULES = {
  /**
   * A machine silent for its tier's heartbeat interval plus this allowance (sleep, clock drift, a slow network) is
   * marked inactive and its slot freed.
   */
  driftAllowanceSeconds: 5 * MINUTE,
  /** An inactive machine that comes back within this gets its slot back, if one is free; after it, it is forgotten. */
  revivalWindowSeconds: 7 * DAY,
  /** Deactivations from the app per license, in any 24 hours. */
  deactivationsPerDay: 5,
  /** New machines bound per license, in any 24 hours (a machine coming back is not new). */
  activationsPerDay: 10,
  /** After a key is rotated, the old key keeps working this long, so running machines can take the new one. */
  keyRotationGraceSeconds: HOUR,
  /** License files for machines that cannot reach the service. */
  licenseFileDefaultTtlSeconds: 30 * DAY,
  licenseFileMaxTtlSeconds: 90 * DAY,
  /** Refused activations the dashboard keeps per license (the most recent). */
  refusalsKept: 20,
  /** Signed answers older than this (or dated this far in the future) are refused by the SDK. */
  signedAnswerMaxAgeSeconds: 5 * MINUTE,
} as const;

/** When a machine of this tier, silent since `lastSignOfLife`, loses its slot. */
export function inactiveAfterSeconds(heartbeatIntervalSeconds: number): number {
  return heartbeatIntervalSeconds + SEAT_RULES.driftAllowanceSeconds;
}

/**
 * Signed answers (every licensing response): Ed25519 over these lines, joined by "\n":
 *   method, path (with the query), the answer's creation time (unix seconds), the request's nonce (the client's
 *   `Flotilla-Nonce` header, or "-"), and "sha-256=" + base64 of the SHA-256 of the body bytes.
 * Header: `Flotilla-Signature: keyid="<kid>", alg="ed25519", created=<unix>, nonce="<nonce>", signature="<base64url>"`.
 */
export const SIGNATURE_HEADER = "flotilla-signature";
export const NONCE_HEADER = "flotilla-nonce";

export function signingInput(parts: {
  method: string;
  path: string;
  created: number;
  nonce: string | null;
  bodyDigest: string;
}): string {
  return [
    parts.method.toUpperCase(),
    parts.path,
    String(parts.created),
    parts.nonce ?? "-",
    `sha-256=${parts.bodyDigest}`,
  ].join("\n");
}

/** Formats of the files a machine without a network exchanges through another computer. */
export const LICENSE_FILE_FORMAT = "flotilla-license-file/1";
export const ACTIVATION_REQUEST_FORMAT = "flotilla-activation-request/1";
