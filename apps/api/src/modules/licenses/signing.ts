/**
 * The Ed25519 key that signs validation tokens. From LICENSE_SIGNING_KEY (PKCS#8 PEM) when set — every
 * instance must share it — otherwise generated once into the data folder (mode 0600), or kept in memory
 * for tests. The public half is published as a JWK for offline verification.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign as signBytes,
} from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SignJWT } from "jose";

export const TOKEN_ISSUER = "flotilla-licensing";
export const TOKEN_AUDIENCE = "flotilla-desktop";
const KEY_FILE = "license-signing-key.pem";

export interface LicenseSigner {
  kid: string;
  publicJwk: { kty: string; crv: string; x: string; kid: string; alg: "EdDSA"; use: "sig" };
  sign(claims: Record<string, unknown>, subject: string, ttlSeconds: number): Promise<string>;
  /** A detached Ed25519 signature (base64url) over raw bytes: signed answers (answer-signing.ts). */
  signDetached(data: string | Buffer): string;
}

function loadPrivateKey(pem: string | null, dataDir: string | null): KeyObject {
  if (pem) return createPrivateKey(pem.includes("BEGIN") ? pem : Buffer.from(pem, "base64").toString("utf8"));
  if (dataDir) {
    const path = join(dataDir, KEY_FILE);
    if (existsSync(path)) return createPrivateKey(readFileSync(path, "utf8"));
    const { privateKey } = generateKeyPairSync("ed25519");
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path, privateKey.export({ format: "pem", type: "pkcs8" }), { mode: 0o600 });
    return privateKey;
  }
  return generateKeyPairSync("ed25519").privateKey;
}

export function createLicenseSigner(options: { pem: string | null; dataDir: string | null }): LicenseSigner {
  const privateKey = loadPrivateKey(options.pem, options.dataDir);
  if (privateKey.asymmetricKeyType !== "ed25519") throw new Error("LICENSE_SIGNING_KEY must be an Ed25519 private key");
  const jwk = createPublicKey(privateKey).export({ format: "jwk" }) as { kty: string; crv: string; x: string };
  const kid = createHash("sha256").update(jwk.x).digest("base64url").slice(0, 16);
  return {
    kid,
    publicJwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid, alg: "EdDSA", use: "sig" },
    sign: (claims, subject, ttlSeconds) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "EdDSA", kid, typ: "JWT" })
        .setIssuer(TOKEN_ISSUER)
        .setAudience(TOKEN_AUDIENCE)
        .setSubject(subject)
        .setIssuedAt()
        .setExpirationTime(`${ttlSeconds}s`)
        .sign(privateKey),
    signDetached: (data) =>
      signBytes(null, typeof data === "string" ? Buffer.from(data, "utf8") : data, privateKey).toString("base64url"),
  };
}
