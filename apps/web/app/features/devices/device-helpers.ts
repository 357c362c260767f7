/** Pure rules of the Device Management panel (spec sections 2 and 9). */
import { DEVICE_ACTIVITY_THRESHOLDS } from "@flotilla/contracts/timings";

export type DeviceKind = "mobile" | "server" | "desktop";

const MOBILE = /mobile|android|ios/i;
const SERVER = /server|prod|deploy/i;

/** Guessed from the machine id text: mobile/android/ios → mobile; server/prod/deploy → server; else desktop. */
export function guessDeviceKind(machineId: string): DeviceKind {
  if (MOBILE.test(machineId)) return "mobile";
  if (SERVER.test(machineId)) return "server";
  return "desktop";
}

export type ActivityLevel = "high" | "medium" | "low";

/** A device's validations as a share of the busiest device's: above 0.7 high, above 0.3 medium, else low. */
export function activityLevel(attempts: number, busiestAttempts: number): ActivityLevel {
  if (busiestAttempts <= 0 || attempts <= 0) return "low";
  const ratio = attempts / busiestAttempts;
  if (ratio > DEVICE_ACTIVITY_THRESHOLDS.high) return "high";
  if (ratio > DEVICE_ACTIVITY_THRESHOLDS.medium) return "medium";
  return "low";
}

/** Chip colours per activity level: green, yellow, grey. */
export const ACTIVITY_CHIP_CLASSES: Readonly<Record<ActivityLevel, string>> = {
  high: "bg-emerald-100 text-emerald-800 dark:bg-emerald-500/15 dark:text-emerald-300",
  medium: "bg-amber-100 text-amber-800 dark:bg-amber-500/15 dark:text-amber-300",
  low: "bg-slate-100 text-slate-700 dark:bg-slate-500/15 dark:text-slate-300",
};

export function activityChipClass(attempts: number, busiestAttempts: number): string {
  return ACTIVITY_CHIP_CLASSES[activityLevel(attempts, busiestAttempts)];
}

/** "1 device", "2 devices". */
export function pluralize(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

/** 'You can add N more device(s)' while slots are free; null when the license is full. */
export function remainingDevicesHint(used: number, max: number): string | null {
  const free = max - used;
  if (free <= 0) return null;
  return `You can add ${pluralize(free, "more device", "more devices")}`;
}

/** The remove button's tooltip (spec section 5). */
export function removeDeviceTitle(currentCount: number): string {
  return currentCount <= 1 ? "Cannot remove the last device" : "Remove this device";
}
