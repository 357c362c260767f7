/**
 * A short-lived read cache of license state (status, limits, bound machines) for the validation hot
 * path. Changes made by this instance invalidate it at once; changes made elsewhere (another instance,
 * the admin CLI) are seen within LICENSE_CACHE_TTL_MS. Binding a new machine never trusts the cache: it
 * re-reads under a row lock.
 */
import type { LicenseState } from "./queries";

export const LICENSE_CACHE_TTL_MS = 5_000;
const MAX_ENTRIES = 50_000;

export class LicenseCache {
  private readonly entries = new Map<string, { state: LicenseState | null; expiresAt: number }>();
  constructor(private readonly ttlMs = LICENSE_CACHE_TTL_MS) {}

  get(licenseKey: string, now = Date.now()): LicenseState | null | undefined {
    const entry = this.entries.get(licenseKey);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(licenseKey);
      return undefined;
    }
    return entry.state;
  }

  set(licenseKey: string, state: LicenseState | null, now = Date.now()): void {
    if (this.entries.size >= MAX_ENTRIES) {
      // Drop the oldest insertion: Map iterates in insertion order.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(licenseKey, { state, expiresAt: now + this.ttlMs });
  }

  invalidate(licenseKey: string): void {
    this.entries.delete(licenseKey);
  }
}
