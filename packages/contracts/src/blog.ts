/** Spec sections 2 and 3: blog categories and the shape of a post. */
export const BLOG_CATEGORIES = [
  "All",
  "Methodology",
  "Announcement",
  "Tutorial",
  "Technical",
  "Guide",
  "Best Practices",
  "Feature Spotlight",
] as const;
export type BlogCategory = (typeof BLOG_CATEGORIES)[number];

export interface BlogPost {
  id: number;
  slug: string;
  title: string;
  excerpt: string;
  author: string;
  /** ISO date, e.g. 2025-06-12. */
  date: string;
  /** e.g. "8 min read". */
  readTime: string;
  category: Exclude<BlogCategory, "All">;
  image: string;
  /** Coming-soon posts are listed but their pages show only a heading. */
  comingSoon: boolean;
}

/** The featured post is the first of the filtered list; an empty filter falls back to all posts. */
export function filterPosts<T extends Pick<BlogPost, "category">>(posts: readonly T[], category: BlogCategory): T[] {
  if (category === "All") return [...posts];
  const matching = posts.filter((post) => post.category === category);
  return matching.length > 0 ? matching : [...posts];
}

/**
 * The posts offered at the end of an article: published ones only, the article's own category first, then the
 * rest, each in the order given (newest first); never the article itself.
 */
export function relatedPosts<T extends Pick<BlogPost, "slug" | "category" | "comingSoon">>(
  posts: readonly T[],
  slug: string,
  count = 3,
): T[] {
  const current = posts.find((post) => post.slug === slug);
  const others = posts.filter((post) => post.slug !== slug && !post.comingSoon);
  const same = others.filter((post) => post.category === current?.category);
  const rest = others.filter((post) => post.category !== current?.category);
  return [...same, ...rest].slice(0, count);
}
