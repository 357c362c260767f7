import { History } from "lucide-react";
import { useEffect, useState } from "react";
import { formatClockTime, formatExactTime } from "../../lib/portal-format";

/** After a rotation, "Previous key works until 2:05 PM" while it does; gone at that moment. */
export function PreviousKeyNotice({ validUntil }: { validUntil: string | null }) {
  const end = validUntil ? new Date(validUntil).getTime() : Number.NaN;
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!Number.isFinite(end) || end <= now) return;
    // setTimeout's delay is a 32-bit number: wake at most every ~24 days and look again.
    const timer = setTimeout(() => setNow(Date.now()), Math.min(end - now + 250, 2 ** 31 - 1));
    return () => clearTimeout(timer);
  }, [end, now]);
  if (!validUntil || !Number.isFinite(end) || end <= now) return null;
  return (
    <p className="mt-2 flex items-center gap-1.5 text-xs text-fg-muted" data-testid="previous-key">
      <History className="size-3.5 shrink-0" aria-hidden="true" />
      <span>
        Previous key works until{" "}
        <time dateTime={validUntil} title={formatExactTime(validUntil)} className="font-medium text-fg">
          {formatClockTime(validUntil)}
        </time>
      </span>
    </p>
  );
}
