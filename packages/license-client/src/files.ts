/**
 * License files, for machines that work offline for long or never reach the service (air-gapped): a token signed by
 * the licensing key (typ "license-file"), encrypted with AES-256-GCM under a key derived from the license key and
 * the machine id (contracts/license-file.ts). Opening one needs the license key and this machine; trusting it needs
 * its signature to verify with a key the publisher trusts, the file not to have expired, and the clock not to have
 * been set back past its issue time.
 *
 * A machine with no network is activated through another computer: `activationRequest()` writes what it asks for,
 * the other computer posts it (LicenseClient.exchangeActivationRequest) and carries the license file back.
 */
import { createDecipheriv } from "node:crypto";
import { LICENSE_FILE_AAD, LICENSE_FILE_TOKEN_TYPE, licenseFileKey } from "@flotilla/contracts/license-file";
import { type ActivationRequestFile, type LicenseFile, LicenseFileSchema } from "@flotilla/contracts/licensing";
import { ACTIVATION_REQUEST_FORMAT, SEAT_RULES } from "@flotilla/contracts/seats";
import { decodeJwt } from "jose";
import { DEFAULT_CLOCK_TOLERANCE_SECONDS, type OfflineVerification, verifyLicenseToken } from "./offline";
import type { TrustedKey } from "./trusted-keys";

export type { ActivationRequestFile, LicenseFile };

/** What this machine asks for, to be carried to a computer with a network. */
export function activationRequest(input: {
  licenseKey: string;
  machineId: string;
  machineName?: string;
  platform?: string;
  now?: Date;
}): ActivationRequestFile {
  return {
    format: ACTIVATION_REQUEST_FORMAT,
    license_key: input.licenseKey.trim().toUpperCase(),
    machine_id: input.machineId,
    ...(input.machineName ? { machine_name: input.machineName.slice(0, 128) } : {}),
    ...(input.platform ? { platform: input.platform } : {}),
    created_at: (input.now ?? new Date()).toISOString(),
  };
}

/** Reads a license file's JSON (shape only: nothing in it is trusted until `verifyLicenseFile`). */
export function parseLicenseFile(text: string): LicenseFile | null {
  try {
    const parsed = LicenseFileSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Opens and verifies a license file for this license key and machine. `lastCheckedAt` is the latest time any check
 * saw on this machine: a clock earlier than it (or than the file's issue time) was set back.
 */
export async function verifyLicenseFile(
  file: LicenseFile,
  trustedKeys: readonly TrustedKey[],
  options: {
    licenseKey: string;
    machineId: string;
    now?: Date;
    lastCheckedAt?: Date | null;
    clockToleranceSeconds?: number;
  },
): Promise<OfflineVerification> {
  const now = options.now ?? new Date();
  const tolerance = options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
  let token: string;
  try {
    const decipher = createDecipheriv(
      "aes-256-gcm",
      licenseFileKey(options.licenseKey, options.machineId),
      Buffer.from(file.iv, "base64url"),
    );
    decipher.setAAD(LICENSE_FILE_AAD);
    decipher.setAuthTag(Buffer.from(file.tag, "base64url"));
    token = Buffer.concat([decipher.update(Buffer.from(file.ciphertext, "base64url")), decipher.final()]).toString(
      "utf8",
    );
  } catch {
    return {
      ok: false,
      reason: "wrong_machine",
      message: "The license file does not open here: it was made for another machine or license key, or altered.",
    };
  }
  if (options.lastCheckedAt && options.lastCheckedAt.getTime() - now.getTime() > tolerance * 1000) {
    return {
      ok: false,
      reason: "clock_rollback",
      message: `This machine's clock (${now.toISOString()}) is earlier than the last check: it was set back.`,
    };
  }
  let typ: unknown;
  try {
    typ = decodeJwt(token).typ;
  } catch {
    typ = undefined;
  }
  if (typ !== LICENSE_FILE_TOKEN_TYPE) {
    return { ok: false, reason: "malformed", message: "The license file does not hold a license-file token." };
  }
  return verifyLicenseToken(token, trustedKeys, {
    machineId: options.machineId,
    licenseKey: options.licenseKey,
    now,
    clockToleranceSeconds: tolerance,
    maxLifetimeSeconds: SEAT_RULES.licenseFileMaxTtlSeconds,
    allowLicenseFileLifetime: true,
  });
}
