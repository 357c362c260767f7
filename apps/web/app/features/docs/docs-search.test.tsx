import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { DocsSearchDialogView, highlight, snippet } from "./docs-search";

const TEXT =
  "Agents share what they learn through memory. Each memory entry has an embedding with 384 dimensions, computed locally, and a temporal weight that fades old entries.";

describe("docs search results", () => {
  it("cut snippets at word boundaries, never mid-word", () => {
    const cut = snippet(TEXT, "temporal");
    expect(cut.startsWith("…")).toBe(true);
    // Every word of the snippet is a whole word of the text.
    const words = cut.replace(/…/g, "").trim().split(/\s+/);
    for (const word of words) expect(TEXT.split(/\s+/)).toContain(word);
    expect(cut).toContain("temporal");
  });

  it("highlight each word of the query where it matches", () => {
    expect(highlight("Memory architecture and memory", "memory ARCH")).toEqual([
      { text: "Memory", match: true },
      { text: " ", match: false },
      { text: "arch", match: true },
      { text: "itecture and ", match: false },
      { text: "memory", match: true },
    ]);
    expect(highlight("a.b (c)", "(c)")).toEqual([
      { text: "a.b ", match: false },
      { text: "(c)", match: true },
    ]);
  });

  it("is a plain text field: no native clear button beside the close button, the first Escape closes", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(() => new Promise(() => {})),
    );
    const onClose = vi.fn();
    render(<DocsSearchDialogView open onClose={onClose} navigate={vi.fn()} />);
    const field = screen.getByRole("combobox", { name: "Search the docs" });
    // A type="search" field draws its own ×, and the browser spends the first Escape on clearing it.
    expect(field).toHaveAttribute("type", "text");
    await userEvent.type(field, "memory{Escape}");
    expect(onClose).toHaveBeenCalledOnce();
    vi.unstubAllGlobals();
  });
});
