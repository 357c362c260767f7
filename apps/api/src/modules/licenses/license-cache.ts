/**
 * A read cache of license state (status, limits, bound and removed machines) for the validation hot path.
 *
 * Every change (status, removal, binding, rotation) invalidates it — on this instance at once, on the others
 * through Redis (license-invalidation.ts) within a second. How long an entry may live therefore depends on
 * whether invalidations can arrive:
 *   - Redis connected: LICENSE_CACHE_TTL_MS (a safety net; changes arrive as messages);
 *   - Redis configured but down: LICENSE_CACHE_FALLBACK_TTL_MS (a second: nothing else would tell us);
 *   - no Redis (one instance): LICENSE_CACHE_LOCAL_TTL_MS (this instance's changes invalidate at once; the
 *     admin CLI's are seen within it).
 * Binding a new machine never trusts the cache: it re-reads under a row lock.
 *
 * A read that started before an invalidation must not put its (older) answer back afterwards: each key has a
 * generation, bumped by every invalidation, and `set` drops a value read under an older one.
 */
import type { LicenseState } from "./queries";

export const LICENSE_CACHE_TTL_MS = 60_000;
export const LICENSE_CACHE_FALLBACK_TTL_MS = 1_000;
export const LICENSE_CACHE_LOCAL_TTL_MS = 5_000;
const MAX_ENTRIES = 50_000;

export interface CacheStats {
  hits: number;
  misses: number;
}

export class LicenseCache {
  private readonly entries = new Map<string, { state: LicenseState | null; expiresAt: number }>();
  /** Generations of recently invalidated keys; `epoch` moves for every key at once (clear). */
  private readonly generations = new Map<string, number>();
  private epoch = 0;
  readonly stats: CacheStats = { hits: 0, misses: 0 };

  constructor(private readonly ttlMs: () => number = () => LICENSE_CACHE_LOCAL_TTL_MS) {}

  get(licenseKey: string, now = Date.now()): LicenseState | null | undefined {
    const entry = this.entries.get(licenseKey);
    if (!entry || entry.expiresAt <= now) {
      if (entry) this.entries.delete(licenseKey);
      this.stats.misses += 1;
      return undefined;
    }
    this.stats.hits += 1;
    return entry.state;
  }

  /** Taken before reading the database; hand it to `set` with what was read. */
  generation(licenseKey: string): string {
    return `${this.epoch}:${this.generations.get(licenseKey) ?? 0}`;
  }

  set(licenseKey: string, state: LicenseState | null, generation: string, now = Date.now()): void {
    // Invalidated while the read was under way: what was read may predate the change.
    if (generation !== this.generation(licenseKey)) return;
    if (this.entries.size >= MAX_ENTRIES) {
      // Drop the oldest insertion: Map iterates in insertion order.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(licenseKey, { state, expiresAt: now + this.ttlMs() });
  }

  invalidate(licenseKey: string): void {
    this.entries.delete(licenseKey);
    this.generations.set(licenseKey, (this.generations.get(licenseKey) ?? 0) + 1);
    // Generations only matter while a read may be in flight; keep the map from growing without bound.
    if (this.generations.size > MAX_ENTRIES) this.clear();
  }

  /** Forgets everything (after missing invalidations, e.g. while Redis was unreachable). */
  clear(): void {
    this.entries.clear();
    this.generations.clear();
    this.epoch += 1;
  }
}
