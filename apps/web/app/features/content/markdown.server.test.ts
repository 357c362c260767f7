// @vitest-environment node
// Node, not jsdom: Shiki's WebAssembly engine does not load under jsdom.
import { beforeAll, describe, expect, it } from "vitest";
import { renderMarkdown } from "./markdown.server";

const ARTICLE = `Opening paragraph.

## First part

Text of the first part.

### A detail

More text.

## Second part

- a list item
`;

describe("renderMarkdown", () => {
  // The first call loads Shiki's grammars and WebAssembly engine: seconds on a busy machine.
  beforeAll(() => renderMarkdown("warm-up"), 60_000);

  it("groups an article's parts by h2, leaving the opening outside, when asked", async () => {
    const { html } = await renderMarkdown(ARTICLE, { sections: true });
    expect(html.match(/<section>/g)).toHaveLength(2);
    expect(html.trim()).toMatch(
      /^<p>Opening paragraph\.<\/p>\s*<section><h2 id="first-part">First part<\/h2>\s*<p>Text of the first part\.<\/p>\s*<h3 id="a-detail">A detail<\/h3>\s*<p>More text\.<\/p>\s*<\/section><section><h2 id="second-part">Second part<\/h2>\s*<ul>\s*<li>a list item<\/li>\s*<\/ul>\s*<\/section>$/,
    );
  });

  it("keeps the outline and the search sections the same with or without the grouping", async () => {
    const grouped = await renderMarkdown(ARTICLE, { sections: true });
    const flat = await renderMarkdown(ARTICLE);
    expect(grouped.headings).toEqual(flat.headings);
    expect(grouped.sections).toEqual(flat.sections);
    expect(grouped.sections.map((section) => section.id)).toEqual(["", "first-part", "a-detail", "second-part"]);
  });

  it("leaves a fragment without h2 (an API operation's description) unwrapped", async () => {
    const { html } = await renderMarkdown("Only **one** paragraph.", { sections: true });
    expect(html).not.toContain("<section");
    expect((await renderMarkdown(ARTICLE)).html).not.toContain("<section");
  });
});
