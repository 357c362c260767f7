/**
 * The public keys this build of the SDK trusts, pinned when it is built (scripts/build.mjs injects them; see
 * README "Building the SDK with your keys"). Trust lives in the app: tokens are never checked against a key
 * read from the state file or fetched from whatever server the app was pointed at — a key anyone can write
 * proves nothing.
 *
 * Several keys may be pinned: the server signs with one (its key id, `kid`, is in every token's header), and a
 * publisher rotates by shipping builds that already know the next key before switching the server to it.
 */
import { createHash } from "node:crypto";

export interface TrustedKey {
  /** The key id the server puts in token headers: base64url(SHA-256(x)), first 16 characters. */
  kid: string;
  /** The Ed25519 public key (the JWK's `x`, base64url). */
  x: string;
}

/**
 * What kind of build this is:
 *  - "production": keys from FLOTILLA_TRUSTED_KEYS; nothing can be overridden at run time;
 *  - "development": the local development server's key; the machine id may be overridden (tests, demos);
 *  - "unpinned": run from source without a build: no key is trusted, so nothing verifies offline.
 */
export type BuildKind = "production" | "development" | "unpinned";

interface PinnedBuild {
  kind: Exclude<BuildKind, "unpinned">;
  keys: TrustedKey[];
}

declare const __FLOTILLA_PINNED_BUILD__: PinnedBuild | undefined;

const PINNED: PinnedBuild | undefined =
  typeof __FLOTILLA_PINNED_BUILD__ === "undefined" ? undefined : __FLOTILLA_PINNED_BUILD__;

export const BUILD_KIND: BuildKind = PINNED?.kind ?? "unpinned";
export const PINNED_KEYS: readonly TrustedKey[] = Object.freeze([...(PINNED?.keys ?? [])]);

/** The key id of an Ed25519 public key, computed the way the server computes it. */
export function keyIdOf(x: string): string {
  return createHash("sha256").update(x).digest("base64url").slice(0, 16);
}

/** A trusted key from a JWK's `x` (the id is computed, never taken on faith). */
export function trustedKey(x: string): TrustedKey {
  return { kid: keyIdOf(x), x };
}
