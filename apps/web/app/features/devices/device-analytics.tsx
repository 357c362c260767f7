import type { MachineAnalytics } from "@flotilla/contracts/licensing";
import { ANALYTICS_WINDOW_DAYS } from "@flotilla/contracts/timings";
import { Activity, Loader2, MonitorX } from "lucide-react";
import { useId } from "react";
import { formatCount } from "../../lib/portal-format";

export const ANALYTICS_TITLE = `Usage Analytics (Last ${ANALYTICS_WINDOW_DAYS} Days)`;

/**
 * The license's validation totals for the analytics window. A failed load shows nothing (spec: only
 * logged); the per-device figures appear in the device list. Devices that tried and hold no slot — refused because
 * the license was full, or removed — are listed here with their failed attempts, since the device list has no row
 * for them.
 */
export function DeviceAnalytics({ analytics, loading }: { analytics: MachineAnalytics | undefined; loading: boolean }) {
  const refusedId = useId();
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
  // `bound` is absent from an older server's answer: nothing is said about refused devices then.
  const refused = analytics.machine_stats.filter((stat) => stat.bound === false && stat.failed_attempts > 0);
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
      <p className="mt-2 text-xs text-fg-muted">
        A validation is one check of the license by the app (at start, then on each heartbeat). Active Devices hold a
        slot now and validated in these {ANALYTICS_WINDOW_DAYS} days; a device's uses are its validations, and its
        executions are the agent runs it started.
      </p>
      {refused.length > 0 && (
        <div className="mt-4">
          <h6 id={refusedId} className="flex items-center gap-2 text-sm font-semibold">
            <MonitorX className="size-4 text-amber-700 dark:text-amber-300" aria-hidden="true" />
            Refused devices
          </h6>
          <p className="mt-0.5 text-xs text-fg-muted">Tried to start without holding a slot of this license.</p>
          <ul aria-labelledby={refusedId} className="mt-2 space-y-1.5">
            {refused.map((stat) => (
              <li
                key={stat.machine_id}
                className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-0.5 rounded-md bg-bg-subtle px-3 py-2 text-sm"
              >
                <span className="min-w-0">
                  {stat.machine_name && <span className="font-medium break-words">{stat.machine_name} </span>}
                  <span className="font-mono text-xs text-fg-muted [overflow-wrap:anywhere]">{stat.machine_id}</span>
                </span>
                <span className="text-xs font-medium text-red-700 dark:text-red-400">
                  {formatCount(stat.failed_attempts)} failed
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
