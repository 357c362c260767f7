/** Writing license files (contracts/license-file.ts says what they are). */
import { createCipheriv, randomBytes } from "node:crypto";
import { LICENSE_FILE_AAD, LICENSE_FILE_TOKEN_TYPE, licenseFileKey } from "@flotilla/contracts/license-file";
import type { LicenseFile } from "@flotilla/contracts/licensing";
import { LICENSE_FILE_FORMAT } from "@flotilla/contracts/seats";
import type { LicenseSigner } from "./signing";

export async function createLicenseFile(
  signer: LicenseSigner,
  input: {
    claims: Record<string, unknown>;
    subject: string;
    licenseKey: string;
    machineId: string;
    ttlSeconds: number;
    now: Date;
  },
): Promise<LicenseFile> {
  const token = await signer.sign({ ...input.claims, typ: LICENSE_FILE_TOKEN_TYPE }, input.subject, input.ttlSeconds);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", licenseFileKey(input.licenseKey, input.machineId), iv);
  cipher.setAAD(LICENSE_FILE_AAD);
  const ciphertext = Buffer.concat([cipher.update(token, "utf8"), cipher.final()]);
  return {
    format: LICENSE_FILE_FORMAT,
    kid: signer.kid,
    iv: iv.toString("base64url"),
    ciphertext: ciphertext.toString("base64url"),
    tag: cipher.getAuthTag().toString("base64url"),
    issued_at: input.now.toISOString(),
    expires_at: new Date(input.now.getTime() + input.ttlSeconds * 1000).toISOString(),
  };
}
