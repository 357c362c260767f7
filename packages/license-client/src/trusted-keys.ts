/**
 * The public keys the SDK trusts. Trust lives in the app, and comes from its publisher in one of two ways:
 *  - at construction: `new LicenseClient({ trustedKeys })` (the manager uses the client's keys unless given its own);
 *  - at build time: the publisher's bundler defines `__FLOTILLA_PINNED_BUILD__` (this repository's CLI build,
 *    scripts/build.mjs, does so from FLOTILLA_TRUSTED_KEYS; see README "Pinning your keys").
 * Tokens are never checked against a key read from the state file or fetched from whatever server the app was
 * pointed at — a key anyone can write proves nothing. With no key from either source nothing verifies: a
 * LicenseManager refuses to be constructed, and every signed answer or token is refused (`untrusted_key`).
 *
 * Several keys may be trusted: the server signs with one (its key id, `kid`, is in every token's header), and a
 * publisher rotates by shipping builds that already know the next key before switching the server to it.
 */
import { createHash } from "node:crypto";
import { LicenseInputError } from "./errors";

export interface TrustedKey {
  /** The key id the server puts in token headers: base64url(SHA-256(x)), first 16 characters. */
  kid: string;
  /** The Ed25519 public key (the JWK's `x`, base64url). */
  x: string;
}

/**
 * A key as a publisher gives it: the `x` of an Ed25519 public JWK (a whole public JWK from `admin keys public` or
 * `GET /api/license/public-key` will do). A `kid`, if present, must be the one computed from `x`; it is never taken
 * on faith.
 */
export interface TrustedKeyInput {
  x: string;
  kid?: string;
  kty?: string;
  crv?: string;
}

/**
 * What kind of build this is:
 *  - "production": keys defined at build time (FLOTILLA_TRUSTED_KEYS, or the publisher's own bundler); nothing can
 *    be overridden at run time;
 *  - "development": the local development server's key; the CLI's machine id may be overridden (tests, demos);
 *  - "unpinned": no key defined at build time (the sources, or the npm package as published): keys must be passed
 *    at construction, else nothing verifies.
 */
export type BuildKind = "production" | "development" | "unpinned";

declare const __FLOTILLA_PINNED_BUILD__: unknown;

const ED25519_X = /^[A-Za-z0-9_-]{43}$/;
const DEFINE = "__FLOTILLA_PINNED_BUILD__";

/** The key id of an Ed25519 public key, computed the way the server computes it. */
export function keyIdOf(x: string): string {
  return createHash("sha256").update(x).digest("base64url").slice(0, 16);
}

/** Whether `x` is an Ed25519 public key as a JWK writes it: 32 bytes, canonical unpadded base64url. */
function isEd25519X(x: unknown): x is string {
  return typeof x === "string" && ED25519_X.test(x) && Buffer.from(x, "base64url").toString("base64url") === x;
}

/** A trusted key from a JWK's `x` (the id is computed, never taken on faith). Throws LicenseInputError if it is not one. */
export function trustedKey(x: string): TrustedKey {
  if (!isEd25519X(x)) {
    throw new LicenseInputError("A trusted key must be the x of an Ed25519 public JWK (43 base64url characters).", "x");
  }
  return { kid: keyIdOf(x), x };
}

/**
 * Checks keys a publisher gives (at construction or in the build-time define): each must be an Ed25519 public key,
 * not a private one, and a `kid` beside it must be its own. Throws LicenseInputError naming the first bad key.
 */
export function checkTrustedKeys(keys: unknown, field = "trustedKeys"): readonly TrustedKey[] {
  if (!Array.isArray(keys)) throw new LicenseInputError(`${field} must be an array of Ed25519 public keys.`, field);
  const checked = keys.map((key: unknown, index) => {
    const where = `${field}[${index}]`;
    if (typeof key !== "object" || key === null) {
      throw new LicenseInputError(`${where} is not a key: give { x } of an Ed25519 public JWK.`, where);
    }
    const jwk = key as Record<string, unknown>;
    if ("d" in jwk) throw new LicenseInputError(`${where} is a private key: trust public keys only.`, where);
    if ((jwk.kty !== undefined && jwk.kty !== "OKP") || (jwk.crv !== undefined && jwk.crv !== "Ed25519")) {
      throw new LicenseInputError(`${where} is not an Ed25519 key (kty OKP, crv Ed25519).`, where);
    }
    if (!isEd25519X(jwk.x)) {
      throw new LicenseInputError(`${where}.x is not an Ed25519 public key (43 base64url characters).`, `${where}.x`);
    }
    const kid = keyIdOf(jwk.x);
    if (jwk.kid !== undefined && jwk.kid !== kid) {
      throw new LicenseInputError(`${where}.kid is not the id of its key (expected "${kid}").`, `${where}.kid`);
    }
    return Object.freeze({ kid, x: jwk.x });
  });
  return Object.freeze(checked);
}

interface PinnedBuild {
  kind: Exclude<BuildKind, "unpinned">;
  keys: readonly TrustedKey[];
}

/** The build-time define, checked like construction-time keys: a malformed pin fails at import, loudly. */
function readPinnedBuild(value: unknown): PinnedBuild | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null) {
    throw new LicenseInputError(`${DEFINE} must be an object: { "keys": [{ "x": "…" }] }.`, DEFINE);
  }
  const { kind = "production", keys } = value as { kind?: unknown; keys?: unknown };
  if (kind !== "production" && kind !== "development") {
    throw new LicenseInputError(`${DEFINE}.kind must be "production" or "development".`, `${DEFINE}.kind`);
  }
  const checked = checkTrustedKeys(keys, `${DEFINE}.keys`);
  if (checked.length === 0) throw new LicenseInputError(`${DEFINE}.keys holds no key.`, `${DEFINE}.keys`);
  return { kind, keys: checked };
}

const PINNED = readPinnedBuild(
  typeof __FLOTILLA_PINNED_BUILD__ === "undefined" ? undefined : __FLOTILLA_PINNED_BUILD__,
);

export const BUILD_KIND: BuildKind = PINNED?.kind ?? "unpinned";
/** The keys defined at build time; empty in the sources and in the npm package as published. */
export const PINNED_KEYS: readonly TrustedKey[] = PINNED?.keys ?? Object.freeze([]);

/** The message of every refusal that happens because no key is trusted at all. */
export const NO_TRUSTED_KEYS =
  "No signing key is trusted: pass trustedKeys (your licensing server's public keys) when constructing the " +
  "LicenseClient, or define __FLOTILLA_PINNED_BUILD__ when bundling the app.";
