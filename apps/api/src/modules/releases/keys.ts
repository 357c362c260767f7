/**
 * The release public keys the server verifies artifacts with (decision 0060): RELEASE_PUBLIC_KEYS when set.
 * Otherwise, where development conveniences are allowed (loopback, not production), a development key pair is
 * generated once into DATA_DIR (`release-signing-key.pem`, mode 0600, beside its public key in
 * `release-public-key.txt`) so `npm start` can publish out of the box — or kept in memory for tests. Exposed
 * without RELEASE_PUBLIC_KEYS, no key is trusted and no upload completes (the error says why).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  generateReleaseSigningKey,
  loadReleaseSigningKey,
  minisignPublicKeyFile,
  parseReleasePublicKeys,
  type ReleasePublicKey,
  type ReleaseSigningKey,
} from "@flotilla/contracts/release-signing";
import type { Config } from "../../config";
import { allows } from "../../exposure";

export interface ReleaseKeys {
  trusted: ReleasePublicKey[];
  /** The development key pair (never in production); null when RELEASE_PUBLIC_KEYS is set. */
  development: ReleaseSigningKey | null;
}

export const DEV_KEY_FILE = "release-signing-key.pem";
export const DEV_PUBLIC_KEY_FILE = "release-public-key.txt";

export function loadReleaseKeys(config: Config): ReleaseKeys {
  if (config.releases.publicKeys) {
    return { trusted: parseReleasePublicKeys(config.releases.publicKeys), development: null };
  }
  if (!allows(config, "generatedSecrets")) return { trusted: [], development: null };
  let development: ReleaseSigningKey;
  if (config.dataDir) {
    const path = join(config.dataDir, DEV_KEY_FILE);
    if (existsSync(path)) development = loadReleaseSigningKey(readFileSync(path, "utf8"));
    else {
      const generated = generateReleaseSigningKey();
      mkdirSync(config.dataDir, { recursive: true });
      writeFileSync(path, generated.pem, { mode: 0o600 });
      development = generated;
    }
    const publicFile = minisignPublicKeyFile(development.publicKey);
    writeFileSync(
      join(config.dataDir, DEV_PUBLIC_KEY_FILE),
      [
        "# The development release key (decision 0060): never use it for a build you ship.",
        `# Sparkle SUPublicEDKey: ${development.publicKey.sparkle}`,
        `# Tauri pubkey: ${publicFile.tauri}`,
        publicFile.text,
      ].join("\n"),
    );
  } else development = generateReleaseSigningKey();
  return { trusted: [development.publicKey], development };
}
