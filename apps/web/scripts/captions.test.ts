import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without type declarations
import { CAPTIONS_FILE, tourCaptions, webVtt } from "../../../scripts/video/captions.mjs";

describe("the tour's captions as WebVTT", () => {
  it("the served file says what the video burns in, cue for cue (regenerate: node scripts/video/captions.mjs)", () => {
    expect(readFileSync(CAPTIONS_FILE, "utf8")).toBe(webVtt());
  });

  it("has the five captions of the tour, in order, without markup", () => {
    const captions = tourCaptions() as [number, number, string][];
    expect(captions).toHaveLength(5);
    expect(captions[0]![2]).toBe("Plan the work — a task board with priorities and dependencies");
    for (const [start, end, text] of captions) {
      expect(end).toBeGreaterThan(start);
      expect(text).not.toMatch(/[<>]/);
    }
    for (let i = 1; i < captions.length; i++) expect(captions[i]![0]).toBeGreaterThanOrEqual(captions[i - 1]![0]);
  });
});
