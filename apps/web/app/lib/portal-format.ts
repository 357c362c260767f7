/**
 * Display helpers shared by the customer portal (dashboard, licenses, devices). Pure and zod-free.
 * Dates are US English (spec section 2) in the viewer's own time zone: the portal is client-only.
 */
import { USAGE_BAR_MAX_PERCENT } from "@flotilla/contracts/timings";

const DATE_OPTIONS: Intl.DateTimeFormatOptions = { year: "numeric", month: "short", day: "numeric" };

/** "Jun 12, 2025"; `fallback` when there is no date or it cannot be read. */
export function formatDisplayDate(iso: string | null | undefined, fallback = "Never"): string {
  if (!iso) return fallback;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? fallback : date.toLocaleDateString("en-US", DATE_OPTIONS);
}

/** Whole numbers with US thousands separators: 12,345. */
export function formatCount(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "0";
}

/** A utilization figure (0–100, may exceed 100) as a rounded whole percent. */
export function roundPercent(value: number): number {
  return Number.isFinite(value) ? Math.max(0, Math.round(value)) : 0;
}

/** Width of the monthly usage bar in percent: never below 0, never above USAGE_BAR_MAX_PERCENT. */
export function usageBarWidth(utilization: number): number {
  if (!Number.isFinite(utilization)) return 0;
  return Math.min(Math.max(utilization, 0), USAGE_BAR_MAX_PERCENT);
}

/** Feature names arrive as "shared-memory": shown as "shared memory". */
export function featureLabel(name: string): string {
  return name.replace(/-+/g, " ").trim();
}
