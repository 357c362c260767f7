import { BRAND } from "@flotilla/contracts/brand";
import type { RefusedActivation } from "@flotilla/contracts/licensing";
import { MESSAGES } from "@flotilla/contracts/messages";
import { Loader2, MonitorCheck, MonitorX, X } from "lucide-react";
import { useId, useState } from "react";
import { Banner } from "../../components/banner";
import { buttonClass } from "../../components/button";
import { RelativeTime } from "../../components/relative-time";
import { useMachines } from "../devices/api";
import { licenseActionErrorMessage, useDismissRefusals } from "./api";

interface RefusedActivationsNoticeProps {
  licenseKey: string;
  /** Most recent first, as the dashboard sends them. */
  refusals: readonly RefusedActivation[];
  /** Opens the device panel ready to remove a device. */
  onFreeSlot: () => void;
  /** After a dismissal: the page reloads the dashboard. */
  onDismissed?: () => void;
}

/**
 * "This license is full": a device was refused because every slot was taken (TOO_MANY_MACHINES). Names the latest
 * one, offers to free a slot (the device panel, focused on removal) or to dismiss the notice.
 *
 * The refusals say what was true when they happened; the slots in use now come from the device list (the same query
 * as the device panel, refreshed after each removal). Once a slot is free the notice says that the refused device
 * gets it the next time it starts, instead of calling the license full beside "You can add 1 more device".
 */
export function RefusedActivationsNotice({
  licenseKey,
  refusals,
  onFreeSlot,
  onDismissed,
}: RefusedActivationsNoticeProps) {
  const titleId = useId();
  const dismissal = useDismissRefusals();
  const machines = useMachines(licenseKey);
  const [error, setError] = useState<string | null>(null);
  const latest = refusals[0];
  // Said once the slots in use are known, so it never flips from "full" to "free" under the owner's pointer.
  if (!latest || machines.isPending) return null;
  const others = refusals.length - 1;
  // When the list cannot be loaded, the notice says what the dashboard said.
  const list = machines.isSuccess ? machines.data : null;
  const freeSlots = list ? Math.max(0, list.max_machines - list.current_count) : 0;
  const details = [latest.machine_name ? latest.display_id : null, latest.platform].filter(Boolean).join(" · ");

  async function dismiss() {
    setError(null);
    try {
      await dismissal.mutateAsync(licenseKey);
      onDismissed?.();
    } catch (failure) {
      setError(licenseActionErrorMessage(failure, MESSAGES.refusalsDismissFailed));
    }
  }

  const refusedToo =
    others > 0 ? ` ${others === 1 ? "1 other device was" : `${others} other devices were`} refused too.` : "";
  const name = (
    <>
      <span className="font-medium break-words">{latest.machine_name ?? latest.display_id}</span>
      {details && <span className="[overflow-wrap:anywhere]"> ({details})</span>}
    </>
  );
  const dismissButton = (
    <button
      type="button"
      onClick={() => void dismiss()}
      disabled={dismissal.isPending}
      aria-busy={dismissal.isPending}
      className={buttonClass("secondary", "sm")}
    >
      {dismissal.isPending ? (
        <Loader2 className="size-4 animate-spin" aria-hidden="true" />
      ) : (
        <X className="size-4" aria-hidden="true" />
      )}
      Dismiss
    </button>
  );
  const errorBanner = error && (
    <div className="mt-3">
      <Banner tone="error">{error}</Banner>
    </div>
  );

  if (freeSlots > 0) {
    return (
      <div
        role="status"
        aria-labelledby={titleId}
        className="mt-5 rounded-xl border border-sky-300 bg-sky-50 p-4 text-sky-950 dark:border-sky-900 dark:bg-sky-950/40 dark:text-sky-100"
        data-testid="refused-activations"
        data-state="slot-free"
      >
        <div className="flex items-start gap-3">
          <MonitorCheck className="mt-0.5 size-5 shrink-0 text-sky-700 dark:text-sky-300" aria-hidden="true" />
          <div className="min-w-0 flex-1">
            <p id={titleId} className="font-semibold">
              {freeSlots === 1 ? "A slot is free" : `${freeSlots} slots are free`}
            </p>
            <p className="mt-1 text-sm">
              {name} could not start {BRAND.name} <RelativeTime iso={latest.refused_at} />, when every slot was taken.
              {refusedToo}
            </p>
            <p className="mt-1 text-sm">{freeSlotText(freeSlots, refusals.length)}</p>
            {errorBanner}
            <div className="mt-3 flex flex-wrap gap-2">{dismissButton}</div>
          </div>
        </div>
      </div>
    );
  }

  return (
    <div
      role="status"
      aria-labelledby={titleId}
      className="mt-5 rounded-xl border border-amber-300 bg-amber-50 p-4 text-amber-950 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-100"
      data-testid="refused-activations"
      data-state="full"
    >
      <div className="flex items-start gap-3">
        <MonitorX className="mt-0.5 size-5 shrink-0 text-amber-700 dark:text-amber-300" aria-hidden="true" />
        <div className="min-w-0 flex-1">
          <p id={titleId} className="font-semibold">
            This license is full
          </p>
          <p className="mt-1 text-sm">
            {name} could not start {BRAND.name} <RelativeTime iso={latest.refused_at} />: every slot is taken.
            {refusedToo}
          </p>
          <p className="mt-1 text-sm">Free a slot and the device gets it the next time it starts.</p>
          {errorBanner}
          <div className="mt-3 flex flex-wrap gap-2">
            <button type="button" onClick={onFreeSlot} className={buttonClass("primary", "sm")}>
              Free a slot
            </button>
            {dismissButton}
          </div>
        </div>
      </div>
    </div>
  );
}

/** Who gets the free slots: the refused device, or the first of the refused devices to start again. */
export function freeSlotText(freeSlots: number, refused: number): string {
  if (refused <= 1) return "It gets the free slot the next time it starts.";
  if (freeSlots >= refused) return "Each of them gets a slot the next time it starts.";
  if (freeSlots === 1) return "The first of them to start gets the free slot.";
  return `The first ${freeSlots} of them to start get the free slots.`;
}
