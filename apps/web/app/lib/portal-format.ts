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

const EXACT_OPTIONS: Intl.DateTimeFormatOptions = { ...DATE_OPTIONS, hour: "numeric", minute: "2-digit" };

/** "Jun 12, 2025, 2:05 PM": the exact moment, for a tooltip beside a relative time. */
export function formatExactTime(iso: string | null | undefined, fallback = "Never"): string {
  if (!iso) return fallback;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? fallback : date.toLocaleString("en-US", EXACT_OPTIONS);
}

const RELATIVE_STEPS: { unit: Intl.RelativeTimeFormatUnit; seconds: number }[] = [
  { unit: "year", seconds: 365 * 86_400 },
  { unit: "month", seconds: 30 * 86_400 },
  { unit: "day", seconds: 86_400 },
  { unit: "hour", seconds: 3_600 },
  { unit: "minute", seconds: 60 },
];

/** "just now", "4 minutes ago", "2 hours ago", "yesterday"; `fallback` when there is no date. */
export function formatRelativeTime(iso: string | null | undefined, now: Date = new Date(), fallback = "Never"): string {
  if (!iso) return fallback;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return fallback;
  const elapsed = (date.getTime() - now.getTime()) / 1000;
  if (Math.abs(elapsed) < 60) return "just now";
  const format = new Intl.RelativeTimeFormat("en-US", { numeric: "auto" });
  const step = RELATIVE_STEPS.find((s) => Math.abs(elapsed) >= s.seconds) ?? RELATIVE_STEPS[RELATIVE_STEPS.length - 1]!;
  return format.format(Math.trunc(elapsed / step.seconds), step.unit);
}

/** "2:05 PM" today, "Jun 13, 2:05 PM" on another day: when something ends soon. */
export function formatClockTime(iso: string | null | undefined, now: Date = new Date()): string {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const sameDay = date.toDateString() === now.toDateString();
  return date.toLocaleString(
    "en-US",
    sameDay
      ? { hour: "numeric", minute: "2-digit" }
      : { month: "short", day: "numeric", hour: "numeric", minute: "2-digit" },
  );
}
