import { formatCount } from "../../lib/portal-format";
import { activityChipClass } from "./device-helpers";

export interface DeviceUsageFigures {
  total: number;
  successful: number;
  failed: number;
  /** Executions the device started in the window; absent from an older server's answer. */
  executions?: number;
  /** Validations of the busiest device in the same window: the colour is relative to it. */
  busiest: number;
}

/**
 * One device's 30-day figures: '{n} uses' (validations: the app's checks of the license) coloured by activity, its
 * successful and failed counts, then the executions it started — a device that ran 12 agents on one check says so.
 */
export function DeviceUsage({ total, successful, failed, executions, busiest }: DeviceUsageFigures) {
  return (
    <p className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs">
      <span
        className={`rounded-full px-2 py-0.5 font-medium ${activityChipClass(total, busiest)}`}
        title="Validations: each time the app checked the license"
      >
        {total === 1 ? "1 use" : `${formatCount(total)} uses`}
      </span>
      <span className="text-emerald-700 dark:text-emerald-400">{formatCount(successful)} successful</span>
      <span className="text-red-700 dark:text-red-400">{formatCount(failed)} failed</span>
      {executions !== undefined && (
        <span className="text-fg-muted">
          {formatCount(executions)} {executions === 1 ? "execution" : "executions"}
        </span>
      )}
    </p>
  );
}
