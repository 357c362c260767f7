/**
 * Offline verification of the token a successful validation returns: an EdDSA (Ed25519) JWT the app
 * checks against the server's published public key, so it keeps working without a network until the
 * token expires (the offline grace period, 7 days by default).
 */
import type { FeaturesSchema } from "@flotilla/contracts/licensing";
import { decodeProtectedHeader, importJWK, type JWK, jwtVerify } from "jose";

export const TOKEN_ISSUER = "flotilla-licensing";
export const TOKEN_AUDIENCE = "flotilla-desktop";
/** Allowed clock difference between this machine and the server, in seconds. */
export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 60;

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
}

export type OfflineFailureReason =
  /** The token's exp has passed: the offline grace period is over. */
  | "expired"
  /** The token was issued in the future: this machine's clock is behind (or was set back). */
  | "not_yet_valid"
  /** Issued to another machine id. */
  | "wrong_machine"
  /** Issued for another license key. */
  | "wrong_license"
  /** Not signed by the given key, or altered after signing. */
  | "bad_signature"
  /** Wrong issuer or audience: not a Flotilla desktop license token. */
  | "wrong_issuer"
  /** Not a JWT, a disallowed algorithm, or claims missing. */
  | "malformed"
  /** The public key is not an Ed25519 JWK. */
  | "invalid_key";

export type OfflineVerification =
  | { ok: true; claims: LicenseTokenClaims; issuedAt: Date; expiresAt: Date; kid: string | undefined }
  | { ok: false; reason: OfflineFailureReason; message: string };

export interface VerifyTokenOptions {
  machineId: string;
  licenseKey: string;
  /** The time to check against (default: now). */
  now?: Date;
  clockToleranceSeconds?: number;
}

/** Verifies signature, issuer, audience, lifetime and that the token belongs to this license and machine. */
export async function verifyLicenseToken(
  token: string,
  publicJwk: JWK,
  options: VerifyTokenOptions,
): Promise<OfflineVerification> {
  const now = options.now ?? new Date();
  const tolerance = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;

  if (publicJwk.kty !== "OKP" || publicJwk.crv !== "Ed25519" || typeof publicJwk.x !== "string") {
    return fail("invalid_key", "The public key is not an Ed25519 key (kty OKP, crv Ed25519).");
  }
  let key: Awaited<ReturnType<typeof importJWK>>;
  try {
    key = await importJWK({ kty: "OKP", crv: "Ed25519", x: publicJwk.x }, "EdDSA");
  } catch (error) {
    return fail("invalid_key", `The public key cannot be imported: ${(error as Error).message}`);
  }

  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    return fail("malformed", "The token is not a signed JWT.");
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
    return mapJoseError(error, kid, publicJwk.kid);
  }

  const claims = readClaims(payload);
  if (!claims) return fail("malformed", "The token lacks the license claims (lic, mid, tier, status, features).");
  if (claims.iat > now.getTime() / 1000 + tolerance) {
    return fail("not_yet_valid", "The token was issued in the future: check this machine's clock.");
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

function mapJoseError(error: unknown, tokenKid: string | undefined, keyKid: unknown): OfflineVerification {
  const code = (error as { code?: unknown }).code;
  const claim = (error as { claim?: unknown }).claim;
  const message = error instanceof Error ? error.message : String(error);
  switch (code) {
    case "ERR_JWT_EXPIRED":
      return fail("expired", "The offline token has expired: connect to the licensing server to renew it.");
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return fail(
        "bad_signature",
        tokenKid && typeof keyKid === "string" && tokenKid !== keyKid
          ? `The token was signed with key "${tokenKid}", not the stored key "${keyKid}".`
          : "The token's signature does not match the licensing server's public key.",
      );
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      if (claim === "iss" || claim === "aud") {
        return fail("wrong_issuer", `The token is not a Flotilla license token (${message}).`);
      }
      if (claim === "nbf" || claim === "iat") {
        return fail("not_yet_valid", "The token is not valid yet: check this machine's clock.");
      }
      return fail("malformed", `The token's claims are invalid (${message}).`);
    default:
      return fail("malformed", `The token cannot be verified (${message}).`);
  }
}

function readClaims(payload: Record<string, unknown>): LicenseTokenClaims | undefined {
  const { iss, sub, aud, iat, exp, lic, mid, tier, status, features, max_machines } = payload;
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
    !isFeatures(features)
  ) {
    return undefined;
  }
  return { iss, sub, aud: aud as string | string[], iat, exp, lic, mid, tier, status, features, max_machines };
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
