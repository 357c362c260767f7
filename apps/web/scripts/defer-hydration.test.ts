import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs build script without type declarations
import { deferHydration, INERT_MODULE_ID } from "./defer-hydration.mjs";

const PAGE = [
  "<!DOCTYPE html><html><head>",
  '<link rel="stylesheet" href="/assets/app.css" data-precedence="default"/>',
  '<link rel="modulepreload" href="/assets/manifest.js"/>',
  '<link rel="modulepreload" href="/assets/entry.client.js"/>',
  "</head><body><main>Hello</main>",
  "<script>window.__reactRouterContext = {};</script>",
  '<script type="module" async="">import "/assets/manifest.js";\nimport("/assets/entry.client.js");</script>',
  "</body></html>",
].join("");

describe("deferHydration", () => {
  const out = deferHydration(PAGE) as string;

  it("removes the head's module preloads and keeps the stylesheet", () => {
    expect(out.slice(0, out.indexOf("</head>"))).not.toContain("modulepreload");
    expect(out).toContain('<link rel="stylesheet" href="/assets/app.css"');
  });

  it("keeps the app module, inert and byte for byte (its CSP hash must still match)", () => {
    expect(out).not.toContain('<script type="module"');
    expect(out).toContain(
      `<script type="text/x-module" id="${INERT_MODULE_ID}">import "/assets/manifest.js";\nimport("/assets/entry.client.js");</script>`,
    );
  });

  it("starts it at load or first interaction, preloading the same modules", () => {
    const start = out.slice(out.indexOf(`</script><script>(function(){`) + "</script><script>".length);
    expect(start).toContain('["/assets/manifest.js","/assets/entry.client.js"]');
    expect(start).toContain('addEventListener("load",afterPaint');
    expect(start).toContain("requestAnimationFrame(function(){setTimeout(start,0)})");
    expect(start).toContain('"pointerdown","keydown","touchstart","focusin"');
    expect(out).toContain("<script>window.__reactRouterContext = {};</script>");
  });

  it("leaves a page without an app module alone", () => {
    expect(deferHydration("<html><body>static</body></html>")).toBeNull();
  });
});
