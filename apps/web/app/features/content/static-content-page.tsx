import { MarkdownArticle } from "./markdown-article";
import type { RenderedPage } from "./types";

/** About, Terms and Privacy: a title, a lead and rendered Markdown. */
export function StaticContentPage({ page, eyebrow }: { page: RenderedPage; eyebrow: string }) {
  return (
    <article className="mx-auto max-w-3xl px-4 py-20 sm:px-6">
      <p className="text-sm font-semibold uppercase tracking-wider text-accent">{eyebrow}</p>
      <h1 className="mt-3 text-4xl font-semibold tracking-tight sm:text-5xl">{page.title}</h1>
      <p className="mt-5 text-lg leading-8 text-fg-muted">{page.description}</p>
      <MarkdownArticle html={page.html} className="mt-10" />
    </article>
  );
}
