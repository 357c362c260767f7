import type { RemovedMachine } from "@flotilla/contracts/licensing";
import { Loader2, RotateCcw } from "lucide-react";
import { useId } from "react";
import { buttonClass } from "../../components/button";
import { formatDisplayDate } from "../../lib/portal-format";

interface RemovedDevicesProps {
  removed: RemovedMachine[];
  restoringIds: ReadonlySet<string>;
  onRestore: (machine: RemovedMachine) => void;
}

/**
 * Devices the owner removed (decision 0013): they cannot validate, even from the app, until allowed again here;
 * then the next time the app runs it is re-activated, while a slot is free.
 */
export function RemovedDevices({ removed, restoringIds, onRestore }: RemovedDevicesProps) {
  const headingId = useId();
  if (removed.length === 0) return null;
  return (
    <section aria-labelledby={headingId} className="rounded-lg border border-dashed border-border p-3">
      <h5 id={headingId} className="text-sm font-medium">
        Removed devices
      </h5>
      <p className="mt-0.5 text-xs text-fg-muted">
        A removed device cannot validate, even from the app, until you allow it again. It is re-activated the next time
        it runs, while a slot is free.
      </p>
      <ul className="mt-2 space-y-2">
        {removed.map((machine) => {
          const restoring = restoringIds.has(machine.machine_id);
          return (
            <li key={machine.machine_id} className="flex flex-wrap items-center justify-between gap-2 text-sm">
              <span className="min-w-0">
                <span className="wrap-anywhere font-mono">{machine.display_id}</span>
                {machine.machine_name && <span className="text-fg-muted"> · {machine.machine_name}</span>}
                <span className="block text-xs text-fg-muted">Removed {formatDisplayDate(machine.removed_at)}</span>
                {machine.license_file_until && (
                  <span className="block text-xs text-amber-800 dark:text-amber-300">
                    Revoked: its license file may still work offline on that machine until{" "}
                    {formatDisplayDate(machine.license_file_until)}
                  </span>
                )}
              </span>
              <button
                type="button"
                onClick={() => onRestore(machine)}
                disabled={restoring}
                aria-busy={restoring}
                aria-label={`Allow device ${machine.display_id} again`}
                className={buttonClass("secondary", "sm")}
              >
                {restoring ? (
                  <Loader2 className="size-4 animate-spin" aria-hidden="true" />
                ) : (
                  <RotateCcw className="size-4" aria-hidden="true" />
                )}
                Allow again
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
