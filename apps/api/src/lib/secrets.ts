/**
 * The service's HMAC secret (newsletter unsubscribe links). From APP_SECRET when set — required in
 * production so that every instance shares it — otherwise generated once into the data folder (mode 0600).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function loadOrCreateSecret(dataDir: string | null, fileName = "app-secret"): string {
  if (!dataDir) return randomBytes(32).toString("base64url");
  const path = join(dataDir, fileName);
  if (existsSync(path)) return readFileSync(path, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(path, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/**
 * Secrets the service must use again later (webhook signing secrets: HMAC needs the secret itself, a hash would
 * not do) are stored encrypted: AES-256-GCM under a key derived from the app secret with HKDF, one key per
 * purpose. Format: "v1.<iv>.<ciphertext>.<tag>" (base64url). A database dump alone reveals nothing.
 */
function purposeKey(appSecret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", appSecret, "flotilla-secrets", `flotilla:${purpose}`, 32));
}

export function encryptSecret(appSecret: string, purpose: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", purposeKey(appSecret, purpose), iv);
  cipher.setAAD(Buffer.from(purpose));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv, body, cipher.getAuthTag()]
    .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
    .join(".");
}

export function decryptSecret(appSecret: string, purpose: string, stored: string): string {
  const [version, iv, body, tag] = stored.split(".");
  if (version !== "v1" || !iv || !body || !tag) throw new Error("not an encrypted secret");
  const decipher = createDecipheriv("aes-256-gcm", purposeKey(appSecret, purpose), Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(purpose));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}
