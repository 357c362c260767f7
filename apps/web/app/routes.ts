import { index, layout, type RouteConfig, route } from "@react-router/dev/routes";

export default [
  layout("routes/site-layout.tsx", [
    index("routes/home.tsx"),
    route("pricing", "routes/pricing.tsx"),
    route("about", "routes/about.tsx"),
    route("api-reference", "routes/api-reference.tsx"),
    route("terms", "routes/terms.tsx"),
    route("privacy", "routes/privacy.tsx"),
    route("docs", "routes/docs-layout.tsx", [
      index("routes/docs-page.tsx", { id: "docs-index" }),
      route("*", "routes/docs-page.tsx", { id: "docs-page" }),
    ]),
    route("blog", "routes/blog-index.tsx"),
    route("blog/:slug", "routes/blog-post.tsx"),
    route("login", "routes/login.tsx"),
    route("dashboard", "routes/dashboard.tsx"),
    route("auth/callback/*", "routes/auth-callback.tsx"),
    route("newsletter/unsubscribe", "routes/newsletter-unsubscribe.tsx"),
    route("*", "routes/not-found.tsx"),
  ]),
  route("sitemap.xml", "routes/sitemap.ts"),
  route("robots.txt", "routes/robots.ts"),
  route("blog/rss.xml", "routes/rss.ts"),
  route("search-index.json", "routes/search-index.ts"),
] satisfies RouteConfig;
