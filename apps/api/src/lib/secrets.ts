/**
 * The service's HMAC secret (newsletter unsubscribe links). From APP_SECRET when set — required in
 * production so that every instance shares it — otherwise generated once into the data folder (mode 0600).
 */
import { randomBytes } from "node:crypto";
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
