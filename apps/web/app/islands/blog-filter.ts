/**
 * The blog index's category filter and featured post. Every post is in the page twice, as the featured card and
 * as a grid card; a category shows its first post as the featured one and the rest in the grid, as
 * filterPosts (contracts) does in React: no match shows every post.
 */
import { island, islandsNamed } from "./runtime";

function show(root: HTMLElement, category: string) {
  const cards = [...root.querySelectorAll<HTMLElement>("article[data-post]:not([data-featured])")];
  const matching = category === "All" ? cards : cards.filter((card) => card.dataset.category === category);
  const shown = matching.length > 0 ? matching : cards;
  const featured = shown[0]?.dataset.post;
  for (const card of cards) card.hidden = !shown.includes(card) || card.dataset.post === featured;
  for (const card of root.querySelectorAll<HTMLElement>("article[data-post][data-featured]")) {
    card.hidden = card.dataset.post !== featured;
  }
}

island("blog-filter", () => {
  for (const root of islandsNamed("blog-filter")) {
    const buttons = [...root.querySelectorAll<HTMLElement>("button[data-category-filter]")];
    for (const button of buttons) {
      button.addEventListener("click", () => {
        for (const other of buttons) other.setAttribute("aria-pressed", String(other === button));
        show(root, button.dataset.categoryFilter ?? "All");
      });
    }
  }
});
