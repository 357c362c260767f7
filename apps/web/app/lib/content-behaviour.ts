/**
 * What a rendered Markdown article does in the browser: copy buttons in code blocks and the 'screenshot coming
 * soon' fallback for images that fail. Framework-free, so that the React article (the portal's client-side
 * navigations) and the content pages' islands (app/islands) share one implementation.
 */
import { MESSAGES } from "@flotilla/contracts/messages";

export const SCREENSHOT_PLACEHOLDER_SRC = "/images/screenshot-coming-soon.svg";
const COPY_RESET_MS = 2000;

/** One delegated listener for every `button[data-copy]` under `root`; returns its removal. */
export function wireCopyButtons(root: HTMLElement): () => void {
  const onClick = async (event: MouseEvent) => {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>("button[data-copy]");
    if (!button) return;
    const code = button.parentElement?.querySelector("pre")?.textContent ?? "";
    try {
      await navigator.clipboard.writeText(code);
      button.textContent = "Copied";
    } catch {
      button.textContent = "Press Ctrl+C";
    }
    window.setTimeout(() => {
      button.textContent = "Copy";
    }, COPY_RESET_MS);
  };
  root.addEventListener("click", onClick);
  return () => root.removeEventListener("click", onClick);
}

function showPlaceholder(img: HTMLImageElement) {
  if (img.dataset.fallback) return;
  img.dataset.fallback = "true";
  img.removeAttribute("srcset");
  img.src = SCREENSHOT_PLACEHOLDER_SRC;
  img.alt = MESSAGES.screenshotPlaceholder;
}

/** Swaps every `img.content-image` under `root` that failed (or fails later) for the placeholder. */
export function wireImageFallbacks(root: HTMLElement): () => void {
  const images = [...root.querySelectorAll<HTMLImageElement>("img.content-image")];
  const onError = (event: Event) => showPlaceholder(event.currentTarget as HTMLImageElement);
  for (const img of images) {
    // An image that failed before this ran never fires another error event.
    if (img.complete && img.naturalWidth === 0 && img.getAttribute("src")) showPlaceholder(img);
    img.addEventListener("error", onError);
  }
  return () => {
    for (const img of images) img.removeEventListener("error", onError);
  };
}
