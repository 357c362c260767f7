import { USAGE_BAR_MAX_PERCENT } from "@flotilla/contracts/timings";
import { formatCount, roundPercent, usageBarWidth } from "../../lib/portal-format";

/** The month's share of license capacity; the bar never grows past 100 %, the figure may. */
export function MonthlyUsage({
  utilization,
  monthExecutions,
  monthlyCapacity,
}: {
  utilization: number;
  monthExecutions: number;
  /** What 100 % is; absent from an older server's answer. */
  monthlyCapacity?: number;
}) {
  const percent = roundPercent(utilization);
  const width = usageBarWidth(utilization);
  const over = percent > USAGE_BAR_MAX_PERCENT;
  const text = `${percent}% of license capacity used`;
  return (
    <section aria-labelledby="monthly-usage-title" className="rounded-2xl border border-border bg-bg-elevated p-5">
      <h2 id="monthly-usage-title" className="font-semibold">
        Monthly Usage
      </h2>
      <div
        role="progressbar"
        aria-labelledby="monthly-usage-title"
        aria-valuemin={0}
        aria-valuemax={USAGE_BAR_MAX_PERCENT}
        aria-valuenow={Math.round(width)}
        aria-valuetext={text}
        className="mt-4 h-2.5 overflow-hidden rounded-full bg-bg-subtle"
      >
        <div
          data-testid="usage-bar"
          className={`h-full rounded-full transition-[width] duration-500 ${over ? "bg-amber-500" : "bg-brand"}`}
          style={{ width: `${width}%` }}
        />
      </div>
      <p className="mt-3 text-sm text-fg-muted">{text}</p>
      <p className="mt-1 text-xs text-fg-muted">
        {monthlyCapacity
          ? `${formatCount(monthExecutions)} of the ${formatCount(monthlyCapacity)} executions your plan includes this month`
          : `${formatCount(monthExecutions)} ${monthExecutions === 1 ? "execution" : "executions"} this month`}
      </p>
    </section>
  );
}
