import { createHash, randomBytes } from "node:crypto";

/** An opaque bearer credential: 256 bits from the CSPRNG, base64url. */
export function newOpaqueToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}

/** What the database keeps instead of a token: its SHA-256, hex. */
export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}
