import { describe, expect, it } from "vitest";
import { formatBytes, progressBar } from "../src/progress";

function sink(isTTY: boolean) {
  const writes: string[] = [];
  return { stream: { isTTY, columns: 100, write: (chunk: string) => writes.push(chunk) }, writes };
}

describe("progressBar", () => {
  it("on a terminal: one bar redrawn in place, ending with a newline", () => {
    const { stream, writes } = sink(true);
    const bar = progressBar(stream, "Downloading a.dmg");
    bar.update(0, 4096);
    bar.update(4096, 4096);
    bar.update(4096, 4096);
    expect(writes.every((w) => w.startsWith("\r") || w === "\n")).toBe(true);
    expect(writes.at(-2)).toMatch(/\[#+\] 100 % 4\.0 KB of 4\.0 KB/);
    expect(writes.at(-1)).toBe("\n");
    expect(writes.filter((w) => w === "\n")).toHaveLength(1);
  });

  it("elsewhere (CI logs, pipes): plain lines, one per quarter", () => {
    const { stream, writes } = sink(false);
    const bar = progressBar(stream, "Uploading macos/universal");
    for (let sent = 0; sent <= 1000; sent += 10) bar.update(sent, 1000);
    expect(writes).toEqual([
      "Uploading macos/universal: 0 % (0 B of 1000 B)\n",
      "Uploading macos/universal: 25 % (250 B of 1000 B)\n",
      "Uploading macos/universal: 50 % (500 B of 1000 B)\n",
      "Uploading macos/universal: 75 % (750 B of 1000 B)\n",
      "Uploading macos/universal: 100 % (1000 B of 1000 B)\n",
    ]);
    expect(writes.some((w) => w.includes("\r") || w.includes("\u001b"))).toBe(false);
  });

  it("formats sizes", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(300 * 1024 * 1024)).toBe("300 MB");
  });
});
