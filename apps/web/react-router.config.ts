import { DOCS_PAGES, STATIC_PUBLIC_PATHS } from "@flotilla/contracts";
import type { Config } from "@react-router/dev/config";
import { BLOG_SLUGS } from "./app/features/content/content-files.server";

/**
 * Every public page is prerendered to static HTML at build time (loaders run only then);
 * /login, /dashboard and /auth/callback are client-only and served by the SPA fallback.
 */
export default {
  ssr: false,
  async prerender() {
    return [
      ...STATIC_PUBLIC_PATHS,
      "/docs",
      "/docs/release-notes",
      ...DOCS_PAGES.map((page) => `/docs/${page.slug}`),
      ...BLOG_SLUGS.map((slug) => `/blog/${slug}`),
      "/404",
      "/sitemap.xml",
      "/robots.txt",
      "/blog/rss.xml",
      "/search-index.json",
    ];
  },
} satisfies Config;
