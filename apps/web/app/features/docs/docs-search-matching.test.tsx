import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import MiniSearch from "minisearch";
import { describe, expect, it, vi } from "vitest";
import { DocsSearchDialogView } from "./docs-search";
import { SEARCH_OPTIONS, type SearchDocument } from "./search-index";

/**
 * What a search finds, on sections like the docs' own. Its own file: docs-search.tsx keeps the loaded index for the
 * page's lifetime, and the other file's dialog test leaves it loading for ever.
 */
describe("docs search dialog", () => {
  it("shows 'No results' when no section has every word, rather than a section that shares a look-alike", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => new Response(JSON.stringify(indexOf(SECTIONS)))),
    );
    render(<DocsSearchDialogView open onClose={vi.fn()} navigate={vi.fn()} />);
    const field = screen.getByRole("combobox", { name: "Search the docs" });
    await userEvent.type(field, "kubernetes helm");
    expect(await screen.findByText("No results for “kubernetes helm”.")).toBeInTheDocument();
    expect(screen.queryByRole("option")).not.toBeInTheDocument();
    await userEvent.clear(field);
    await userEvent.type(field, "how do I pause a task");
    expect(await screen.findByRole("option")).toHaveTextContent("Tasks › Pause");
    vi.unstubAllGlobals();
  });
});

const SECTIONS: SearchDocument[] = [
  {
    id: "memory-architecture#storage",
    slug: "memory-architecture",
    page: "Memory Architecture",
    heading: "Storage",
    text: "Memories are held in an encrypted local store.",
  },
  {
    id: "tasks#pause",
    slug: "tasks",
    page: "Tasks",
    heading: "Pause",
    text: "Pause a running task to look at what the agent did so far.",
  },
  {
    id: "mcp-servers#custom-servers",
    slug: "mcp-servers",
    page: "MCP Servers",
    heading: "Custom servers",
    text: "A map of servers, each with a command, args and env.",
  },
  {
    id: "embeddings#the-local-model",
    slug: "embeddings",
    page: "Local Embeddings",
    heading: "The local model",
    text: "Embeddings have 384 dimensions and the model is about 120MB.",
  },
];

function indexOf(documents: SearchDocument[]) {
  const index = new MiniSearch<SearchDocument>(SEARCH_OPTIONS as never);
  index.addAll(documents);
  return index;
}

describe("docs search matching", () => {
  const search = (query: string) =>
    indexOf(SECTIONS)
      .search(query)
      .map((hit) => hit.id);

  it("finds nothing when a word of the query matches nowhere", () => {
    expect(search("kubernetes helm")).toEqual([]);
    expect(search("kubernetes")).toEqual([]);
  });

  it("does not stretch a short word into another one ('helm' is not 'held', 'mcp' is not 'map')", () => {
    expect(search("helm")).toEqual([]);
    expect(search("mcp")).toEqual(["mcp-servers#custom-servers"]);
  });

  it("finds a section that has every word, by the start of a word or with one typo in a long one", () => {
    expect(search("local embed dimensions")).toEqual(["embeddings#the-local-model"]);
    expect(search("embedings")).toEqual(["embeddings#the-local-model"]);
    expect(search("pause task")).toEqual(["tasks#pause"]);
  });

  it("reads a question for its words: 'how do I pause a task' is 'pause task'", () => {
    expect(search("how do I pause a task")).toEqual(["tasks#pause"]);
    expect(search("the")).toEqual([]);
  });
});
