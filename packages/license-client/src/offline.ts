/**
 * Offline verification of the token a successful validation returns: an EdDSA (Ed25519) JWT the app checks
 * against the public keys pinned in its build (trusted-keys.ts), so it keeps working without a network until the
 * token expires — at most the offline grace period after it was issued, whatever the token itself claims.
 */
import type { FeaturesSchema } from "@flotilla/contracts/licensing";
import { SEAT_RULES } from "@flotilla/contracts/seats";
import { CLIENT_CONFIGURATION } from "@flotilla/contracts/tiers";
import { decodeProtectedHeader, importJWK, jwtVerify } from "jose";
import { keyIdOf, NO_TRUSTED_KEYS, type TrustedKey } from "./trusted-keys";

export const TOKEN_ISSUER = "flotilla-licensing";
export const TOKEN_AUDIENCE = "flotilla-desktop";
/** Allowed clock difference between this machine and the server, in seconds. */
export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 60;
/** The longest a token may let the app work offline: a longer-lived token is refused, not trusted longer. */
export const MAX_TOKEN_LIFETIME_SECONDS = CLIENT_CONFIGURATION.offlineGraceSeconds;

export interface LicenseTokenClaims {
  iss: string;
  /** Opaque id of the license on the server. */
  sub: string;
  aud: string | string[];
  iat: number;
  exp: number;
  /** The license key. */
  lic: string;
  /** The machine id the token was issued to. */
  mid: string;
  tier: string;
  status: string;
  features: ReturnType<typeof FeaturesSchema.parse>;
  max_machines: number;
  /** When the license itself ends (ISO date), or null; absent in tokens from servers before it was signed. */
  license_expires_at?: string | null;
}

export type OfflineFailureReason =
  /** The token's exp has passed: the offline grace period is over. */
  | "expired"
  /** The token was issued in the future, or the clock is earlier than a previous check: it was set back. */
  | "clock_rollback"
  /** The token claims to last longer than the offline grace period: not one the server would issue. */
  | "lifetime_too_long"
  /** Signed with a key this build does not trust (or names no key). */
  | "untrusted_key"
  /** Issued to another machine id. */
  | "wrong_machine"
  /** Issued for another license key. */
  | "wrong_license"
  /** Not signed by the key it names, or altered after signing. */
  | "bad_signature"
  /** Wrong issuer or audience: not a Flotilla desktop license token. */
  | "wrong_issuer"
  /** Not a JWT, a disallowed algorithm, or claims missing. */
  | "malformed";

export type OfflineVerification =
  | { ok: true; claims: LicenseTokenClaims; issuedAt: Date; expiresAt: Date; kid: string | undefined }
  | { ok: false; reason: OfflineFailureReason; message: string };

export interface VerifyTokenOptions {
  machineId: string;
  licenseKey: string;
  /** The time to check against (default: now). */
  now?: Date;
  clockToleranceSeconds?: number;
  /** Longest accepted exp − iat (default and maximum: the offline grace period). */
  maxLifetimeSeconds?: number;
  /** License files (files.ts) may last up to SEAT_RULES.licenseFileMaxTtlSeconds; nothing else may. */
  allowLicenseFileLifetime?: boolean;
}

/**
 * Verifies that the token was signed by one of `trustedKeys` (chosen by the `kid` in its header), has the
 * issuer and audience of a license token, lasts no longer than the offline grace, was not issued in the future,
 * has not expired, and belongs to this license and this machine.
 */
