import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs build script without type declarations
import { addIslands, dialogChunks, islandEntries, islandsNamed, islandsOf } from "./add-islands.mjs";

const VITE_MANIFEST = {
  "_runtime-1.js": { file: "assets/islands/runtime-1.js" },
  "_storage-2.js": { file: "assets/islands/storage-2.js", imports: ["_runtime-1.js"] },
  "app/islands/header.ts": { file: "assets/islands/header-3.js", isEntry: true, imports: ["_storage-2.js"] },
  "app/islands/opener.ts": {
    file: "assets/islands/opener-4.js",
    isEntry: true,
    imports: ["_runtime-1.js"],
    dynamicImports: ["app/islands/react/signup.tsx"],
  },
  "app/islands/react/signup.tsx": { file: "assets/islands/signup-5.js", imports: ["_react-6.js"] },
  "_react-6.js": { file: "assets/islands/react-6.js" },
};

const page = (body: string) =>
  `<!DOCTYPE html><html lang="en"><head><title>t</title></head><body>${body}</body></html>`;

describe("islands of a prerendered content page", () => {
  const entries = islandEntries(VITE_MANIFEST);

  it("knows each entry's file and its static imports, transitively; never what it imports on demand", () => {
    expect(entries).toEqual({
      header: {
        file: "/assets/islands/header-3.js",
        imports: ["/assets/islands/storage-2.js", "/assets/islands/runtime-1.js"],
      },
      opener: { file: "/assets/islands/opener-4.js", imports: ["/assets/islands/runtime-1.js"] },
    });
  });

  it("lists one module per island the markup names, its shared chunks once, loaded after the first paint", () => {
    const html = addIslands(
      page('<header data-island="header"></header><button data-island="opener"></button><a data-island="opener"></a>'),
      entries,
    );
    expect(islandsNamed(html)).toEqual(["header", "opener"]);
    expect(islandsOf(html)).toEqual({
      entries: [
        { name: "header", file: "/assets/islands/header-3.js" },
        { name: "opener", file: "/assets/islands/opener-4.js" },
      ],
      preload: ["/assets/islands/storage-2.js", "/assets/islands/runtime-1.js"],
    });
    expect(html).toContain('<html data-islands="pending" lang="en">');
    // Nothing in <head> competes with the stylesheet for the first paint.
    expect(html.slice(0, html.indexOf("</head>"))).not.toMatch(/islands\//);
    // Started on the first contentful paint (paint timing), with a timer in case it never comes.
    expect(html).toMatch(/first-contentful-paint/);
    expect(html).toMatch(/setTimeout\(go,3000\)/);
    expect(html).not.toContain("signup-5.js");
    expect(html).not.toContain("react-6.js");
  });

  it("lists the files of the dialogs a page opens, beyond what loads up front, for the opener's idle modulepreload", () => {
    const dialogs = dialogChunks(VITE_MANIFEST);
    expect(dialogs).toEqual({ signup: ["/assets/islands/signup-5.js", "/assets/islands/react-6.js"] });
    const opens = addIslands(page('<button data-island="opener" data-opens="signup"></button>'), entries, dialogs);
    expect(islandsOf(opens).dialogs).toEqual(["/assets/islands/signup-5.js", "/assets/islands/react-6.js"]);
    // A page without a signup opener lists none.
    const none = addIslands(page('<button data-island="opener" data-opens="video"></button>'), entries, dialogs);
    expect(islandsOf(none)).not.toHaveProperty("dialogs");
  });

  it("loads nothing for a page without islands", () => {
    expect(addIslands(page("<p>text</p>"), entries)).toBe(page("<p>text</p>"));
  });

  it("leaves the portal's app shell (React Router's runtime) and an already finished page alone", () => {
    expect(addIslands(page("<script>window.__reactRouterContext = {}</script>"), entries)).toBeNull();
    const once = addIslands(page('<header data-island="header"></header>'), entries);
    expect(addIslands(once, entries)).toBeNull();
  });

  it("fails the build on an island nobody built (a typo must not leave a dead button)", () => {
    expect(() => addIslands(page('<div data-island="headr"></div>'), entries)).toThrow(/no island named headr/);
  });
});
