/**
 * License files (node only: the service writes them, the SDK reads them): a signed license token (EdDSA JWS,
 * `typ` "license-file") encrypted with AES-256-GCM under a key derived from the license key and the machine id, so
 * the file opens only on its machine, for a holder of its key — and its signature, checked against the keys pinned
 * in the app, makes it impossible to forge or stretch.
 */
import { hkdfSync } from "node:crypto";
import { LICENSE_FILE_FORMAT } from "./seats";

export const LICENSE_FILE_TOKEN_TYPE = "license-file";

/** The AES-256-GCM key of a machine's license file (HKDF-SHA-256 over the canonical key and the machine id). */
export function licenseFileKey(licenseKey: string, machineId: string): Buffer {
  const material = `${licenseKey.trim().toUpperCase()}\u0000${machineId.trim()}`;
  return Buffer.from(hkdfSync("sha256", material, LICENSE_FILE_FORMAT, "aes-256-gcm", 32));
}

/** Additional authenticated data: the format, so a ciphertext cannot be moved into another kind of file. */
export const LICENSE_FILE_AAD = Buffer.from(LICENSE_FILE_FORMAT, "utf8");
