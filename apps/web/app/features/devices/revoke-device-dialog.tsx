import type { Machine } from "@flotilla/contracts/licensing";
import { Loader2, ShieldOff } from "lucide-react";
import { Banner } from "../../components/banner";
import { buttonClass } from "../../components/button";
import { Modal } from "../../components/modal";
import { formatExactTime } from "../../lib/portal-format";

interface RevokeDeviceDialogProps {
  /** The device to revoke; null when the dialog is closed. */
  machine: Machine | null;
  pending: boolean;
  error: string | null;
  onCancel: () => void;
  onConfirm: (machine: Machine) => void;
}

/**
 * A device holding a license file cannot simply be removed: the file keeps working offline, so its slot stays taken.
 * Revoking frees the slot anyway and bars the device, and says plainly what it cannot do: call the file back
 * (decision 0036).
 */
export function RevokeDeviceDialog({ machine, pending, error, onCancel, onConfirm }: RevokeDeviceDialogProps) {
  const until = machine?.license_file_until ?? null;
  return (
    <Modal
      open={machine !== null}
      onClose={onCancel}
      title="Revoke this device?"
      closeDisabled={pending}
      className="max-w-lg"
    >
      {machine && (
        <div className="mt-4 space-y-4 text-sm">
          <p>
            <span className="wrap-anywhere font-mono font-medium">{machine.display_id}</span> holds a license file that
            works offline until{" "}
            <time dateTime={until ?? undefined} className="font-semibold">
              {formatExactTime(until)}
            </time>
            .
          </p>
          <ul className="list-disc space-y-1 pl-5 text-fg-muted">
            <li>Its slot is freed now, for another device.</li>
            <li>It is barred: it cannot validate again until you allow it back under Removed devices.</li>
            <li>
              The file cannot be called back. On that machine it may keep working offline until it expires, so revoke
              only a device you no longer trust, such as one that got your key after a leak. Rotate the key first.
            </li>
          </ul>
          {error && <Banner tone="error">{error}</Banner>}
          <div className="flex flex-wrap justify-end gap-2">
            <button type="button" onClick={onCancel} disabled={pending} className={buttonClass("secondary", "md")}>
              Cancel
            </button>
            <button
              type="button"
              onClick={() => onConfirm(machine)}
              disabled={pending}
              aria-busy={pending}
              className={buttonClass("danger", "md")}
            >
              {pending ? (
                <Loader2 className="size-4 animate-spin" aria-hidden="true" />
              ) : (
                <ShieldOff className="size-4" aria-hidden="true" />
              )}
              Revoke device
            </button>
          </div>
        </div>
      )}
    </Modal>
  );
}
