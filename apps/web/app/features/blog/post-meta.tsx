import type { BlogPost } from "@flotilla/contracts";
import { formatDate } from "../../lib/format";

/**
 * Author · date · read time. Each item after the first carries its separator in front of it, and the list is
 * shifted left by one separator's width inside a clipping box: when the items wrap, the separator of an item
 * that starts a line falls outside the box, so no line starts or ends with a dangling "·".
 */
export function PostMeta({ post }: { post: Pick<BlogPost, "author" | "date" | "readTime"> }) {
  const items = [
    <span key="author">{post.author}</span>,
    <time key="date" dateTime={post.date}>
      {formatDate(post.date)}
    </time>,
    <span key="read">{post.readTime}</span>,
  ];
  return (
    <div className="overflow-hidden">
      <ul className="-ml-4 flex flex-wrap text-sm text-fg-muted" aria-label="Post details">
        {items.map((item) => (
          <li key={item.key} className="relative whitespace-nowrap pl-4" data-meta-item>
            <span aria-hidden="true" className="absolute left-1.5" data-separator>
              ·
            </span>
            {item}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function CategoryBadge({ category }: { category: string }) {
  return (
    <span className="inline-block rounded-full bg-sky-500/10 px-2.5 py-0.5 text-xs font-medium text-accent">
      {category}
    </span>
  );
}
