/**
 * The islands of a prerendered content page (docs/decisions/0040). The page ships no React Router runtime: its
 * HTML is final, and each interactive part carries `data-island="<name>"`. The build (scripts/finish-build.mjs)
 * loads a module script for each island named on the page (after the first paint), marked `data-island-entry`; each calls
 * `island()` once. When all of them have run, <html data-islands="ready"> tells tests (and anyone debugging) that
 * every part of the page responds.
 */
let started = 0;

export function island(name: string, init: () => void): void {
  try {
    init();
  } catch (error) {
    // One broken island must not take the others down.
    console.error(`The ${name} island failed to start.`, error);
  }
  started += 1;
  if (started >= document.querySelectorAll("script[data-island-entry]").length) {
    document.documentElement.dataset.islands = "ready";
  }
}

/** Elements that carry the island's marker. */
export function islandsNamed<T extends HTMLElement = HTMLElement>(name: string): T[] {
  return [...document.querySelectorAll<T>(`[data-island="${name}"]`)];
}
