import { DOCS_PAGES } from "@flotilla/contracts";
import MiniSearch from "minisearch";
import { readPageWithSections } from "../features/content/content.server";
import { SEARCH_OPTIONS, type SearchDocument } from "../features/docs/search-index";

/** The docs search index, built once at build time and fetched by the browser on first search. */
export async function loader() {
  const documents: SearchDocument[] = [];
  for (const { slug } of DOCS_PAGES) {
    const page = await readPageWithSections("docs", slug);
    for (const section of page.sections) {
      documents.push({
        id: `${slug}#${section.id}`,
        slug,
        page: page.title,
        heading: section.heading,
        text: section.text,
      });
    }
  }
  const index = new MiniSearch<SearchDocument>(SEARCH_OPTIONS as never);
  index.addAll(documents);
  return new Response(JSON.stringify(index), { headers: { "Content-Type": "application/json" } });
}
