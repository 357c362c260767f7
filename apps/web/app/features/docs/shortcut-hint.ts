import { useEffect, useState } from "react";
import { browserShortcutHint } from "./search-keys";

export { browserShortcutHint, isSearchShortcut, shortcutHint } from "./search-keys";

/**
 * The hint for this browser. The prerendered page cannot know the visitor's platform, so it shows none until
 * hydration (the button keeps its size either way).
 */
export function useShortcutHint(): string | null {
  const [hint, setHint] = useState<string | null>(null);
  useEffect(() => setHint(browserShortcutHint()), []);
  return hint;
}
