import { BRAND } from "@flotilla/contracts/brand";
import type { RefusedActivation } from "@flotilla/contracts/licensing";
import { MESSAGES } from "@flotilla/contracts/messages";
import { Loader2, MonitorX, X } from "lucide-react";
import { useId, useState } from "react";
import { Banner } from "../../components/banner";
import { buttonClass } from "../../components/button";
import { RelativeTime } from "../../components/relative-time";
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
 */
export function RefusedActivationsNotice({
  licenseKey,
  refusals,
  onFreeSlot,
  onDismissed,
}: RefusedActivationsNoticeProps) {
  const titleId = useId();
  const dismissal = useDismissRefusals();
  const [error, setError] = useState<string | null>(null);
  const latest = refusals[0];
  if (!latest) return null;
  const others = refusals.length - 1;
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

  return (
    <div
      role="status"
      aria-labelledby={titleId}
      className="mt-5 rounded-xl border border-amber-300 bg-amber-50 p-4 text-amber-950 dark:border-amber-900 dark:bg-amber-950/40 dark:text-amber-100"
      data-testid="refused-activations"
    >
      <div className="flex items-start gap-3">
        <MonitorX className="mt-0.5 size-5 shrink-0 text-amber-700 dark:text-amber-300" aria-hidden="true" />
        <div className="min-w-0 flex-1">
          <p id={titleId} className="font-semibold">
            This license is full
          </p>
          <p className="mt-1 text-sm">
            <span className="font-medium break-words">{latest.machine_name ?? latest.display_id}</span>
            {details && <span className="[overflow-wrap:anywhere]"> ({details})</span>} could not start {BRAND.name}{" "}
            <RelativeTime iso={latest.refused_at} />: every slot is taken.
            {others > 0 && ` ${others === 1 ? "1 other device was" : `${others} other devices were`} refused too.`}
          </p>
          <p className="mt-1 text-sm">Free a slot and the device gets it the next time it starts.</p>
          {error && (
            <div className="mt-3">
              <Banner tone="error">{error}</Banner>
            </div>
          )}
          <div className="mt-3 flex flex-wrap gap-2">
            <button type="button" onClick={onFreeSlot} className={buttonClass("primary", "sm")}>
              Free a slot
            </button>
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
          </div>
        </div>
      </div>
    </div>
  );
}
