/**
 * Who may download what (decision 0059), as pure functions the service and the tests share.
 *
 * - The license must be in force (not suspended, not expired), unless RELEASE_EXPIRED_ACCESS=maintain lets a
 *   license past its end (by date, not suspended) keep the releases published before that end.
 * - Channels: every license gets stable; an admitted beta tester who asks for beta (or anything less stable) also
 *   gets beta. rc, alpha and dev never reach customers: they are for the operator's own testing.
 * - A release that requires a feature needs a license whose tier has it.
 * - A license is never offered a release published after its end (`expires_at`): with `maintain` that is what
 *   keeps an expired license on the versions it paid for; in force, it changes nothing.
 */
import type { ReleaseChannel, ReleaseFeature } from "@flotilla/contracts/releases";
import type { TierFeatures } from "@flotilla/contracts/tiers";

export interface EntitledLicense {
  status: string;
  expiresAt: Date | null;
  features: TierFeatures;
}

export type Refusal = "SUSPENDED" | "EXPIRED";

/** Null when the license may download, else why not. */
export function licenseRefusal(
  license: EntitledLicense,
  now: Date,
  expiredAccess: "refuse" | "maintain",
): Refusal | null {
  if (license.status === "suspended") return "SUSPENDED";
  const pastEnd = license.status === "expired" || (license.expiresAt !== null && license.expiresAt <= now);
  if (pastEnd && !(expiredAccess === "maintain" && license.expiresAt !== null)) return "EXPIRED";
  return null;
}

/** The channels a customer's request may draw from. */
export function customerChannels(requested: ReleaseChannel, tester: boolean): ReleaseChannel[] {
  if (requested === "stable" || !tester) return ["stable"];
  return ["stable", "beta"];
}

export interface CandidateRelease {
  channel: string;
  requiresFeature: string | null;
  publishedAt: Date | null;
}

export function mayHave(release: CandidateRelease, license: EntitledLicense, channels: readonly string[]): boolean {
  if (!channels.includes(release.channel)) return false;
  if (release.requiresFeature && !license.features[release.requiresFeature as ReleaseFeature]) return false;
  if (license.expiresAt && release.publishedAt && release.publishedAt > license.expiresAt) return false;
  return true;
}
