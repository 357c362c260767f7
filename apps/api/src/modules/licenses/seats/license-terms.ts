/**
 * What a license may do comes from one place: its tier's row in the tier table (contracts/tiers.ts), with the
 * license's own device limit (an admin may change it). The signed token, the dashboard, the console and every decision
 * read it here (decision 0051). A tier the table does not know is refused, never treated as unlimited: the database
 * cannot hold one (licenses_tier_known), and should a deploy drop a tier its licenses still hold, they fail loudly.
 */
import { type TierFeatures, type TierLimits, tierById } from "@flotilla/contracts/tiers";

export class UnknownTierError extends Error {
  constructor(readonly tier: string) {
    super(`license tier "${tier}" is not in the tier table (contracts/tiers.ts)`);
    this.name = "UnknownTierError";
  }
}

export interface LicenseTerms {
  tier: TierLimits;
  features: TierFeatures;
  maxMachines: number;
  /** Executions that may run at once across the license's machines; null: unlimited. */
  executionLimit: number | null;
  heartbeatIntervalSeconds: number;
}

export function termsOf(license: { tier: string; maxMachines: number }): LicenseTerms {
  const tier = tierById(license.tier);
  if (!tier) throw new UnknownTierError(license.tier);
  return {
    tier,
    features: tier.features,
    maxMachines: license.maxMachines,
    executionLimit: tier.features.maxConcurrentExecutions,
    heartbeatIntervalSeconds: tier.heartbeatIntervalSeconds,
  };
}
