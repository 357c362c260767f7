/** Spec section 2, "Docs layout": the ten docs pages and their sidebar groups, in reading order. */
export interface DocLink {
  slug: string;
  title: string;
}
export interface DocGroup {
  title: string;
  pages: readonly DocLink[];
}

export const DOCS_GROUPS: readonly DocGroup[] = [
  { title: "Getting Started", pages: [{ slug: "getting-started", title: "Prerequisites" }] },
  {
    title: "Core Concepts",
    pages: [
      { slug: "agents", title: "Agents" },
      { slug: "projects", title: "Projects" },
      { slug: "tasks", title: "Tasks" },
      { slug: "executors", title: "Executors" },
    ],
  },
  {
    title: "Advanced Features",
    pages: [
      { slug: "mcp-servers", title: "MCP Servers" },
      { slug: "memory-architecture", title: "Memory Architecture" },
      { slug: "embeddings", title: "Local Embeddings" },
      { slug: "prompts-and-rules", title: "Prompts & Rules" },
      { slug: "pricing", title: "Pricing" },
    ],
  },
];

export const DOCS_PAGES: readonly DocLink[] = DOCS_GROUPS.flatMap((group) => group.pages);

/** The sidebar group a page belongs to: the breadcrumb above its heading ("Docs › Core Concepts"). */
export function docGroupOf(slug: string): DocGroup | undefined {
  return DOCS_GROUPS.find((group) => group.pages.some((page) => page.slug === slug));
}
export const DEFAULT_DOC_SLUG = "getting-started";

/** Any path under /docs that is not one of the ten pages shows the getting-started page. */
export function resolveDocSlug(splat: string | undefined): string {
  const slug = (splat ?? "").replace(/^\/+|\/+$/g, "");
  return DOCS_PAGES.some((page) => page.slug === slug) ? slug : DEFAULT_DOC_SLUG;
}

export function docHref(slug: string): string {
  return `/docs/${slug}`;
}
