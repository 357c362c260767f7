/** Docs pages: the search button's ⌘K / Ctrl K hint, and the keys that open the search from anywhere. */
import { browserShortcutHint, isSearchShortcut } from "../features/docs/search-keys";
import { openDialog } from "./opener";
import { island } from "./runtime";

island("search-shortcut", () => {
  const hint = browserShortcutHint();
  if (hint) {
    for (const kbd of document.querySelectorAll<HTMLElement>("[data-shortcut-hint]")) {
      kbd.textContent = hint;
      kbd.hidden = false;
    }
  }
  window.addEventListener("keydown", (event) => {
    if (!isSearchShortcut(event) || document.querySelector("dialog[open]")) return;
    event.preventDefault();
    const visibleButton = [...document.querySelectorAll<HTMLElement>("[data-opens='search']")].find(
      (button) => button.offsetParent !== null,
    );
    void openDialog("search", visibleButton ?? null);
  });
});
