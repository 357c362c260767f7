import { relatedPosts } from "@flotilla/contracts";
import { ArrowLeft } from "lucide-react";
import { Link } from "react-router";
import { subscribeToNewsletter } from "../features/blog/api";
import { BlogImage } from "../features/blog/blog-image";
import { PostCard } from "../features/blog/post-card";
import { CategoryBadge, PostMeta } from "../features/blog/post-meta";
import { StayUpdated } from "../features/blog/stay-updated";
import { listPosts, readPost } from "../features/content/content.server";
import { MarkdownArticle } from "../features/content/markdown-article";
import { STATIC_PAGE } from "../lib/route-handle";
import { seo } from "../lib/seo";
import type { Route } from "./+types/blog-post";

/** Each post is its own route (app/routes.ts): the slug is the last segment of the prerendered path. */

/** Prerendered without React Router's runtime; its interactive parts are islands (app/islands). */
export const handle = STATIC_PAGE;

export async function loader({ request }: Route.LoaderArgs) {
  const slug = new URL(request.url).pathname.replace(/\/+$/, "").split("/").pop() ?? "";
  const result = await readPost(slug);
  if (!result) throw new Response("Not Found", { status: 404 });
  return { ...result, related: relatedPosts(listPosts(), slug) };
}

export const meta = ({ loaderData }: Route.MetaArgs) => {
  if (!loaderData) return [];
  const { post } = loaderData;
  return seo({
    title: post.metaTitle ?? post.title,
    description: post.metaDescription ?? post.excerpt,
    path: `/blog/${post.slug}`,
    image: post.image,
    type: "article",
  });
};

export default function BlogPostPage({ loaderData }: Route.ComponentProps) {
  const { post, html, related } = loaderData;
  const stayUpdated = (
    <div className="mx-auto mt-12 max-w-xl first:mt-0" data-island="newsletter">
      <StayUpdated subscribe={subscribeToNewsletter} />
    </div>
  );
  return (
    <>
      <article className="mx-auto max-w-3xl px-4 pt-16 sm:px-6">
        <Link to="/blog" className="inline-flex items-center gap-1.5 text-sm font-medium text-fg-muted hover:text-fg">
          <ArrowLeft className="size-4" aria-hidden="true" /> Back to blog
        </Link>
        {post.comingSoon ? (
          <header className="mt-8 py-16 text-center">
            <h1 className="text-4xl font-semibold tracking-tight sm:text-5xl">Coming Soon</h1>
            <p className="mt-4 text-fg-muted">
              “{post.title}” is being written. Subscribe below to hear when it is out.
            </p>
          </header>
        ) : (
          <>
            <header className="mt-8">
              <CategoryBadge category={post.category} />
              <h1 className="mt-4 text-4xl font-semibold leading-tight tracking-tight text-balance sm:text-5xl">
                {post.title}
              </h1>
              <p className="mt-5 text-lg leading-8 text-fg-muted">{post.excerpt}</p>
              <div className="mt-6">
                <PostMeta post={post} />
              </div>
            </header>
            <div className="mt-10 overflow-hidden rounded-2xl border border-border">
              <BlogImage src={post.image} alt="" eager sizes="(min-width: 48rem) 48rem, 100vw" />
            </div>
            <MarkdownArticle html={html} className="mt-12" />
          </>
        )}
      </article>
      <div className="mx-auto max-w-5xl px-4 pt-16 pb-20 sm:px-6">
        {/* A coming-soon post has nothing to read yet: the subscription it points to comes first. */}
        {post.comingSoon && stayUpdated}
        {related.length > 0 && (
          <section aria-labelledby="keep-reading" className="mt-12 border-t border-border pt-12 first:mt-0">
            <h2 id="keep-reading" className="text-2xl font-semibold tracking-tight">
              Keep reading
            </h2>
            <div className="mt-6 grid grid-cols-1 gap-6 md:grid-cols-3" data-testid="related-posts">
              {related.map((item) => (
                <PostCard key={item.slug} post={item} titleAs="h3" />
              ))}
            </div>
          </section>
        )}
        {!post.comingSoon && stayUpdated}
      </div>
    </>
  );
}
