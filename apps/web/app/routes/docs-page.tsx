import { docGroupOf, docHref, resolveDocSlug } from "@flotilla/contracts";
import { Link } from "react-router";
import { readPage } from "../features/content/content.server";
import { MarkdownArticle } from "../features/content/markdown-article";
import { DocsOutline } from "../features/docs/docs-outline";
import { DocsPager } from "../features/docs/docs-pager";
import { seo } from "../lib/seo";
import type { Route } from "./+types/docs-page";

/** /docs, /docs/getting-started and any unknown /docs/* path all show getting-started. */
export async function loader({ params }: Route.LoaderArgs) {
  const slug = resolveDocSlug(params["*"]);
  const page = await readPage("docs", slug);
  return { slug, ...page };
}

export const meta = ({ loaderData }: Route.MetaArgs) =>
  loaderData
    ? seo({ title: `${loaderData.title} · Docs`, description: loaderData.description, path: docHref(loaderData.slug) })
    : [];

export default function DocsPage({ loaderData }: Route.ComponentProps) {
  const { slug, title, description, html, headings } = loaderData;
  const group = docGroupOf(slug);
  return (
    <div className="flex gap-10 py-10">
      <article className="min-w-0 max-w-3xl flex-1" data-doc-slug={slug}>
        <nav aria-label="Breadcrumb">
          <ol className="flex flex-wrap items-center gap-1.5 text-sm font-medium text-accent">
            <li>
              <Link to="/docs" className="hover:underline">
                Docs
              </Link>
            </li>
            {group && (
              <li className="flex items-center gap-1.5">
                <span aria-hidden="true">›</span>
                <span>{group.title}</span>
              </li>
            )}
          </ol>
        </nav>
        <h1 className="mt-2 text-3xl font-semibold tracking-tight sm:text-4xl">{title}</h1>
        <p className="mt-4 text-lg leading-8 text-fg-muted">{description}</p>
        <MarkdownArticle html={html} className="mt-8" />
        <DocsPager slug={slug} />
      </article>
      <aside className="sticky top-16 hidden h-[calc(100dvh-4rem)] w-52 shrink-0 overflow-y-auto py-2 xl:block">
        <DocsOutline headings={headings} />
      </aside>
    </div>
  );
}
