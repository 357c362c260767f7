/**
 * Reads the Markdown content folder. Runs at build time only (route loaders and the prerender list):
 * nothing here, nor the Markdown toolchain, reaches the browser.
 */
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import matter from "gray-matter";

/** The build runs in apps/web (this module is bundled, so its own URL does not point at the sources). */
export const CONTENT_DIR = `${resolve(process.cwd(), "content")}/`;

export type ContentKind = "docs" | "blog" | "pages";

export function listSlugs(kind: ContentKind): string[] {
  return readdirSync(`${CONTENT_DIR}${kind}`)
    .filter((file) => file.endsWith(".md"))
    .map((file) => file.slice(0, -".md".length))
    .sort();
}

export interface RawContent {
  data: Record<string, unknown>;
  body: string;
}

export function readContent(kind: ContentKind, slug: string): RawContent {
  if (!/^[a-z0-9-]+$/.test(slug)) throw new Error(`Invalid content slug: ${slug}`);
  const source = readFileSync(`${CONTENT_DIR}${kind}/${slug}.md`, "utf8");
  const { data, content } = matter(source);
  return { data, body: content };
}

export const BLOG_SLUGS = listSlugs("blog");
