import { describe, expect, it } from "vitest";
import { responsiveSrcSet } from "./responsive-image";

describe("responsiveSrcSet", () => {
  it("offers the phone-sized copy of a docs screenshot and of a blog cover", () => {
    expect(responsiveSrcSet("/images/docs/task-board.webp")).toBe(
      "/images/docs/task-board-800w.webp 800w, /images/docs/task-board.webp 1600w",
    );
    expect(responsiveSrcSet("/images/blog/pricing-philosophy.webp")).toBe(
      "/images/blog/pricing-philosophy-800w.webp 800w, /images/blog/pricing-philosophy.webp 1200w",
    );
  });

  it("leaves other images alone", () => {
    expect(responsiveSrcSet("/images/og-default.png")).toBeUndefined();
    expect(responsiveSrcSet("https://example.com/images/blog/x.webp")).toBeUndefined();
    expect(responsiveSrcSet("/images/screenshot-coming-soon.svg")).toBeUndefined();
  });
});
