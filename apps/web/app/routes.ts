import { index, layout, type RouteConfig, type RouteConfigEntry, route as routeEntry } from "@react-router/dev/routes";
import { BLOG_SLUGS } from "./features/content/content-files.server";

/**
 * The client's route table must match exactly the pages the server serves (docs/decisions/0020): the server
 * answers every other path with the prerendered 404 page, whose hydration data belongs to the catch-all route.
 * So paths match case-sensitively, as the server's file system does, and each blog post is its own route
 * (a `blog/:slug` pattern would also match a mistyped slug, which the server answers with the 404 page).
 */
const route = (path: string, file: string, options: { id?: string } = {}, children?: RouteConfigEntry[]) =>
  routeEntry(path, file, { ...options, caseSensitive: true }, children);

export default [
  layout("routes/site-layout.tsx", [
    index("routes/home.tsx"),
    route("pricing", "routes/pricing.tsx"),
    route("about", "routes/about.tsx"),
    route("api-reference", "routes/api-reference.tsx"),
    route("publishers-guide", "routes/publishers-guide.tsx"),
    route("terms", "routes/terms.tsx"),
    route("privacy", "routes/privacy.tsx"),
    route("docs", "routes/docs-layout.tsx", {}, [
      index("routes/docs-page.tsx", { id: "docs-index" }),
      // Before the catch-all: /docs/release-notes is its own page (decision 0063), not a docs Markdown file.
      route("release-notes", "routes/release-notes.tsx"),
      route("*", "routes/docs-page.tsx", { id: "docs-page" }),
    ]),
    route("blog", "routes/blog-index.tsx"),
    ...BLOG_SLUGS.map((slug) => route(`blog/${slug}`, "routes/blog-post.tsx", { id: `blog-post-${slug}` })),
    route("login", "routes/login.tsx"),
    route("dashboard", "routes/dashboard.tsx"),
    route("auth/callback/*", "routes/auth-callback.tsx"),
    route("newsletter/unsubscribe", "routes/newsletter-unsubscribe.tsx"),
    route("newsletter/confirm", "routes/newsletter-confirm.tsx"),
    route("*", "routes/not-found.tsx"),
  ]),
  // The operator console has its own app shell (features/admin/console-shell.tsx), outside the site's layout.
  route("admin", "routes/admin.tsx"),
  route("sitemap.xml", "routes/sitemap.ts"),
  route("robots.txt", "routes/robots.ts"),
  route("blog/rss.xml", "routes/rss.ts"),
  route("search-index.json", "routes/search-index.ts"),
] satisfies RouteConfig;
