import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs build script without type declarations
import { unicodeRange } from "./font-ranges.mjs";

describe("the self-hosted Inter subset", () => {
  const css = readFileSync(join(__dirname, "../app/app.css"), "utf8");
  const face = css.slice(css.indexOf('font-family: "Inter";'), css.indexOf("}", css.indexOf('font-family: "Inter";')));

  it("declares exactly the characters the subset holds", () => {
    const declared = /unicode-range:([^;]+);/.exec(face)?.[1]?.replace(/\s+/g, " ").trim();
    expect(declared).toBe(unicodeRange());
  });

  it("never blocks the first paint and falls back to a metric-matched face", () => {
    expect(face).toContain("font-display: swap");
    expect(css).toMatch(/--font-sans:\s*Inter, "Inter Fallback",/);
    expect(css).toMatch(/font-family: "Inter Fallback";[^}]*size-adjust: [\d.]+%/);
  });
});
