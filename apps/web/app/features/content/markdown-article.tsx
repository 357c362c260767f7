import { useEffect, useRef } from "react";
import { wireCopyButtons, wireImageFallbacks } from "../../lib/content-behaviour";

export { SCREENSHOT_PLACEHOLDER_SRC } from "../../lib/content-behaviour";

/**
 * A rendered Markdown article. Its copy buttons and image fallbacks are wired by the `article` island on a
 * prerendered page (app/islands/article.ts), and by the effect below when React renders it (the portal's
 * client-side navigations): one implementation, lib/content-behaviour.ts.
 */
export function MarkdownArticle({ html, className = "" }: { html: string; className?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: re-wire when the rendered HTML changes
  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    const unwireCopy = wireCopyButtons(root);
    const unwireImages = wireImageFallbacks(root);
    return () => {
      unwireCopy();
      unwireImages();
    };
  }, [html]);
  return (
    <div ref={ref} data-island="article" className={`prose ${className}`} dangerouslySetInnerHTML={{ __html: html }} />
  );
}
