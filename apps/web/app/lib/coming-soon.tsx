/**
 * Portal actions the spec lists but does not build yet (spec section 2): they only say so, with the spec's words,
 * in an on-page message next to the action (role="alert": announced, and it never blocks the page as
 * window.alert did).
 */
import { useCallback, useEffect, useState } from "react";

/** How long the message stays up. */
const NOTICE_MS = 5_000;

export const comingSoonText = (feature: string) => `${feature} is coming soon!`;

export function useComingSoon() {
  // The counter re-mounts the message, so that clicking the same action again announces it again.
  const [notice, setNotice] = useState<{ text: string; count: number } | null>(null);
  const announce = useCallback(
    (feature: string) => setNotice((current) => ({ text: comingSoonText(feature), count: (current?.count ?? 0) + 1 })),
    [],
  );
  useEffect(() => {
    if (!notice) return;
    const timer = setTimeout(() => setNotice(null), NOTICE_MS);
    return () => clearTimeout(timer);
  }, [notice]);
  return { notice, announce };
}

export function ComingSoonNotice({ notice }: { notice: { text: string; count: number } | null }) {
  if (!notice) return null;
  // An element inserted with role="alert" is announced; the key inserts a new one for each click.
  return (
    <p key={notice.count} role="alert" className="text-sm font-medium text-fg-muted">
      {notice.text}
    </p>
  );
}
