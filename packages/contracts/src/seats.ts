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

/**
 * Machines the owner may revoke while their license files still work (each frees a slot at once, but its file may
 * run offline until it expires): at most one per device slot at a time, so a revocation can hand a leaked key's
 * seats back to their owner, and the most it can ever add is one offline copy per slot (decision 0036).
 * Admins are not capped.
 */
export function revokedFilesAllowed(maxMachines: number): number {
  return maxMachines;
}

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

const UNITS = [
  { seconds: DAY, name: "day" },
  { seconds: HOUR, name: "hour" },
  { seconds: MINUTE, name: "minute" },
  { seconds: 1, name: "second" },
] as const;

/** The largest unit that divides the duration exactly: 1200 → { count: 20, unit: "minute" }. */
function durationParts(seconds: number): { count: number; unit: string } {
  const whole = Math.max(0, Math.round(seconds));
  const unit = UNITS.find((u) => whole >= u.seconds && whole % u.seconds === 0) ?? UNITS[3];
  return { count: whole / unit.seconds, unit: unit.name };
}

/** A rule's duration in words, as the portal and the docs say it: "20 minutes", "1 hour", "7 days". */
export function formatDuration(seconds: number): string {
  const { count, unit } = durationParts(seconds);
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}

/** The same as an adjective: "15-minute", "1-hour". */
export function formatDurationAdjective(seconds: number): string {
  const { count, unit } = durationParts(seconds);
  return `${count}-${unit}`;
}

/** The seat rule in one sentence pair, from the numbers the service sends (GET /api/license/machines/:key). */
export function seatRuleText(rules: {
  heartbeat_interval_seconds: number;
  inactive_after_seconds: number;
  revival_window_seconds: number;
}): string {
  const allowance = rules.inactive_after_seconds - rules.heartbeat_interval_seconds;
  const why =
    allowance > 0
      ? ` (its ${formatDurationAdjective(rules.heartbeat_interval_seconds)} interval plus ${formatDuration(allowance)})`
      : "";
  return (
    `A device that sends no heartbeat for ${formatDuration(rules.inactive_after_seconds)}${why} is marked inactive ` +
    `and frees its slot. If it comes back within ${formatDuration(rules.revival_window_seconds)} it gets its slot ` +
    "back while one is free."
  );
}
