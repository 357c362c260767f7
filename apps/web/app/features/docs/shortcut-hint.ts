import { useEffect, useState } from "react";

/** What the search button shows for its keyboard shortcut: ⌘K on Apple platforms, Ctrl K elsewhere, nothing on touch. */
export function shortcutHint({
  platform,
  hasFinePointer,
}: {
  platform: string;
  hasFinePointer: boolean;
}): string | null {
  if (!hasFinePointer) return null;
  return /mac|iphone|ipad|ipod/i.test(platform) ? "⌘K" : "Ctrl K";
}

interface NavigatorWithUaData extends Navigator {
  userAgentData?: { platform?: string };
}

/**
 * The hint for this browser. The prerendered page cannot know the visitor's platform, so it shows none until
 * hydration (the button keeps its size either way).
 */
export function useShortcutHint(): string | null {
  const [hint, setHint] = useState<string | null>(null);
  useEffect(() => {
    const nav = navigator as NavigatorWithUaData;
    setHint(
      shortcutHint({
        platform: nav.userAgentData?.platform || nav.platform || nav.userAgent,
        hasFinePointer: window.matchMedia?.("(any-pointer: fine)").matches ?? true,
      }),
    );
  }, []);
  return hint;
}
