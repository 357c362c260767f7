import { MonitorX } from "lucide-react";
import { useId, useRef, useState } from "react";
import { buttonClass } from "../../components/button";

export { SIGNED_OUT_EVERYWHERE_PATH } from "@flotilla/contracts/navigation";

/**
 * "Sign out everywhere" asks first, in place, and names what happens. The confirmation is in the markup (hidden),
 * so the account island on a prerendered page shows it the same way (data-account-action, data-account-confirm).
 */
export function SignOutEverywhere({ itemClass, onConfirm }: { itemClass: string; onConfirm?: () => void }) {
  const [asking, setAsking] = useState(false);
  const confirmId = useId();
  const confirmButton = useRef<HTMLButtonElement>(null);
  return (
    <>
      <button
        type="button"
        onClick={() => {
          setAsking(true);
          queueMicrotask(() => confirmButton.current?.focus());
        }}
        className={itemClass}
        aria-expanded={asking}
        aria-controls={confirmId}
        data-account-action="logout-everywhere"
      >
        <MonitorX className="size-4 text-fg-muted" aria-hidden="true" />
        Sign out everywhere
      </button>
      <div id={confirmId} hidden={!asking} className="mx-1 mt-1 rounded-lg bg-bg-subtle p-2.5" data-account-confirm>
        <p className="text-xs leading-5 text-fg-muted">
          This ends every session of your account, on every browser and device, this one included. You sign in again
          with Google.
        </p>
        <div className="mt-2 flex gap-2">
          <button
            ref={confirmButton}
            type="button"
            onClick={onConfirm}
            className={buttonClass("danger", "sm", "flex-1")}
            data-account-action="logout-everywhere-confirm"
          >
            Sign out all
          </button>
          <button
            type="button"
            onClick={() => setAsking(false)}
            className={buttonClass("ghost", "sm")}
            data-account-action="logout-everywhere-cancel"
          >
            Cancel
          </button>
        </div>
      </div>
    </>
  );
}
