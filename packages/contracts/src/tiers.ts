/**
 * Licensing limits per tier: the server enforces them, the dashboard and docs show them. Prices and
 * marketing copy live in plans.ts; quotas come from the same plan rows. No zod here: public pages read it.
 */
import { planByTier, type TierId } from "./plans";

export interface TierFeatures {
  /** Executions that may run at once across all of the license's machines (execution leases, decision 0048); null means unlimited. */
  maxConcurrentExecutions: number | null;
  sharedMemory: boolean;
  backups: boolean;
  embeddingModels: boolean;
}

export interface TierLimits {
  tier: TierId;
  /** Machines one license may be bound to at the same time. */
  maxMachines: number;
  features: TierFeatures;
  /**
   * Executions per calendar month (UTC) that count as 100 % utilization. Self-hosted tiers run locally
   * without a hard cap; the figure is the capacity the dashboard's usage bar measures against.
   */
  monthlyQuota: number;
  /** Whether a customer can create this tier today (only free: the rest are Coming Soon). */
  available: boolean;
  /** How often a running app sends a heartbeat; silent longer (plus the drift allowance, seats.ts) frees its slot. */
  heartbeatIntervalSeconds: number;
}

const hostedQuota = (tier: TierId) => planByTier(tier)?.quota?.total ?? 0;

export const TIERS: Readonly<Record<TierId, TierLimits>> = {
  free: {
    tier: "free",
    maxMachines: 3,
    features: { maxConcurrentExecutions: 1, sharedMemory: false, backups: false, embeddingModels: false },
    monthlyQuota: 1_000,
    available: true,
    heartbeatIntervalSeconds: 15 * 60,
  },
  plus: {
    tier: "plus",
    maxMachines: 5,
    features: { maxConcurrentExecutions: null, sharedMemory: true, backups: true, embeddingModels: true },
    monthlyQuota: 10_000,
    available: false,
    heartbeatIntervalSeconds: 10 * 60,
  },
  pro: {
    tier: "pro",
    maxMachines: 5,
    features: { maxConcurrentExecutions: null, sharedMemory: true, backups: true, embeddingModels: true },
    monthlyQuota: hostedQuota("pro"),
    available: false,
    heartbeatIntervalSeconds: 10 * 60,
  },
  "pro+": {
    tier: "pro+",
    maxMachines: 10,
    features: { maxConcurrentExecutions: null, sharedMemory: true, backups: true, embeddingModels: true },
    monthlyQuota: hostedQuota("pro+"),
    available: false,
    heartbeatIntervalSeconds: 10 * 60,
  },
  ultra: {
    tier: "ultra",
    maxMachines: 20,
    features: { maxConcurrentExecutions: null, sharedMemory: true, backups: true, embeddingModels: true },
    monthlyQuota: hostedQuota("ultra"),
    available: false,
    heartbeatIntervalSeconds: 10 * 60,
  },
};

export const TIER_IDS = Object.keys(TIERS) as TierId[];

/** The tier with this id, looked up on the table's own keys only ("__proto__" and "constructor" are not tiers). */
export function tierById(id: string): TierLimits | undefined {
  return Object.hasOwn(TIERS, id) ? TIERS[id as TierId] : undefined;
}

/** Settings the desktop app reads (GET /api/license/configurations; heartbeat intervals are per tier). */
export const CLIENT_CONFIGURATION = {
  /** How long a signed validation token lets the app work offline. */
  offlineGraceSeconds: 7 * 24 * 60 * 60,
  /** How often the app reports its execution counts. */
  usageReportIntervalSeconds: 15 * 60,
} as const;

/** Validation codes, in the order the checks run. */
export const LICENSE_CODES = [
  "VALID",
  "NOT_FOUND",
  "SUSPENDED",
  "EXPIRED",
  "MACHINE_REMOVED",
  "TOO_MANY_MACHINES",
  "ACTIVATION_LIMIT",
  "NOT_ACTIVATED",
  "LICENSE_FILES_DISABLED",
] as const;
export type LicenseCode = (typeof LICENSE_CODES)[number];

export const LICENSE_STATUSES = ["active", "expired", "suspended"] as const;
export type LicenseStatus = (typeof LICENSE_STATUSES)[number];

/** Human messages for each validation code, shown by the CLI and usable by the desktop app. */
export const LICENSE_CODE_MESSAGES: Readonly<Record<LicenseCode, string>> = {
  VALID: "License is valid.",
  NOT_FOUND: "No license with this key exists.",
  SUSPENDED: "This license is suspended. Contact support.",
  EXPIRED: "This license has expired.",
  MACHINE_REMOVED:
    "This device was removed from the license in the dashboard. The license owner can allow it again there.",
  TOO_MANY_MACHINES: "This license is already active on the maximum number of machines. Remove one from the dashboard.",
  ACTIVATION_LIMIT:
    "Too many new machines were activated on this license in the last 24 hours. Try again later, or contact support.",
  NOT_ACTIVATED: "This machine is not activated for this license. Validate the license first.",
  LICENSE_FILES_DISABLED:
    "License files are turned off for this license. Its owner can turn them on in the dashboard, under the license.",
};
