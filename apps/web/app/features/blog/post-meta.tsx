import type { BlogPost } from "@flotilla/contracts";
import { formatDate } from "../../lib/format";

export function PostMeta({ post }: { post: Pick<BlogPost, "author" | "date" | "readTime"> }) {
  return (
    <p className="flex flex-wrap items-center gap-x-2 text-sm text-fg-muted">
      <span>{post.author}</span>
      <span aria-hidden="true">·</span>
      <time dateTime={post.date}>{formatDate(post.date)}</time>
      <span aria-hidden="true">·</span>
      <span>{post.readTime}</span>
    </p>
  );
}

export function CategoryBadge({ category }: { category: string }) {
  return (
    <span className="inline-block rounded-full bg-sky-500/10 px-2.5 py-0.5 text-xs font-medium text-accent">
      {category}
    </span>
  );
}
