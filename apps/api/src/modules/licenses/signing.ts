/**
 * The Ed25519 key that signs validation tokens. From LICENSE_SIGNING_KEY (PKCS#8 PEM) when set — every
 * instance must share it — otherwise generated once into the data folder (mode 0600), or kept in memory
 * for tests. The public half is published as a JWK for offline verification.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  sign as edSign,
  generateKeyPairSync,
  type KeyObject,
} from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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

const base64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");

/** Signatures kept for the current second at most (see `compactJwtSigner`). */
export const SIGNATURE_MEMO_MAX = 4_096;

/**
 * A compact EdDSA JWT (RFC 8037), signed with node:crypto and the KeyObject loaded once: the same token jose's
 * SignJWT made (header `{alg, kid, typ}`, the claims then iss, aud, sub, iat, exp), without WebCrypto's
 * per-call key import and promise hops. The protected header never changes: encoded once.
 *
 * Ed25519 signatures are deterministic: one signing input always gets the same signature. So the signatures of
 * the current second's inputs are kept, and a machine validating again within that second — same license state,
 * same claims, same iat and exp — gets the bytes signing would produce anyway. The decision (valid or not, and
 * every claim) is made fresh by the caller each time; only the arithmetic is reused, so nothing stale can be
 * served. The input carries iat, so nothing repeats across seconds: the memo is dropped when the second changes.
 */
export function compactJwtSigner(privateKey: KeyObject, kid: string) {
  const header = base64url(JSON.stringify({ alg: "EdDSA", kid, typ: "JWT" }));
  const memo = new Map<string, string>();
  let memoSecond = -1;
  return (claims: Record<string, unknown>, subject: string, ttlSeconds: number, now = Date.now()): string => {
    const iat = Math.floor(now / 1000);
    const payload = { ...claims, iss: TOKEN_ISSUER, aud: TOKEN_AUDIENCE, sub: subject, iat, exp: iat + ttlSeconds };
    const input = `${header}.${base64url(JSON.stringify(payload))}`;
    if (iat !== memoSecond) {
      memo.clear();
      memoSecond = iat;
    }
    let signature = memo.get(input);
    if (signature === undefined) {
      signature = edSign(null, Buffer.from(input, "ascii"), privateKey).toString("base64url");
      if (memo.size < SIGNATURE_MEMO_MAX) memo.set(input, signature);
    }
    return `${input}.${signature}`;
  };
}

export function createLicenseSigner(options: { pem: string | null; dataDir: string | null }): LicenseSigner {
  const privateKey = loadPrivateKey(options.pem, options.dataDir);
  if (privateKey.asymmetricKeyType !== "ed25519") throw new Error("LICENSE_SIGNING_KEY must be an Ed25519 private key");
  const jwk = createPublicKey(privateKey).export({ format: "jwk" }) as { kty: string; crv: string; x: string };
  const kid = createHash("sha256").update(jwk.x).digest("base64url").slice(0, 16);
  const signCompact = compactJwtSigner(privateKey, kid);
  return {
    kid,
    publicJwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid, alg: "EdDSA", use: "sig" },
    sign: async (claims, subject, ttlSeconds) => signCompact(claims, subject, ttlSeconds),
    signDetached: (data) =>
      edSign(null, typeof data === "string" ? Buffer.from(data, "utf8") : data, privateKey).toString("base64url"),
  };
}
