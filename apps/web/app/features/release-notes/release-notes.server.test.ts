// @vitest-environment node
import { describe, expect, it } from "vitest";
import { fetchReleaseNotes } from "./release-notes.server";

const answer = (data: unknown) => async () =>
  new Response(JSON.stringify({ success: true, data }), {
    status: 200,
    headers: { "content-type": "application/json" },
  });

const NOTE = {
  version: "1.4.0",
  channel: "stable",
  published_at: "2026-11-20T10:00:00.000Z",
  platforms: ["macos", "linux"],
  notes: "## Fixed\n\n- Worktrees are cleaned up.\n\n<script>alert(1)</script><img src=x onerror=alert(1)>",
};

describe("release notes at build time", () => {
  it("renders each release's Markdown as docs pages do, and drops raw HTML", async () => {
    const notes = await fetchReleaseNotes("http://api.test", answer([NOTE]) as typeof fetch);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ version: "1.4.0", channel: "stable", platforms: ["macos", "linux"] });
    expect(notes[0]?.html).toContain("<h2");
    expect(notes[0]?.html).toContain("<li>Worktrees are cleaned up.</li>");
    expect(notes[0]?.html).not.toMatch(/<script|onerror/);
  });

  it("builds an empty page when the API is unreachable, slow to fail, or answers something else", async () => {
    const refused = (async () => {
      throw new TypeError("fetch failed");
    }) as typeof fetch;
    expect(await fetchReleaseNotes("http://api.test", refused)).toEqual([]);
    expect(
      await fetchReleaseNotes("http://api.test", (async () => new Response("<html>", { status: 200 })) as typeof fetch),
    ).toEqual([]);
    expect(await fetchReleaseNotes("http://api.test", answer([{ version: 1 }]) as typeof fetch)).toEqual([]);
    expect(
      await fetchReleaseNotes("http://api.test", (async () => new Response("", { status: 503 })) as typeof fetch),
    ).toEqual([]);
  });
});
