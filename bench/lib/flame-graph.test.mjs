import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { flameGraphSvg, foldedStacks, inclusiveShares, writeFlameGraph } from "./flame-graph.mjs";

const frame = (functionName, url = "", lineNumber = 0) => ({ functionName, url, lineNumber, columnNumber: 0 });

/** root → handler → { sign, serialize<T> }; handler → handler (recursion). One sample per ms. */
function profileFile(samples) {
  const profile = {
    nodes: [
      { id: 1, callFrame: frame("(root)"), children: [2] },
      { id: 2, callFrame: frame("handler", "file:///srv/dist/server.js", 9), children: [3, 4, 5] },
      { id: 3, callFrame: frame("signOneShot", "node:internal/crypto/sig", 142) },
      { id: 4, callFrame: frame("serialize<T>", "file:///srv/node_modules/fastify/lib/reply.js", 1085) },
      { id: 5, callFrame: frame("handler", "file:///srv/dist/server.js", 9), children: [6] },
      { id: 6, callFrame: frame("signOneShot", "node:internal/crypto/sig", 142) },
    ],
    startTime: 0,
    endTime: samples.length * 1000,
    samples,
    timeDeltas: samples.map(() => 1000),
  };
  const path = join(mkdtempSync(join(tmpdir(), "flame-")), "test.cpuprofile");
  writeFileSync(path, JSON.stringify(profile));
  return path;
}

describe("flame graph of a .cpuprofile", () => {
  it("folds every sample into its root-first stack, without (root)", () => {
    const stacks = foldedStacks(profileFile([3, 3, 4, 6]));
    expect(Object.fromEntries(stacks)).toEqual({
      "handler dist/server.js:10;signOneShot node:internal/crypto/sig:143": 2,
      "handler dist/server.js:10;serialize<T> fastify/lib/reply.js:1086": 1,
      "handler dist/server.js:10;handler dist/server.js:10;signOneShot node:internal/crypto/sig:143": 1,
    });
  });

  it("keeps only the last seconds asked for (the load, not the start-up)", () => {
    // 4,000 samples of 1 ms: the first 3 s serialize, the last second signs.
    const samples = [...Array(3000).fill(4), ...Array(1000).fill(3)];
    const stacks = foldedStacks(profileFile(samples), 1);
    expect([...stacks.keys()]).toEqual(["handler dist/server.js:10;signOneShot node:internal/crypto/sig:143"]);
  });

  it("counts a function once per sample however deep it recurses (inclusive share)", () => {
    const shares = inclusiveShares(foldedStacks(profileFile([3, 3, 4, 6])));
    expect(shares[0]).toBe("100.0 %  handler dist/server.js:10");
    expect(shares).toContain(" 75.0 %  signOneShot node:internal/crypto/sig:143");
    expect(shares).toContain(" 25.0 %  serialize<T> fastify/lib/reply.js:1086");
  });

  it("draws frames as wide as their samples and escapes names in the SVG", () => {
    const path = profileFile([3, 3, 4, 6]);
    const out = join(tmpdir(), `flame-${process.pid}`);
    writeFlameGraph(path, out, { title: "validate <test>" });
    const svg = readFileSync(`${out}.svg`, "utf8");
    expect(svg).toContain("validate &lt;test&gt;");
    expect(svg).toContain("serialize&lt;T&gt; fastify/lib/reply.js:1086 — 25.00 % (1 samples)");
    expect(svg).not.toContain("serialize<T>");
    // The root spans the whole width; the serializer a quarter of it.
    expect(svg).toMatch(/<title>all — 100.00 % \(4 samples\)<\/title><rect x="0.0" y="\d+" width="1600.0"/);
    expect(svg).toMatch(/serialize&lt;T&gt;[^<]*<\/title><rect x="[\d.]+" y="\d+" width="400.0"/);
    expect(readFileSync(`${out}.folded`, "utf8").trim().split("\n")).toHaveLength(3);
    expect(flameGraphSvg(new Map(), "empty")).toContain("<svg");
  });
});
