import type { DashboardData } from "@flotilla/contracts/licensing";
import { Activity, CalendarDays, Gauge, KeyRound } from "lucide-react";
import { formatCount, roundPercent } from "../../lib/portal-format";

/** What 100 % is: the executions a month the active licenses include together (absent from an older server). */
export function capacityHint(capacity: number | undefined): string | undefined {
  if (!capacity) return undefined;
  return `of ${formatCount(capacity)} executions a month`;
}

/** The four figures above the licenses: Active Licenses, Total Executions, This Month, Utilization. */
export function StatCards({ data }: { data: DashboardData }) {
  const { licenses, usage_analytics: usage } = data;
  const stats = [
    {
      label: "Active Licenses",
      value: formatCount(licenses.filter((license) => license.status === "active").length),
      Icon: KeyRound,
      tint: "bg-emerald-500/10 text-emerald-700 dark:text-emerald-300",
    },
    {
      label: "Total Executions",
      value: formatCount(usage.total_executions),
      Icon: Activity,
      tint: "bg-sky-500/10 text-sky-700 dark:text-sky-300",
    },
    {
      label: "This Month",
      value: formatCount(usage.current_month_executions),
      Icon: CalendarDays,
      tint: "bg-indigo-500/10 text-indigo-700 dark:text-indigo-300",
    },
    {
      label: "Utilization",
      value: `${roundPercent(usage.license_utilization)}%`,
      Icon: Gauge,
      tint: "bg-amber-500/10 text-amber-700 dark:text-amber-300",
      hint: capacityHint(usage.monthly_capacity),
    },
  ];
  return (
    <dl className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-4">
      {/* A <dl> may only group its <dt>/<dd> pairs in plain <div>s: the icon lives in the <dd>, placed on the left. */}
      {stats.map(({ label, value, Icon, tint, hint }) => (
        <div
          key={label}
          className="relative flex min-h-18 min-w-0 flex-col-reverse justify-center rounded-xl border border-border bg-bg-elevated p-4 sm:pl-17"
        >
          <dt className="truncate text-xs text-fg-muted sm:text-sm">
            {label}
            {hint && (
              <>
                {" "}
                <span className="block truncate text-[0.6875rem] sm:text-xs">{hint}</span>
              </>
            )}
          </dt>
          <dd className="text-xl font-semibold tabular-nums sm:text-2xl">
            <span
              className={`absolute top-1/2 left-4 hidden size-10 -translate-y-1/2 place-items-center rounded-lg sm:grid ${tint}`}
              aria-hidden="true"
            >
              <Icon className="size-5" />
            </span>
            {value}
          </dd>
        </div>
      ))}
    </dl>
  );
}
