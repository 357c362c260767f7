import { formatExactTime, formatRelativeTime } from "../lib/portal-format";

/** "4 minutes ago", with the exact moment in a tooltip and in `dateTime` for machines. */
export function RelativeTime({ iso, fallback = "Never" }: { iso: string | null | undefined; fallback?: string }) {
  if (!iso || Number.isNaN(new Date(iso).getTime())) return <>{fallback}</>;
  const exact = formatExactTime(iso);
  return (
    <time
      dateTime={iso}
      title={exact}
      className="underline decoration-dotted decoration-fg-muted/50 underline-offset-2"
    >
      {formatRelativeTime(iso)}
    </time>
  );
}
