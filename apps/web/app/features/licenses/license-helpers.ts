/** Pure display rules of a license card (spec sections 2 and 4). */
import type { TierFeatures } from "@flotilla/contracts/tiers";

const TIER_BADGES: Readonly<Record<string, string>> = {
  free: "bg-sky-100 text-sky-800 ring-sky-600/20 dark:bg-sky-500/15 dark:text-sky-300 dark:ring-sky-400/30",
  plus: "bg-indigo-100 text-indigo-800 ring-indigo-600/20 dark:bg-indigo-500/15 dark:text-indigo-300 dark:ring-indigo-400/30",
  pro: "bg-violet-100 text-violet-800 ring-violet-600/20 dark:bg-violet-500/15 dark:text-violet-300 dark:ring-violet-400/30",
  "pro+":
    "bg-fuchsia-100 text-fuchsia-800 ring-fuchsia-600/20 dark:bg-fuchsia-500/15 dark:text-fuchsia-300 dark:ring-fuchsia-400/30",
  ultra:
    "bg-amber-100 text-amber-900 ring-amber-600/20 dark:bg-amber-500/15 dark:text-amber-300 dark:ring-amber-400/30",
};
const NEUTRAL_BADGE =
  "bg-slate-100 text-slate-700 ring-slate-500/20 dark:bg-slate-500/15 dark:text-slate-300 dark:ring-slate-400/30";

/** Colours of the tier badge: one per known tier (free, plus, pro, pro+, ultra), neutral for any other. */
export function tierBadgeClass(tier: string): string {
  return TIER_BADGES[tier.toLowerCase()] ?? NEUTRAL_BADGE;
}

export type StatusTone = "active" | "expired" | "suspended" | "other";

/** active (green check), expired (red), suspended (yellow), anything else neutral. */
export function statusTone(status: string): StatusTone {
  const value = status.toLowerCase();
  return value === "active" || value === "expired" || value === "suspended" ? value : "other";
}

/** "active" → "Active"; an empty status reads "Unknown". */
export function statusLabel(status: string): string {
  const value = status.trim();
  return value ? value.charAt(0).toUpperCase() + value.slice(1).toLowerCase() : "Unknown";
}

/** The executions chip: 'Unlimited executions' when there is no limit. */
export function executionsLabel(maxConcurrentExecutions: number | null): string {
  // A limit, not a count: "1 execution" next to "Total Executions 0" read as usage (issue 25).
  if (maxConcurrentExecutions === null) return "Unlimited concurrent executions";
  return `${maxConcurrentExecutions} concurrent ${maxConcurrentExecutions === 1 ? "execution" : "executions"}`;
}

/** The feature chips of a license, in order; a flag's chip appears only when the flag is on. */
export function featureChips(features: TierFeatures): string[] {
  const chips = [executionsLabel(features.maxConcurrentExecutions)];
  if (features.sharedMemory) chips.push("Shared Memory");
  if (features.backups) chips.push("Backups");
  if (features.embeddingModels) chips.push("AI Models");
  return chips;
}

/** What a plan-only chip means (decision 0022: every plan shares memory and embeds locally on one machine). */
export const CHIP_DETAILS: Readonly<Record<string, string>> = {
  "Shared Memory": "Memories shared across your machines",
  Backups: "Backup options for memory and projects",
  "AI Models": "A choice of embedding models",
};
