import type { MachineAnalytics } from "@flotilla/contracts/licensing";
import { ANALYTICS_WINDOW_DAYS } from "@flotilla/contracts/timings";
import { Activity, Loader2 } from "lucide-react";
import { formatCount } from "../../lib/portal-format";

export const ANALYTICS_TITLE = `Usage Analytics (Last ${ANALYTICS_WINDOW_DAYS} Days)`;

/**
 * The license's validation totals for the analytics window. A failed load shows nothing (spec: only
 * logged); the per-device figures appear in the device list.
 */
export function DeviceAnalytics({ analytics, loading }: { analytics: MachineAnalytics | undefined; loading: boolean }) {
  if (loading) {
    return (
      <p role="status" className="flex items-center gap-2 py-3 text-sm text-fg-muted">
        <Loader2 className="size-4 animate-spin" aria-hidden="true" />
        Loading analytics...
      </p>
    );
  }
  if (!analytics) return null;
  const { summary } = analytics;
  const figures = [
    { label: "Total Validations", value: summary.total_attempts },
    { label: "Successful", value: summary.successful_attempts },
    { label: "Active Devices", value: summary.unique_machines_active },
  ];
  return (
    <div className="rounded-lg border border-border bg-bg-elevated p-4">
      <h5 className="flex items-center gap-2 text-sm font-semibold">
        <Activity className="size-4 text-sky-600 dark:text-sky-400" aria-hidden="true" />
        {ANALYTICS_TITLE}
      </h5>
      <dl className="mt-3 grid grid-cols-3 gap-2 sm:gap-3">
        {figures.map(({ label, value }) => (
          <div
            key={label}
            className="flex min-w-0 flex-col-reverse rounded-md bg-bg-subtle px-2 py-2 text-center sm:px-3"
          >
            <dt className="text-xs text-fg-muted">{label}</dt>
            <dd className="text-lg font-semibold tabular-nums">{formatCount(value)}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}
