/**
 * The rules of a license's executions (decision 0048): how many may run at once across all of its machines, how a
 * running one keeps its lease, and when a silent one frees it. Shared by the server, the SDK, the portal and the docs,
 * next to the seat rules (seats.ts). The limit per tier is `maxConcurrentExecutions` (tiers.ts). No zod here: public
 * pages read it.
 */
import { formatDuration } from "./seats";

export const EXECUTION_RULES = {
  /** How often a running execution sends a heartbeat. */
  heartbeatIntervalSeconds: 60,
  /**
   * A lease silent for its interval plus this allowance (a slow network, a laptop lid closed for a moment) has expired:
   * it no longer counts against the limit.
   */
  driftAllowanceSeconds: 30,
  /**
   * An expired lease whose app comes back within this (after expiring) is revived if a slot is free; after it the
   * lease has ended for good, and counts as one execution.
   */
  revivalWindowSeconds: 5 * 60,
  /** Leases one machine may hold at once on an unlimited tier (a bound on what a runaway app can record). */
  maxPerMachineUnlimited: 64,
  /** Running executions named in a refusal (the oldest first). */
  holdersNamed: 10,
  /**
   * How long a desktop's watch (POST /api/license/executions/watch) is held open when nothing changes; it answers at
   * once when one of its executions is stopped or ended, or its license is no longer in force (decision 0052). Under
   * nginx's read timeout for that location (deploy/nginx.conf.template).
   */
  watchHoldSeconds: 25,
  /** Executions one watch may name (one app's executions on one machine). */
  watchedPerRequest: 64,
} as const;

/** The seconds after its last heartbeat at which a lease expires (no longer counts against the limit). */
export function executionExpiresAfterSeconds(): number {
  return EXECUTION_RULES.heartbeatIntervalSeconds + EXECUTION_RULES.driftAllowanceSeconds;
}

/**
 * How a lease ended: its app ended it, it went silent, or it was stopped — by its owner or an admin, because its
 * machine lost its slot (deactivated, removed, revoked, culled), or because the license's limit was lowered below what
 * ran (the newest beyond the limit stop).
 */
export const EXECUTION_END_REASONS = [
  "completed",
  "expired",
  "ended_by_owner",
  "ended_by_admin",
  "machine_released",
  "limit_lowered",
] as const;
export type ExecutionEndReason = (typeof EXECUTION_END_REASONS)[number];
/** Why a running execution is stopped (the lease is `stopping` until its app has stopped, decision 0052). */
export type ExecutionStopReason = Exclude<ExecutionEndReason, "completed" | "expired">;

/**
 * A lease as a machine or a person sees it: `running`; `stopping` — stopped by someone else, it still holds its slot
 * until its app has stopped (it ends the lease) or its heartbeat window has passed; `ended`.
 */
export const EXECUTION_STATUSES = ["running", "stopping", "ended"] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/** What the app is told when its execution was stopped (410 EXECUTION_ENDED, and the watch). */
export const EXECUTION_STOP_MESSAGES: Readonly<Record<ExecutionStopReason, string>> = {
  ended_by_owner: "The license's owner ended this execution from the dashboard.",
  ended_by_admin: "An administrator ended this execution.",
  machine_released:
    "This device no longer holds a slot of the license (it was deactivated, removed, revoked or went silent).",
  limit_lowered: "The license's plan now allows fewer concurrent executions: the most recently started ones stop.",
};

/** Codes of the execution endpoints' refusals (HTTP 409 and 404 problems with these codes). */
export const EXECUTION_CODES = {
  /** The license's running executions are at its tier's limit. */
  limit: "EXECUTION_LIMIT",
  /** The lease has ended (completed, ended by the owner or an admin, or silent past its revival window). */
  ended: "EXECUTION_ENDED",
  /** No lease with this id for this license and machine. */
  notFound: "EXECUTION_NOT_FOUND",
} as const;

export const EXECUTION_MESSAGES = {
  limit: (limit: number) =>
    `This license already runs ${limitText(limit)} at once, its plan's limit. Wait for one to finish, or end it from the dashboard.`,
  ended: "This execution has ended. Start a new one.",
  notFound: "No running execution with this id on this machine.",
} as const;

/** "1 concurrent execution", "3 concurrent executions", "unlimited concurrent executions". */
export function limitText(limit: number | null): string {
  if (limit === null) return "unlimited concurrent executions";
  return `${limit} concurrent execution${limit === 1 ? "" : "s"}`;
}

/** What the portal shows beside a license: "1 of 1", or "2 running" when the tier has no limit. */
export function runningText(running: number, limit: number | null): string {
  return limit === null ? `${running} running` : `${running} of ${limit}`;
}

/** The rule in one sentence, for the docs and the publisher's guide. */
export function executionRuleText(): string {
  return (
    `A running execution sends a heartbeat every ${formatDuration(EXECUTION_RULES.heartbeatIntervalSeconds)}. ` +
    `One silent for ${formatDuration(executionExpiresAfterSeconds())} (its interval plus ` +
    `${formatDuration(EXECUTION_RULES.driftAllowanceSeconds)}) has expired and frees its slot; if its app comes back ` +
    `within ${formatDuration(EXECUTION_RULES.revivalWindowSeconds)} after that, the execution is revived while a slot is free.`
  );
}
