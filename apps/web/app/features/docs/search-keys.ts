/** The docs search's keys, free of React: the search-shortcut island (app/islands) uses them too. */

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

/** The hint for the browser this runs in. */
export function browserShortcutHint(): string | null {
  const nav = navigator as NavigatorWithUaData;
  return shortcutHint({
    platform: nav.userAgentData?.platform || nav.platform || nav.userAgent,
    hasFinePointer: window.matchMedia?.("(any-pointer: fine)").matches ?? true,
  });
}

/**
 * The K of Ctrl/⌘ K: the letter typed, in either case (Caps Lock or Shift give "K"); on a layout whose keys type
 * another alphabet, the key where QWERTY has its K.
 */
function isK(event: KeyboardEvent): boolean {
  const key = event.key.toLowerCase();
  return key === "k" || (!/^[a-z]$/.test(key) && event.code === "KeyK");
}

/** Ctrl/⌘ K, or "/" outside a text field: the keys that open the docs search. */
export function isSearchShortcut(event: KeyboardEvent): boolean {
  const target = event.target as HTMLElement;
  const typing = target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
  return ((event.metaKey || event.ctrlKey) && isK(event)) || (event.key === "/" && !typing);
}
