/** Build-time content queries used by route loaders. Results are memoised: one parse per file per build. */
import { BLOG_CATEGORIES, type BlogCategory, type BlogPost } from "@flotilla/contracts";
import { type ContentKind, listSlugs, readContent } from "./content-files.server";
import { expandContentTokens } from "./content-tokens.server";
import { renderMarkdown } from "./markdown.server";
import type { RenderedPage, Section } from "./types";

const pageCache = new Map<string, Promise<RenderedPage & { sections: Section[] }>>();

function requireString(data: Record<string, unknown>, key: string, where: string): string {
  const value = data[key];
  if (typeof value !== "string" || value.trim() === "") throw new Error(`${where}: front matter "${key}" is missing`);
  return value;
}

export function readPageWithSections(kind: ContentKind, slug: string): Promise<RenderedPage & { sections: Section[] }> {
  const cacheKey = `${kind}/${slug}`;
  let page = pageCache.get(cacheKey);
  if (!page) {
    page = (async () => {
      const { data, body } = readContent(kind, slug);
      const { html, headings, sections } = await renderMarkdown(expandContentTokens(body, cacheKey), {
        sections: true,
      });
      return {
        title: requireString(data, "title", cacheKey),
        description: requireString(data, "description", cacheKey),
        html,
        headings,
        sections,
      };
    })();
    pageCache.set(cacheKey, page);
  }
  return page;
}

/** The page as the browser needs it (no search sections). */
export async function readPage(kind: ContentKind, slug: string): Promise<RenderedPage> {
  const { sections: _sections, ...page } = await readPageWithSections(kind, slug);
  return page;
}

export interface BlogPostWithMeta extends BlogPost {
  metaTitle?: string;
  metaDescription?: string;
}

function toPost(slug: string): BlogPostWithMeta {
  const { data } = readContent("blog", slug);
  const where = `blog/${slug}`;
  const category = requireString(data, "category", where);
  if (!BLOG_CATEGORIES.includes(category as BlogCategory) || category === "All") {
    throw new Error(`${where}: unknown category "${category}"`);
  }
  const date = data.date instanceof Date ? data.date.toISOString().slice(0, 10) : requireString(data, "date", where);
  return {
    id: Number(data.id),
    slug,
    title: requireString(data, "title", where),
    excerpt: requireString(data, "excerpt", where),
    author: requireString(data, "author", where),
    date,
    readTime: requireString(data, "readTime", where),
    category: category as BlogPost["category"],
    image: requireString(data, "image", where),
    comingSoon: data.comingSoon === true,
    ...(typeof data.metaTitle === "string" ? { metaTitle: data.metaTitle } : {}),
    ...(typeof data.metaDescription === "string" ? { metaDescription: data.metaDescription } : {}),
  };
}

/** All posts, newest first. */
export function listPosts(): BlogPostWithMeta[] {
  return listSlugs("blog")
    .map(toPost)
    .sort((a, b) => b.date.localeCompare(a.date) || a.id - b.id);
}

export async function readPost(slug: string): Promise<{ post: BlogPostWithMeta; html: string } | null> {
  if (!listSlugs("blog").includes(slug)) return null;
  const post = toPost(slug);
  if (post.comingSoon) return { post, html: "" };
  const { body } = readContent("blog", slug);
  const { html } = await renderMarkdown(expandContentTokens(body, `blog/${slug}`), { sections: true });
  return { post, html };
}
