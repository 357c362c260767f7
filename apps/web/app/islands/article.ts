/** A rendered Markdown article (docs, blog posts, terms, privacy…): copy buttons and image fallbacks. */
import { wireCopyButtons, wireImageFallbacks } from "../lib/content-behaviour";
import { island, islandsNamed } from "./runtime";

island("article", () => {
  for (const article of islandsNamed("article")) {
    wireCopyButtons(article);
    wireImageFallbacks(article);
  }
});
