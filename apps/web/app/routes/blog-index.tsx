import { BLOG_CATEGORIES, type BlogCategory, BRAND, filterPosts } from "@flotilla/contracts";
import { Rss } from "lucide-react";
import { useState } from "react";
import { Link } from "react-router";
import { subscribeToNewsletter } from "../features/blog/api";
import { PostCard } from "../features/blog/post-card";
import { StayUpdated } from "../features/blog/stay-updated";
import { listPosts } from "../features/content/content.server";
import { STATIC_PAGE } from "../lib/route-handle";
import { seo } from "../lib/seo";
import type { Route } from "./+types/blog-index";

/** Prerendered without React Router's runtime; its interactive parts are islands (app/islands). */
export const handle = STATIC_PAGE;

export const loader = () => ({ posts: listPosts() });

export const meta = () =>
  seo({
    title: "Blog",
    description: `Tutorials, deep dives and announcements from the ${BRAND.name} team: agent coordination, memory, MCP servers, prompts and the way we build.`,
    path: "/blog",
  });

export default function BlogIndex({ loaderData }: Route.ComponentProps) {
  const [category, setCategory] = useState<BlogCategory>("All");
  const { posts } = loaderData;
  const shown = filterPosts(posts, category);
  const featuredSlug = shown[0]?.slug;
  const inGrid = new Set(shown.slice(1).map((post) => post.slug));

  // Every post is rendered twice, as the featured card and as a grid card, and the filter only shows and hides
  // them: React does it by state here, the blog-filter island on the prerendered page (app/islands/blog-filter.ts).
  return (
    <div className="mx-auto max-w-7xl px-4 py-20 sm:px-6 lg:px-8" data-island="blog-filter">
      <header className="max-w-2xl">
        <p className="text-sm font-semibold uppercase tracking-wider text-accent">Blog</p>
        <h1 className="mt-3 text-4xl font-semibold tracking-tight sm:text-5xl">Notes from the command centre</h1>
        <p className="mt-5 text-lg leading-8 text-fg-muted">
          How we think about agents, memory and review, and how to get the most out of {BRAND.name}.
        </p>
        {/* A resource route, not a page: a plain link loads it. */}
        <a
          href="/blog/rss.xml"
          className="mt-5 inline-flex items-center gap-2 text-sm font-medium text-accent hover:underline"
          type="application/rss+xml"
        >
          <Rss className="size-4" aria-hidden="true" />
          Subscribe via RSS
        </a>
      </header>

      <fieldset className="mt-10 flex flex-wrap gap-2" aria-label="Filter posts by category">
        <legend className="sr-only">Filter posts by category</legend>
        {BLOG_CATEGORIES.map((name) => (
          <button
            key={name}
            type="button"
            aria-pressed={category === name}
            onClick={() => setCategory(name)}
            data-category-filter={name}
            className="rounded-full border border-border bg-bg-elevated px-3.5 py-1.5 text-sm font-medium text-fg-muted transition-colors not-aria-pressed:hover:text-fg aria-pressed:border-transparent aria-pressed:bg-brand aria-pressed:text-white"
          >
            {name}
          </button>
        ))}
      </fieldset>

      <div className="mt-10 grid gap-10 lg:grid-cols-[1fr_18rem]">
        <div className="min-w-0" aria-live="polite">
          {posts.map((post) => (
            <PostCard key={post.slug} post={post} featured hidden={post.slug !== featuredSlug} />
          ))}
          <div className="mt-8 grid grid-cols-1 gap-6 md:grid-cols-2 xl:grid-cols-3" data-testid="post-grid">
            {posts.map((post) => (
              <PostCard key={post.slug} post={post} hidden={!inGrid.has(post.slug)} />
            ))}
          </div>
        </div>
        <aside className="space-y-6">
          <section className="rounded-2xl border border-border bg-bg-elevated p-6" aria-labelledby="plans-box-title">
            <h2 id="plans-box-title" className="font-semibold">
              Pricing and Plans
            </h2>
            <p className="mt-1 text-sm text-fg-muted">
              Self-hosted is free. See what each plan adds and how licenses work.
            </p>
            <ul className="mt-4 space-y-2 text-sm">
              <li>
                <Link to="/pricing" className="font-medium text-accent hover:underline">
                  Compare plans →
                </Link>
              </li>
              <li>
                <Link to="/docs/pricing" className="font-medium text-accent hover:underline">
                  Pricing overview in the docs →
                </Link>
              </li>
            </ul>
          </section>
          <div data-island="newsletter">
            <StayUpdated subscribe={subscribeToNewsletter} />
          </div>
        </aside>
      </div>
    </div>
  );
}
