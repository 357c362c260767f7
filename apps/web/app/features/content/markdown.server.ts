/**
 * Markdown → HTML at build time: GitHub-flavoured Markdown, heading ids for the outline,
 * code highlighted by Shiki in both themes, copy buttons on code blocks, sized lazy screenshots, and an article's
 * parts grouped by h2 so the browser can skip the ones off screen.
 */
import rehypeShiki from "@shikijs/rehype";
import type { Element, ElementContent, Root } from "hast";
import { toString as hastToString } from "hast-util-to-string";
import rehypeSlug from "rehype-slug";
import rehypeStringify from "rehype-stringify";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import remarkRehype from "remark-rehype";
import { unified } from "unified";
import { visit } from "unist-util-visit";
import { responsiveSrcSet } from "../../lib/responsive-image";
import type { Heading, Section } from "./types";

/**
 * The GitHub themes' comment, string-green, keyword-red and variable-orange miss WCAG AA (4.5:1) on our code
 * background (--bg-subtle #f5f7fb light, #0b1222 dark). Swap them for GitHub Primer's accessible
 * equivalents of the same hue, so the highlighting looks the same and every token stays readable.
 */
const CODE_COLOR_REPLACEMENTS = {
  "github-light": { "#6a737d": "#59636e", "#22863a": "#1a7f37", "#d73a49": "#cf222e", "#e36209": "#bc4c00" },
  "github-dark": { "#6a737d": "#8b949e" },
};

/** Intrinsic sizes of the images the content uses, so the browser reserves their space (no layout shift). */
const IMAGE_SIZES: Record<string, { width: number; height: number }> = {
  "/images/docs/task-board.webp": { width: 1600, height: 1000 },
  "/images/docs/agent-editor.webp": { width: 1600, height: 1000 },
};

function isElement(node: unknown, tagName: string): node is Element {
  return (node as Element)?.type === "element" && (node as Element).tagName === tagName;
}

/** Collects h2/h3 for the on-this-page outline and decorates images, links and code blocks. */
/** "Table: <its header cells>", so each scrollable table names itself. */
function tableLabel(table: Element): string {
  const headers: string[] = [];
  visit(table, "element", (cell) => {
    if (cell.tagName === "th") headers.push(hastToString(cell).trim());
  });
  return `Table: ${headers.filter(Boolean).slice(0, 4).join(", ")}`;
}

function rehypeFlotilla(headings: Heading[]) {
  return () => (tree: Root) => {
    visit(tree, "element", (node, index, parent) => {
      if ((node.tagName === "h2" || node.tagName === "h3") && typeof node.properties.id === "string") {
        headings.push({ depth: node.tagName === "h2" ? 2 : 3, id: node.properties.id, text: hastToString(node) });
      }
      if (node.tagName === "table") {
        // A wide table scrolls sideways inside the column (app.css draws shadows at the edge that has more); a
        // keyboard reaches it too, and a screen reader hears what it is.
        node.properties = { ...node.properties, tabIndex: 0, role: "region", ariaLabel: tableLabel(node) };
      }
      if (node.tagName === "img") {
        const src = String(node.properties.src ?? "");
        const size = IMAGE_SIZES[src];
        const srcSet = responsiveSrcSet(src);
        node.properties = {
          ...node.properties,
          ...(srcSet ? { srcSet, sizes: "(min-width: 48rem) 48rem, 100vw" } : {}),
          loading: "lazy",
          decoding: "async",
          className: ["content-image"],
          ...(size ?? {}),
        };
      }
      if (node.tagName === "a") {
        const href = String(node.properties.href ?? "");
        if (/^https?:\/\//.test(href)) {
          node.properties = { ...node.properties, rel: ["noopener", "noreferrer"], target: "_blank" };
        }
      }
      if (node.tagName === "pre" && parent && typeof index === "number" && !isElement(parent, "div")) {
        const language = String((node.properties.dataLanguage as string | undefined) ?? "");
        const button: ElementContent = {
          type: "element",
          tagName: "button",
          properties: { type: "button", className: ["copy-code"], dataCopy: "", ariaLabel: "Copy code" },
          children: [{ type: "text", value: "Copy" }],
        };
        const label: ElementContent[] = language
          ? [
              {
                type: "element",
                tagName: "span",
                properties: { className: ["code-lang"] },
                children: [{ type: "text", value: language }],
              },
            ]
          : [];
        parent.children[index] = {
          type: "element",
          tagName: "div",
          properties: { className: ["code-block"] },
          children: [...label, button, node],
        };
        return "skip";
      }
      return undefined;
    });
  };
}

export interface RenderedMarkdown {
  html: string;
  headings: Heading[];
  /** Plain text grouped under the nearest heading: the docs search index is built from these. */
  sections: Section[];
}

/** Splits the document's top-level blocks into sections that start at each h2/h3. */
function collectSections(tree: Root, sections: Section[]) {
  let current: Section = { id: "", heading: "", text: "" };
  for (const node of tree.children) {
    if (node.type === "element" && (node.tagName === "h2" || node.tagName === "h3")) {
      if (current.text.trim() || current.heading) sections.push(current);
      current = { id: String(node.properties.id ?? ""), heading: hastToString(node), text: "" };
    } else if (node.type === "element") {
      current.text += ` ${hastToString(node)}`;
    }
  }
  if (current.text.trim() || current.heading) sections.push(current);
  for (const section of sections) section.text = section.text.replace(/\s+/g, " ").trim();
}

/**
 * Wraps each h2 and what follows it, up to the next h2, in a <section>: app.css gives those
 * `content-visibility: auto`, so the first layout of a long article (and its relayout when Inter arrives) covers
 * only what is near the screen. On /docs/agents at 4× CPU that first layout took 264 ms before the first paint.
 */
function wrapSections(tree: Root) {
  const children: Root["children"] = [];
  let section: Element | null = null;
  for (const node of tree.children) {
    if (isElement(node, "h2")) {
      section = { type: "element", tagName: "section", properties: {}, children: [] };
      children.push(section);
    }
    if (section) section.children.push(node as ElementContent);
    else children.push(node);
  }
  tree.children = children;
}

export interface RenderOptions {
  /** Group the article's parts by h2 (app.css lets the browser skip those off screen). For whole articles. */
  sections?: boolean;
}

export async function renderMarkdown(markdown: string, options: RenderOptions = {}): Promise<RenderedMarkdown> {
  const headings: Heading[] = [];
  const sections: Section[] = [];
  const file = await unified()
    .use(remarkParse)
    .use(remarkGfm)
    .use(remarkRehype)
    .use(rehypeSlug)
    .use(rehypeShiki, {
      themes: { light: "github-light", dark: "github-dark" },
      // Each language's grammar is loaded the first time a code block uses it. By default the plugin loads all of
      // Shiki's 200-odd grammars before the first page: most of a fresh build's prerender time.
      langs: [],
      lazy: true,
      defaultColor: "light",
      colorReplacements: CODE_COLOR_REPLACEMENTS,
      addLanguageClass: true,
      transformers: [
        {
          pre(node) {
            node.properties.dataLanguage = this.options.lang;
            node.properties.tabindex = "0";
          },
        },
      ],
    })
    .use(rehypeFlotilla(headings))
    .use(() => (tree: Root) => collectSections(tree, sections))
    .use(() => (tree: Root) => (options.sections ? wrapSections(tree) : undefined))
    .use(rehypeStringify)
    .process(markdown);
  return { html: String(file), headings, sections };
}
