/** The public routes, for the sitemap: one list derived from the same sources as the prerender list. */
import { DOCS_PAGES, STATIC_PUBLIC_PATHS } from "@flotilla/contracts";
import { RELEASE_NOTES_PATH } from "../release-notes/release-notes";
import { listPosts } from "./content.server";

export function publicPaths(): string[] {
  return [
    ...STATIC_PUBLIC_PATHS,
    ...DOCS_PAGES.map((page) => `/docs/${page.slug}`),
    RELEASE_NOTES_PATH,
    ...listPosts().map((post) => `/blog/${post.slug}`),
  ];
}
