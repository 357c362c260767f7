import { MESSAGES } from "@flotilla/contracts";
import { useEffect, useRef } from "react";

export const SCREENSHOT_PLACEHOLDER_SRC = "/images/screenshot-coming-soon.svg";

/** Swaps a content image that failed to load for the 'screenshot coming soon' placeholder. */
export function useImageFallback(container: React.RefObject<HTMLElement | null>, html: string) {
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-run when the rendered HTML changes
  useEffect(() => {
    const root = container.current;
    if (!root) return;
    const replace = (img: HTMLImageElement) => {
      if (img.dataset.fallback) return;
      img.dataset.fallback = "true";
      img.src = SCREENSHOT_PLACEHOLDER_SRC;
      img.alt = MESSAGES.screenshotPlaceholder;
    };
    const images = [...root.querySelectorAll<HTMLImageElement>("img.content-image")];
    const onError = (event: Event) => replace(event.currentTarget as HTMLImageElement);
    for (const img of images) {
      // An image that failed before hydration never fires another error event.
      if (img.complete && img.naturalWidth === 0 && img.getAttribute("src")) replace(img);
      img.addEventListener("error", onError);
    }
    return () => {
      for (const img of images) img.removeEventListener("error", onError);
    };
  }, [html]);
}

/** Copy buttons rendered into code blocks at build time come alive here (one delegated listener). */
function useCopyButtons(container: React.RefObject<HTMLElement | null>) {
  useEffect(() => {
    const root = container.current;
    if (!root) return;
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
      }, 2000);
    };
    root.addEventListener("click", onClick);
    return () => root.removeEventListener("click", onClick);
  }, [container]);
}

export function MarkdownArticle({ html, className = "" }: { html: string; className?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useImageFallback(ref, html);
  useCopyButtons(ref);
  return <div ref={ref} className={`prose ${className}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
