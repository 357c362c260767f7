import { describe, expect, it } from "vitest";
import { BLOG_CATEGORIES, filterPosts, relatedPosts } from "./blog";

const posts = [
  { slug: "a", category: "Tutorial" },
  { slug: "b", category: "Technical" },
  { slug: "c", category: "Tutorial" },
] as const;

describe("filterPosts", () => {
  it("has the eight categories of the spec, All first", () => {
    expect(BLOG_CATEGORIES).toEqual([
      "All",
      "Methodology",
      "Announcement",
      "Tutorial",
      "Technical",
      "Guide",
      "Best Practices",
      "Feature Spotlight",
    ]);
  });

  it("returns every post, in order, for All", () => {
    expect(filterPosts(posts, "All").map((p) => p.slug)).toEqual(["a", "b", "c"]);
  });

  it("keeps only matching posts, preserving order (the first is the featured one)", () => {
    expect(filterPosts(posts, "Tutorial").map((p) => p.slug)).toEqual(["a", "c"]);
  });

  it("falls back to all posts when nothing matches", () => {
    expect(filterPosts(posts, "Methodology").map((p) => p.slug)).toEqual(["a", "b", "c"]);
  });
});

describe("relatedPosts", () => {
  const all = [
    { slug: "p1", category: "Guide", comingSoon: false },
    { slug: "p2", category: "Tutorial", comingSoon: false },
    { slug: "p3", category: "Guide", comingSoon: true },
    { slug: "p4", category: "Technical", comingSoon: false },
    { slug: "p5", category: "Guide", comingSoon: false },
    { slug: "p6", category: "Tutorial", comingSoon: false },
  ] as const;

  it("puts the same category first, then the newest others, never the post itself or a coming-soon one", () => {
    expect(relatedPosts(all, "p5").map((post) => post.slug)).toEqual(["p1", "p2", "p4"]);
    expect(relatedPosts(all, "p2").map((post) => post.slug)).toEqual(["p6", "p1", "p4"]);
  });

  it("offers the newest published posts for a post it does not know", () => {
    expect(relatedPosts(all, "nope", 2).map((post) => post.slug)).toEqual(["p1", "p2"]);
  });
});
