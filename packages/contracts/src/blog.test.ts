import { describe, expect, it } from "vitest";
import { BLOG_CATEGORIES, filterPosts } from "./blog";

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
