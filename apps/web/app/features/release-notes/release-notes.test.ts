import { RELEASE_PATHS } from "@flotilla/contracts/releases";
import { describe, expect, it } from "vitest";
import { addNewerNotes, PUBLIC_NOTES_PATH, readNotes, renderNotes } from "./release-notes";

const NOTE = {
  version: "1.4.0",
  channel: "stable",
  published_at: "2026-11-20T10:00:00.000Z",
  platforms: ["macos", "linux"],
  notes: "## Fixed\n\n- Worktrees are cleaned up.\n\n<script>alert(1)</script><img src=x onerror=alert(1)>",
};

describe("the release-notes island", () => {
  it("asks the contracts' public notes path", () => {
    expect(PUBLIC_NOTES_PATH).toBe(RELEASE_PATHS.releaseNotes);
  });

  function page(newest: string, versions: string[]) {
    const root = document.createElement("div");
    root.dataset.newest = newest;
    root.dataset.versions = versions.join(" ");
    root.innerHTML = versions.length
      ? versions.map((version) => `<section data-version="${version}"></section>`).join("")
      : "<p data-release-notes-empty>No release has been published yet.</p>";
    return root;
  }

  it("adds the releases published since the build above the others, as text", () => {
    const root = page(NOTE.published_at, ["1.4.0"]);
    const newer = {
      ...NOTE,
      version: "1.5.0-beta.1",
      channel: "beta",
      published_at: "2026-11-27T10:00:00.000Z",
      platforms: ["macos"],
    };
    expect(addNewerNotes(root, readNotes({ success: true, data: [newer, NOTE] }))).toBe(1);
    const first = root.querySelector("section");
    expect(first?.dataset.version).toBe("1.5.0-beta.1");
    expect(first?.querySelector("h2")?.textContent).toBe("1.5.0-beta.1 (beta)");
    expect(first?.textContent).toContain("November 27, 2026 · macOS");
    // A little Markdown is rendered; raw HTML stays text: nothing in it becomes an element.
    expect(first?.querySelector("h3")?.textContent).toBe("Fixed");
    expect(first?.querySelector("ul li")?.textContent).toBe("Worktrees are cleaned up.");
    expect(first?.querySelector("script, img")).toBeNull();
    expect(first?.textContent).toContain("<script>alert(1)</script>");
    // Again: nothing more to add.
    root.dataset.versions = "1.5.0-beta.1 1.4.0";
    root.dataset.newest = newer.published_at;
    expect(addNewerNotes(root, readNotes({ success: true, data: [newer, NOTE] }))).toBe(0);
  });

  it("renders code, bold, links to http(s) or site paths only, and ordered lists", () => {
    const root = document.createElement("div");
    root.append(
      renderNotes(
        "Use **care** and `flotilla run`.\nSee [docs](/docs) or [evil](javascript:alert(1)).\n\n1. one\n2. two\n\n```bash\n<b>x</b>\n```",
      ),
    );
    expect(root.querySelector("strong")?.textContent).toBe("care");
    expect(root.querySelector("p code")?.textContent).toBe("flotilla run");
    expect([...root.querySelectorAll("a")].map((a) => a.getAttribute("href"))).toEqual(["/docs"]);
    expect(root.textContent).toContain("[evil](javascript:alert(1))");
    expect([...root.querySelectorAll("ol li")].map((li) => li.textContent)).toEqual(["one", "two"]);
    expect(root.querySelector("pre code")?.textContent).toBe("<b>x</b>");
    expect(root.querySelector("b")).toBeNull();
  });

  it("replaces the empty page's sentence, and ignores a forged answer", () => {
    const root = page("", []);
    expect(addNewerNotes(root, readNotes({ success: true, data: [{ version: "9.9.9" }, "x", null] }))).toBe(0);
    expect(root.querySelector("[data-release-notes-empty]")).not.toBeNull();
    expect(addNewerNotes(root, readNotes({ success: true, data: [NOTE] }))).toBe(1);
    expect(root.querySelector("[data-release-notes-empty]")).toBeNull();
    expect(readNotes({ success: false, data: [NOTE] })).toEqual([]);
  });
});
