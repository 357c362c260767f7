import type { BlogPost } from "@flotilla/contracts";
import { Link } from "react-router";
import { BlogImage } from "./blog-image";
import { CategoryBadge, PostMeta } from "./post-meta";

interface PostCardProps {
  post: BlogPost;
  featured?: boolean;
  /** h2 on the blog index; h3 under an article's "Keep reading" heading. */
  titleAs?: "h2" | "h3";
  /** Rendered but not shown (the blog index renders every post in both forms; its filter shows some). */
  hidden?: boolean;
}

export function PostCard({ post, featured = false, titleAs: Title = "h2", hidden = false }: PostCardProps) {
  return (
    <article
      hidden={hidden}
      data-post={post.slug}
      data-category={post.category}
      className={`group relative flex overflow-hidden rounded-2xl border border-border bg-bg-elevated transition-shadow hover:shadow-lg hover:shadow-sky-900/5 ${
        featured ? "flex-col lg:flex-row" : "flex-col"
      }`}
      data-featured={featured || undefined}
    >
      <div className={featured ? "lg:w-3/5" : ""}>
        <BlogImage
          src={post.image}
          alt=""
          eager={featured && !hidden}
          sizes={
            featured ? "(min-width: 1024px) 36rem, 100vw" : "(min-width: 1280px) 18rem, (min-width: 768px) 40vw, 100vw"
          }
        />
      </div>
      <div className={`flex flex-1 flex-col p-6 ${featured ? "lg:justify-center lg:p-10" : ""}`}>
        <div className="flex items-center gap-2">
          {featured && <span className="text-xs font-semibold uppercase tracking-wider text-fg-muted">Featured</span>}
          <CategoryBadge category={post.category} />
        </div>
        <Title className={`mt-3 font-semibold tracking-tight ${featured ? "text-2xl sm:text-3xl" : "text-lg"}`}>
          <Link to={`/blog/${post.slug}`} className="after:absolute after:inset-0 group-hover:text-accent">
            {post.title}
          </Link>
        </Title>
        <p className="mt-3 flex-1 text-sm leading-6 text-fg-muted">{post.excerpt}</p>
        <div className="mt-5">
          <PostMeta post={post} />
        </div>
      </div>
    </article>
  );
}
