import type { Machine } from "@flotilla/contracts/licensing";
import { CirclePause, FileKey, Loader2, ShieldOff, Star, Trash2 } from "lucide-react";
import { RelativeTime } from "../../components/relative-time";
import { formatDisplayDate, formatExactTime } from "../../lib/portal-format";
import { removeDeviceTitle } from "./device-helpers";
import { DeviceKindIcon } from "./device-kind-icon";
import { DeviceUsage, type DeviceUsageFigures } from "./device-usage";

interface DeviceRowProps {
  machine: Machine;
  /** Devices bound to the license, active or not: the last one cannot be removed. */
  boundCount: number;
  removing: boolean;
  onRemove: (machine: Machine) => void;
  /** Present while analytics are shown and loaded. */
  usage?: DeviceUsageFigures;
}

/**
 * One authorized device: kind, display id, Primary and Inactive badges, Added and Last seen dates, the last heartbeat
 * (relative, exact in the tooltip), remove button.
 */
export function DeviceRow({ machine, boundCount, removing, onRemove, usage }: DeviceRowProps) {
  const inactive = machine.status === "inactive";
  // A device holding a working license file is revoked, not removed (decision 0036): the button says which.
  const fileUntil = machine.license_file_until;
  const details = [machine.machine_name, machine.platform].filter(Boolean).join(" · ");
  return (
    <li
      className={`flex items-start gap-3 rounded-lg border border-border p-3 ${inactive ? "bg-bg-subtle" : "bg-bg-elevated"}`}
      data-status={machine.status}
    >
      <DeviceKindIcon machineId={machine.machine_id} />
      <div className="min-w-0 flex-1">
        <p className="flex flex-wrap items-center gap-2">
          <span className="min-w-0 wrap-anywhere font-mono text-sm font-medium">{machine.display_id}</span>
          {machine.is_primary && (
            <span className="inline-flex items-center gap-1 rounded-full bg-indigo-100 px-2 py-0.5 text-xs font-medium text-indigo-800 dark:bg-indigo-500/15 dark:text-indigo-300">
              <Star className="size-3" aria-hidden="true" />
              Primary
            </span>
          )}
          {fileUntil && (
            <span
              className="inline-flex items-center gap-1 rounded-full bg-amber-100 px-2 py-0.5 text-xs font-medium text-amber-900 dark:bg-amber-500/15 dark:text-amber-300"
              title={`Works offline until ${formatExactTime(fileUntil)}; its slot is held until then`}
            >
              <FileKey className="size-3" aria-hidden="true" />
              License file
            </span>
          )}
          {inactive && (
            <span className="inline-flex items-center gap-1 rounded-full bg-slate-200 px-2 py-0.5 text-xs font-medium text-slate-800 dark:bg-slate-500/20 dark:text-slate-200">
              <CirclePause className="size-3" aria-hidden="true" />
              Inactive
            </span>
          )}
        </p>
        {details && <p className="mt-0.5 truncate text-xs text-fg-muted">{details}</p>}
        <p className="mt-1 flex flex-wrap gap-x-4 gap-y-0.5 text-xs text-fg-muted">
          <span>Added {formatDisplayDate(machine.bound_at, "unknown")}</span>
          <span>Last seen {formatDisplayDate(machine.last_seen)}</span>
          <span>
            Last heartbeat <RelativeTime iso={machine.last_heartbeat_at} />
          </span>
          {fileUntil && <span>License file until {formatDisplayDate(fileUntil)}</span>}
          {inactive && machine.inactive_since && (
            <span>
              Inactive since <RelativeTime iso={machine.inactive_since} />, its slot is free
            </span>
          )}
        </p>
        {usage && <DeviceUsage {...usage} />}
      </div>
      <button
        type="button"
        onClick={() => onRemove(machine)}
        data-remove=""
        disabled={removing || boundCount <= 1}
        aria-busy={removing}
        aria-label={`${fileUntil ? "Revoke" : "Remove"} device ${machine.display_id}`}
        title={
          fileUntil && boundCount > 1 ? "Revoke this device (it holds a license file)" : removeDeviceTitle(boundCount)
        }
        className="inline-flex size-9 shrink-0 items-center justify-center rounded-lg text-fg-muted transition-colors hover:bg-red-50 hover:text-red-700 disabled:cursor-not-allowed disabled:opacity-40 disabled:hover:bg-transparent disabled:hover:text-fg-muted dark:hover:bg-red-950/50 dark:hover:text-red-300"
      >
        {removing ? (
          <Loader2 className="size-4 animate-spin" aria-hidden="true" />
        ) : fileUntil ? (
          <ShieldOff className="size-4" aria-hidden="true" />
        ) : (
          <Trash2 className="size-4" aria-hidden="true" />
        )}
      </button>
    </li>
  );
}
