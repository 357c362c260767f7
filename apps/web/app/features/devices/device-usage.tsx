import { formatCount } from "../../lib/portal-format";
import { activityChipClass } from "./device-helpers";

export interface DeviceUsageFigures {
  total: number;
  successful: number;
  failed: number;
  /** Validations of the busiest device in the same window: the colour is relative to it. */
  busiest: number;
}

/** One device's 30-day figures: '{n} uses' coloured by activity, then its successful and failed counts. */
export function DeviceUsage({ total, successful, failed, busiest }: DeviceUsageFigures) {
  return (
    <p className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
      <span className={`rounded-full px-2 py-0.5 font-medium ${activityChipClass(total, busiest)}`}>
        {total === 1 ? "1 use" : `${formatCount(total)} uses`}
      </span>
      <span className="text-emerald-700 dark:text-emerald-400">{formatCount(successful)} successful</span>
      <span className="text-red-700 dark:text-red-400">{formatCount(failed)} failed</span>
    </p>
  );
}
