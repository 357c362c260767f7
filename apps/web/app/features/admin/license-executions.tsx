/**
 * A license's executions in the customer detail (decisions 0048, 0052): how many run against the plan's limit, and a
 * table of the running ones, the stopping ones (stopped, waiting for their app to stop) and the most recent others,
 * newest first, with "End" on each running one.
 */
import { type ExecutionEndReason, runningText } from "@flotilla/contracts/executions";
import type { MouseEvent } from "react";
import { buttonClass } from "../../components/button";
import type { AdminExecution, AdminLicenseExecutions } from "./api";
import { formatDateTime, TableFrame, tableClass, tdClass, thClass } from "./ui";

/** The id of a license's "Executions" heading: focus goes there once an ended execution's row has lost its button. */
export const executionsHeadingId = (licenseId: string) => `executions-${licenseId}`;

const END_REASON_TEXT: Record<ExecutionEndReason, string> = {
  completed: "Completed",
  expired: "Expired (silent)",
  ended_by_owner: "Ended by the owner",
  ended_by_admin: "Ended by an admin",
  machine_released: "Device lost its slot",
  limit_lowered: "Plan's limit lowered",
};

const STATE_STYLE: Record<AdminExecution["status"], string> = {
  running: "bg-emerald-100 text-emerald-800 dark:bg-emerald-950/60 dark:text-emerald-300",
  stopping: "bg-sky-100 text-sky-900 dark:bg-sky-950/60 dark:text-sky-300",
  expired: "bg-amber-100 text-amber-900 dark:bg-amber-950/60 dark:text-amber-300",
  ended: "bg-bg-subtle text-fg-muted",
};

/** The device an execution ran on: its name, else its short id. */
export function executionDevice(execution: AdminExecution): string {
  return execution.machine_name ?? execution.display_id ?? "Removed device";
}

const at = (iso: string | null, fallback = "—") => formatDateTime(iso, fallback);

function State({ execution }: { execution: AdminExecution }) {
  const label = {
    running: "Running",
    stopping: "Stopping…",
    expired: "Silent",
    ended: END_REASON_TEXT[execution.end_reason ?? "completed"],
  }[execution.status];
  const detail = {
    running: `expires ${at(execution.expires_at)} without a heartbeat`,
    stopping: `${END_REASON_TEXT[execution.end_reason ?? "ended_by_admin"]}; holds its slot until its app stops, ${at(execution.expires_at)} at the latest`,
    expired: "not counted; may come back while a slot is free",
    ended: at(execution.ended_at),
  }[execution.status];
  return (
    <>
      <span
        className={`inline-flex whitespace-nowrap rounded-full px-2.5 py-0.5 text-xs font-semibold ${STATE_STYLE[execution.status]}`}
      >
        {label}
      </span>
      <span className="mt-1 block text-xs text-fg-muted">{detail}</span>
    </>
  );
}

export function LicenseExecutions({
  licenseId,
  licenseKey,
  executions,
  onEnd,
}: {
  licenseId: string;
  licenseKey: string;
  executions: AdminLicenseExecutions;
  /** "End" on a running execution; the event's button is the dialog's opener. */
  onEnd: (execution: AdminExecution, event: MouseEvent<HTMLButtonElement>) => void;
}) {
  const headingId = executionsHeadingId(licenseId);
  return (
    <div className="mt-6">
      <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h4 id={headingId} tabIndex={-1} className="text-sm font-semibold outline-none focus-visible:underline">
          Executions
        </h4>
        <p className="text-sm">
          <span className="text-fg-muted">Running now:</span>{" "}
          <span className="font-medium">{runningText(executions.running, executions.limit)}</span>
        </p>
      </div>
      {executions.list.length === 0 ? (
        <p className="mt-2 text-sm text-fg-muted">No executions yet.</p>
      ) : (
        <TableFrame label={`Executions of ${licenseKey}`}>
          <table className={tableClass} aria-labelledby={headingId}>
            <thead>
              <tr>
                <th className={thClass}>Device</th>
                <th className={thClass}>Feature</th>
                <th className={thClass}>Started</th>
                <th className={thClass}>Last heartbeat</th>
                <th className={thClass}>State</th>
                <th className={thClass}>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {executions.list.map((execution) => (
                <tr key={execution.id}>
                  <td className={tdClass}>
                    <span className="font-medium">{executionDevice(execution)}</span>
                    {execution.display_id && (
                      <span className="block font-mono text-xs text-fg-muted">{execution.display_id}</span>
                    )}
                  </td>
                  <td className={tdClass}>{execution.feature ? <code>{execution.feature}</code> : "—"}</td>
                  <td className={`${tdClass} whitespace-nowrap`}>{at(execution.started_at)}</td>
                  <td className={`${tdClass} whitespace-nowrap`}>{at(execution.last_heartbeat_at)}</td>
                  <td className={tdClass}>
                    <State execution={execution} />
                  </td>
                  <td className={tdClass}>
                    {execution.status === "running" && (
                      <button
                        type="button"
                        className={buttonClass("ghost", "sm", "text-red-700 dark:text-red-400")}
                        onClick={(event) => onEnd(execution, event)}
                        aria-label={`End execution on ${executionDevice(execution)}, started ${at(execution.started_at)}`}
                      >
                        End
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      )}
    </div>
  );
}
