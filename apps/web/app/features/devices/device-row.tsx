import type { Machine } from "@flotilla/contracts/licensing";
import { Loader2, Star, Trash2 } from "lucide-react";
import { formatDisplayDate } from "../../lib/portal-format";
import { removeDeviceTitle } from "./device-helpers";
import { DeviceKindIcon } from "./device-kind-icon";
import { DeviceUsage, type DeviceUsageFigures } from "./device-usage";

interface DeviceRowProps {
  machine: Machine;
  /** The license's current device count: the last device cannot be removed. */
  currentCount: number;
  removing: boolean;
  onRemove: (machine: Machine) => void;
  /** Present while analytics are shown and loaded. */
  usage?: DeviceUsageFigures;
}

/** One authorized device: kind, display id, Primary badge, Added and Last seen dates, remove button. */
export function DeviceRow({ machine, currentCount, removing, onRemove, usage }: DeviceRowProps) {
  const details = [machine.machine_name, machine.platform].filter(Boolean).join(" · ");
  return (
    <li className="flex items-start gap-3 rounded-lg border border-border bg-bg-elevated p-3">
      <DeviceKindIcon machineId={machine.machine_id} />
      <div className="min-w-0 flex-1">
        <p className="flex flex-wrap items-center gap-2">
          <span className="min-w-0 break-all font-mono text-sm font-medium">{machine.display_id}</span>
          {machine.is_primary && (
            <span className="inline-flex items-center gap-1 rounded-full bg-indigo-100 px-2 py-0.5 text-xs font-medium text-indigo-800 dark:bg-indigo-500/15 dark:text-indigo-300">
              <Star className="size-3" aria-hidden="true" />
              Primary
            </span>
          )}
        </p>
        {details && <p className="mt-0.5 truncate text-xs text-fg-muted">{details}</p>}
        <p className="mt-1 flex flex-wrap gap-x-4 gap-y-0.5 text-xs text-fg-muted">
          <span>Added {formatDisplayDate(machine.bound_at, "unknown")}</span>
          <span>Last seen {formatDisplayDate(machine.last_seen)}</span>
        </p>
        {usage && <DeviceUsage {...usage} />}
      </div>
      <button
        type="button"
        onClick={() => onRemove(machine)}
        disabled={removing || currentCount <= 1}
        aria-busy={removing}
        aria-label={`Remove device ${machine.display_id}`}
        title={removeDeviceTitle(currentCount)}
        className="inline-flex size-9 shrink-0 items-center justify-center rounded-lg text-fg-muted transition-colors hover:bg-red-50 hover:text-red-700 disabled:cursor-not-allowed disabled:opacity-40 disabled:hover:bg-transparent disabled:hover:text-fg-muted dark:hover:bg-red-950/50 dark:hover:text-red-300"
      >
        {removing ? (
          <Loader2 className="size-4 animate-spin" aria-hidden="true" />
        ) : (
          <Trash2 className="size-4" aria-hidden="true" />
        )}
      </button>
    </li>
  );
}
