import { CircleCheck, CircleDashed, CirclePause, CircleX } from "lucide-react";
import { type StatusTone, statusLabel, statusTone } from "./license-helpers";

const APPEARANCE: Record<StatusTone, { Icon: typeof CircleCheck; className: string }> = {
  active: { Icon: CircleCheck, className: "text-emerald-700 dark:text-emerald-400" },
  expired: { Icon: CircleX, className: "text-red-700 dark:text-red-400" },
  suspended: { Icon: CirclePause, className: "text-amber-700 dark:text-amber-400" },
  other: { Icon: CircleDashed, className: "text-fg-muted" },
};

/** Status with its icon: active green check, expired red, suspended yellow, anything else neutral. */
export function LicenseStatus({ status }: { status: string }) {
  const tone = statusTone(status);
  const { Icon, className } = APPEARANCE[tone];
  return (
    <span data-tone={tone} className={`inline-flex items-center gap-1.5 text-sm font-medium ${className}`}>
      <Icon className="size-4" aria-hidden="true" />
      <span className="sr-only">Status: </span>
      {statusLabel(status)}
    </span>
  );
}
