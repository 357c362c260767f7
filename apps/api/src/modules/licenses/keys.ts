/** License keys and machine display ids. */
import { randomBytes } from "node:crypto";
import { BRAND } from "@flotilla/contracts/brand";

/** Crockford's base32: no I, L, O or U, so a key read aloud or retyped is unambiguous. */
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const GROUPS = 5;
const GROUP_LENGTH = 5;
/** 25 symbols × 5 bits = 125 bits from the CSPRNG. */
export const LICENSE_KEY_BITS = GROUPS * GROUP_LENGTH * 5;
const PREFIX = BRAND.name.slice(0, 4).toUpperCase();

export function generateLicenseKey(): string {
  const bytes = randomBytes(GROUPS * GROUP_LENGTH);
  // 256 is a multiple of 32, so byte % 32 is uniform.
  const symbols = Array.from(bytes, (byte) => ALPHABET[byte % 32]).join("");
  const groups = Array.from({ length: GROUPS }, (_, i) => symbols.slice(i * GROUP_LENGTH, (i + 1) * GROUP_LENGTH));
  return [PREFIX, ...groups].join("-");
}

/** Keys are compared upper-case, without surrounding spaces. */
export function normalizeLicenseKey(key: string): string {
  return key.trim().toUpperCase();
}

/** What the dashboard shows for a machine: short ids as they are, long ones shortened (the kind hint stays). */
export function displayIdFor(machineId: string): string {
  return machineId.length <= 24 ? machineId : `${machineId.slice(0, 14)}…${machineId.slice(-6)}`;
}
