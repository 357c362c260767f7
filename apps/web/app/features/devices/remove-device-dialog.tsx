import type { Machine } from "@flotilla/contracts/licensing";
import { Trash2 } from "lucide-react";
import { buttonClass } from "../../components/button";
import { Modal } from "../../components/modal";

interface RemoveDeviceDialogProps {
  /** The device to remove; null when the dialog is closed. */
  machine: Machine | null;
  onCancel: () => void;
  /** Confirmed: the dialog closes and the removal runs on the device's row (spinner, message, errors). */
  onConfirm: (machine: Machine) => void;
}

/** Asks before a device is removed, and says what removing does (issue 25): nothing is removed without it. */
export function RemoveDeviceDialog({ machine, onCancel, onConfirm }: RemoveDeviceDialogProps) {
  return (
    <Modal open={machine !== null} onClose={onCancel} title="Remove this device?" className="max-w-lg">
      {machine && (
        <div className="mt-4 space-y-4 text-sm">
          <p>
            <span className="wrap-anywhere font-mono font-medium">{machine.display_id}</span>
            {machine.machine_name ? ` (${machine.machine_name})` : ""} will be removed from this license.
          </p>
          <ul className="list-disc space-y-1 pl-5 text-fg-muted">
            <li>Its slot is freed at once, for another device.</li>
            <li>Executions running on it end now.</li>
            <li>
              It cannot validate again, even from the app, and its offline token stops working at its next check, until
              you allow it back under Removed devices.
            </li>
          </ul>
          <div className="flex flex-wrap justify-end gap-2">
            <button type="button" onClick={onCancel} className={buttonClass("secondary", "md")}>
              Cancel
            </button>
            <button type="button" onClick={() => onConfirm(machine)} className={buttonClass("danger", "md")}>
              <Trash2 className="size-4" aria-hidden="true" />
              Remove device
            </button>
          </div>
        </div>
      )}
    </Modal>
  );
}