export async function verifyLicenseToken(
  token: string,
  trustedKeys: readonly TrustedKey[],
  options: VerifyTokenOptions,
): Promise<OfflineVerification> {
  const now = options.now ?? new Date();
  const tolerance = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
  const ceiling = options.allowLicenseFileLifetime ? SEAT_RULES.licenseFileMaxTtlSeconds : MAX_TOKEN_LIFETIME_SECONDS;
  const maxLifetime = Math.min(options.maxLifetimeSeconds ?? ceiling, ceiling);

  let kid: string | undefined;
  let alg: string | undefined;
  try {
    ({ kid, alg } = decodeProtectedHeader(token));
  } catch {
    return fail("malformed", "The token is not a signed JWT.");
  }
  if (alg !== "EdDSA") return fail("malformed", `The token is signed with ${alg ?? "no algorithm"}, not EdDSA.`);
  // The id is recomputed from each pinned key, so a mislabelled pin cannot stand in for another key.
  const trusted = kid ? trustedKeys.find((candidate) => keyIdOf(candidate.x) === kid) : undefined;
  if (!trusted) {
    return fail(
      "untrusted_key",
      trustedKeys.length === 0
        ? NO_TRUSTED_KEYS
        : `The token was signed with key "${kid ?? "(none)"}", which this build of the app does not trust.`,
    );
  }
  let key: Awaited<ReturnType<typeof importJWK>>;
  try {
    key = await importJWK({ kty: "OKP", crv: "Ed25519", x: trusted.x }, "EdDSA");
  } catch (error) {
    return fail("untrusted_key", `A pinned key cannot be used: ${(error as Error).message}`);
  }

  let payload: Record<string, unknown>;
  try {
    const verified = await jwtVerify(token, key, {
      algorithms: ["EdDSA"],
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
      currentDate: now,
      clockTolerance: tolerance,
      requiredClaims: ["iat", "exp", "sub"],
    });
    payload = verified.payload;
  } catch (error) {
    return mapJoseError(error);
  }

  const claims = readClaims(payload);
  if (!claims) return fail("malformed", "The token lacks the license claims (lic, mid, tier, status, features).");
  if (claims.exp - claims.iat > maxLifetime) {
    return fail(
      "lifetime_too_long",
      `The token claims ${Math.round((claims.exp - claims.iat) / 86_400)} days offline; at most ${Math.round(maxLifetime / 86_400)} are allowed.`,
    );
  }
  if (claims.iat > now.getTime() / 1000 + tolerance) {
    return fail(
      "clock_rollback",
      "The token was issued in the future: this machine's clock is behind. Go online to check.",
    );
  }
  if (normaliseKey(claims.lic) !== normaliseKey(options.licenseKey)) {
    return fail("wrong_license", "The token was issued for another license key.");
  }
  if (claims.mid !== options.machineId.trim()) {
    return fail("wrong_machine", "The token was issued to another machine.");
  }
  return {
    ok: true,
    claims,
    issuedAt: new Date(claims.iat * 1000),
    expiresAt: new Date(claims.exp * 1000),
    kid,
  };
}

function mapJoseError(error: unknown): OfflineVerification {
  const code = (error as { code?: unknown }).code;
  const claim = (error as { claim?: unknown }).claim;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "ERR_JWT_EXPIRED":
      return fail("expired", "The offline token has expired: connect to the licensing server to renew it.");
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return fail("bad_signature", "The token's signature does not match the trusted key it names.");
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      if (claim === "iss" || claim === "aud") {
        return fail("wrong_issuer", `The token is not a Flotilla license token (${message}).`);
      }
      if (claim === "nbf" || claim === "iat") {
        return fail(
          "clock_rollback",
          "The token is not valid yet: this machine's clock is behind. Go online to check.",
        );
      }
      return fail("malformed", `The token's claims are invalid (${message}).`);
    default:
      return fail("malformed", `The token cannot be verified (${message}).`);
  }
}

function readClaims(payload: Record<string, unknown>): LicenseTokenClaims | undefined {
  const { iss, sub, aud, iat, exp, lic, mid, tier, status, features, max_machines, license_expires_at } = payload;
  if (
    typeof iss !== "string" ||
    typeof sub !== "string" ||
    (typeof aud !== "string" && !Array.isArray(aud)) ||
    typeof iat !== "number" ||
    typeof exp !== "number" ||
    typeof lic !== "string" ||
    typeof mid !== "string" ||
    typeof tier !== "string" ||
    typeof status !== "string" ||
    typeof max_machines !== "number" ||
    (license_expires_at !== undefined && license_expires_at !== null && typeof license_expires_at !== "string") ||
    !isFeatures(features)
  ) {
    return undefined;
  }
  return {
    iss,
    sub,
    aud: aud as string | string[],
    iat,
    exp,
    lic,
    mid,
    tier,
    status,
    features,
    max_machines,
    ...(license_expires_at === undefined ? {} : { license_expires_at: license_expires_at as string | null }),
  };
}

function isFeatures(value: unknown): value is LicenseTokenClaims["features"] {
  if (typeof value !== "object" || value === null) return false;
  const f = value as Record<string, unknown>;
  return (
    (f.maxConcurrentExecutions === null || typeof f.maxConcurrentExecutions === "number") &&
    typeof f.sharedMemory === "boolean" &&
    typeof f.backups === "boolean" &&
    typeof f.embeddingModels === "boolean"
  );
}

function normaliseKey(key: string): string {
  return key.trim().toUpperCase();
}

function fail(reason: OfflineFailureReason, message: string): OfflineVerification {
  return { ok: false, reason, message };
}
