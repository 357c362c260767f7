/**
 * What runs now on a license, across its devices (decisions 0048, 0052): "1 of 1", and per execution the device, what
 * it runs and since when. Live: the dashboard re-reads it whenever the event stream says the license changed. The owner
 * can end one, after saying so twice: it then reads "Stopping on <device>…" until its app has stopped (within about a
 * second when the app is online) — its slot is held until then, so the count stays true.
 */
import { limitText, runningText } from "@flotilla/contracts/executions";
import type { LicenseExecutions } from "@flotilla/contracts/licensing";
import { Loader2 } from "lucide-react";
import { useState } from "react";
import { buttonClass } from "../../components/button";
import { del, serverErrorMessage } from "../../lib/http";
import { featureLabel, formatClockTime, formatExactTime } from "../../lib/portal-format";

interface RunningExecutionsProps {
  licenseKey: string;
  executions: LicenseExecutions;
  onChanged?: () => void;
}

export function RunningExecutions({ licenseKey, executions, onChanged }: RunningExecutionsProps) {
  const { running, limit } = executions;
  const full = limit !== null && running.length >= limit;
  const stopping = running.some((execution) => execution.status === "stopping");
  return (
    <section aria-labelledby={`running-${licenseKey}`} className="mt-5 rounded-xl border border-border p-4">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h4 id={`running-${licenseKey}`} className="text-sm font-semibold">
          Running now
        </h4>
        <p className={`text-sm font-medium ${full ? "text-amber-700 dark:text-amber-400" : "text-fg-muted"}`}>
          <span data-testid="running-count">{runningText(running.length, limit)}</span>
          <span className="sr-only"> ({limitText(limit)} on this plan)</span>
        </p>
      </div>
      {running.length === 0 ? (
        <p className="mt-2 text-sm text-fg-muted">
          Nothing is running. This plan allows {limitText(limit)} across all of its devices.
        </p>
      ) : (
        <ul className="mt-3 space-y-2" aria-label="Running executions">
          {running.map((execution) => (
            <RunningRow key={execution.id} licenseKey={licenseKey} execution={execution} onEnded={onChanged} />
          ))}
        </ul>
      )}
      {full && running.length > 0 && (
        <p className="mt-3 text-xs text-fg-muted">
          {stopping
            ? "Another execution on any device is refused until the stopping one has stopped."
            : "Another execution on any device is refused until this one finishes, or you end it."}
        </p>
      )}
    </section>
  );
}

function RunningRow({
  licenseKey,
  execution,
  onEnded,
}: {
  licenseKey: string;
  execution: LicenseExecutions["running"][number];
  onEnded?: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [ending, setEnding] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const device = execution.machine_name ?? execution.display_id;
  if (execution.status === "stopping") return <StoppingRow execution={execution} device={device} />;

  async function end() {
    setEnding(true);
    setError(null);
    try {
      await del(`/api/customer/licenses/${encodeURIComponent(licenseKey)}/executions/${execution.id}`);
      onEnded?.();
    } catch (failure) {
      setError(serverErrorMessage(failure, "Could not end the execution. Try again."));
      setEnding(false);
    }
  }

  return (
    <li className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2 rounded-lg bg-bg-subtle px-3 py-2 text-sm">
      <div className="min-w-0">
        <p className="font-medium break-words">
          {device}
          {execution.feature && <span className="font-normal text-fg-muted"> · {featureLabel(execution.feature)}</span>}
        </p>
        <p className="text-xs text-fg-muted">
          Since{" "}
          <time dateTime={execution.started_at} title={formatExactTime(execution.started_at)}>
            {formatClockTime(execution.started_at)}
          </time>
          {" · last heartbeat "}
          <time dateTime={execution.last_heartbeat_at} title={formatExactTime(execution.last_heartbeat_at)}>
            {formatClockTime(execution.last_heartbeat_at)}
          </time>
        </p>
        {error && (
          <p role="alert" className="mt-1 text-xs text-red-700 dark:text-red-400">
            {error}
          </p>
        )}
      </div>
      {confirming ? (
        <span className="flex items-center gap-2">
          <span className="text-xs text-fg-muted">End it on {device}?</span>
          <button type="button" onClick={() => void end()} disabled={ending} className={buttonClass("danger", "sm")}>
            {ending ? "Ending…" : "End execution"}
          </button>
          <button type="button" onClick={() => setConfirming(false)} className={buttonClass("secondary", "sm")}>
            Keep running
          </button>
        </span>
      ) : (
        <button
          type="button"
          onClick={() => setConfirming(true)}
          aria-label={`End the execution on ${device}`}
          className={buttonClass("secondary", "sm")}
        >
          End
        </button>
      )}
    </li>
  );
}

/** Stopped from here or the console: its slot is held until its app has stopped, or its heartbeat window passes. */
function StoppingRow({ execution, device }: { execution: LicenseExecutions["running"][number]; device: string }) {
  return (
    <li className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2 rounded-lg bg-bg-subtle px-3 py-2 text-sm">
      <div className="min-w-0" role="status">
        <p className="font-medium break-words">
          <Loader2 aria-hidden className="mr-1.5 inline size-3.5 animate-spin align-[-2px] text-fg-muted" />
          Stopping on {device}…
          {execution.feature && <span className="font-normal text-fg-muted"> · {featureLabel(execution.feature)}</span>}
        </p>
        <p className="text-xs text-fg-muted">
          Its app has been told to stop; the slot frees once it has, by{" "}
          <time dateTime={execution.expires_at} title={formatExactTime(execution.expires_at)}>
            {formatClockTime(execution.expires_at)}
          </time>{" "}
          at the latest.
        </p>
      </div>
    </li>
  );
}
