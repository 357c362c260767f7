/** Blog covers: one that fails to load gives way to the 'Blog Image Coming Soon' placeholder rendered beside it. */
import { island, islandsNamed } from "./runtime";

function showPlaceholder(img: HTMLImageElement) {
  const placeholder = img.nextElementSibling as HTMLElement | null;
  if (!placeholder) return;
  img.hidden = true;
  placeholder.hidden = false;
}

island("blog-image", () => {
  for (const img of islandsNamed<HTMLImageElement>("blog-image")) {
    // A cover that failed before this ran never fires another error event.
    if (img.complete && img.naturalWidth === 0 && img.getAttribute("src")) showPlaceholder(img);
    else img.addEventListener("error", () => showPlaceholder(img), { once: true });
  }
});
