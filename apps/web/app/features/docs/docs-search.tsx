import { docHref } from "@flotilla/contracts";
import { FileText, Search } from "lucide-react";
import type MiniSearch from "minisearch";
import { useCallback, useEffect, useId, useRef, useState } from "react";
import { Modal } from "../../components/modal";
import { queryTerm, SEARCH_INDEX_PATH, SEARCH_OPTIONS, type SearchDocument } from "./search-index";
import { isSearchShortcut, useShortcutHint } from "./shortcut-hint";

type Index = MiniSearch<SearchDocument>;
interface Hit {
  id: string;
  slug: string;
  page: string;
  heading: string;
  text: string;
}

let indexPromise: Promise<Index> | null = null;
/** The index and MiniSearch itself load on first use only. */
function loadIndex(): Promise<Index> {
  indexPromise ??= Promise.all([import("minisearch"), fetch(SEARCH_INDEX_PATH).then((r) => r.text())])
    .then(([module, json]) => module.default.loadJSON<SearchDocument>(json, SEARCH_OPTIONS as never))
    .catch((error) => {
      indexPromise = null;
      throw error;
    });
  return indexPromise;
}

const SNIPPET_LENGTH = 140;
const SNIPPET_LEAD = 40;

/**
 * The part of a section's text around the first word of the query, cut at word boundaries (never mid-word), with
 * an ellipsis where it was cut.
 */
export function snippet(text: string, query: string): string {
  const word = query.trim().split(/\s+/).map(queryTerm).find(Boolean) ?? "";
  const at = word ? text.toLowerCase().indexOf(word) : -1;
  let start = Math.max(0, at - SNIPPET_LEAD);
  if (start > 0) {
    const space = text.lastIndexOf(" ", start);
    start = space < 0 ? 0 : space + 1;
  }
  let end = Math.min(text.length, start + SNIPPET_LENGTH);
  if (end < text.length) {
    const space = text.lastIndexOf(" ", end);
    if (space > start) end = space;
  }
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}

/** `text` split into plain parts and the parts that match a word of the query (case-insensitive). */
export function highlight(text: string, query: string): { text: string; match: boolean }[] {
  const words = query
    .trim()
    .split(/\s+/)
    .filter((word) => word.length > 1 && queryTerm(word) !== null)
    .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (words.length === 0) return [{ text, match: false }];
  // Split on a capturing group: the matches are the odd parts.
  return text
    .split(new RegExp(`(${words.join("|")})`, "i"))
    .map((part, index) => ({ text: part, match: index % 2 === 1 }))
    .filter((part) => part.text !== "");
}

function Highlighted({ text, query }: { text: string; query: string }) {
  return (
    <>
      {highlight(text, query).map((part, index) =>
        part.match ? (
          <mark key={index} className="rounded-sm bg-sky-500/20 px-0.5 text-inherit">
            {part.text}
          </mark>
        ) : (
          part.text
        ),
      )}
    </>
  );
}

/** Ctrl/⌘ K or "/" (outside a text field) opens the search. */
export function useDocsSearchShortcut(open: () => void) {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (isSearchShortcut(event)) {
        event.preventDefault();
        open();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [open]);
}

export function DocsSearchButton({ onOpen }: { onOpen: () => void }) {
  const hint = useShortcutHint();
  return (
    <button
      type="button"
      onClick={onOpen}
      data-island="opener"
      data-opens="search"
      className="flex w-full items-center gap-2 rounded-lg border border-border bg-bg-elevated px-3 py-2 text-sm text-fg-muted hover:border-sky-500/50"
      aria-keyshortcuts="Control+K Meta+K /"
    >
      <Search className="size-4" aria-hidden="true" />
      <span className="flex-1 text-left">Search docs</span>
      {/* Filled in after load (React, or the search-shortcut island): the prerendered page cannot know the platform. */}
      <kbd
        hidden={!hint}
        className="rounded border border-border px-1.5 font-mono text-[11px]"
        data-testid="search-shortcut"
        data-shortcut-hint
      >
        {hint}
      </kbd>
    </button>
  );
}

export interface DocsSearchDialogProps {
  open: boolean;
  onClose: () => void;
}

/** The dialog itself; `navigate` goes to a result (the router's in the portal, a page load on a content page). */
export function DocsSearchDialogView({
  open,
  onClose,
  navigate,
}: DocsSearchDialogProps & { navigate: (href: string) => void }) {
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<Hit[]>([]);
  const [active, setActive] = useState(0);
  const [state, setState] = useState<"idle" | "loading" | "error">("idle");
  const listId = useId();
  const inputRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!open) return;
    inputRef.current?.focus();
    if (!indexPromise) setState("loading");
    loadIndex().then(
      () => setState("idle"),
      () => setState("error"),
    );
  }, [open]);

  useEffect(() => {
    let cancelled = false;
    if (!query.trim()) {
      setHits([]);
      return;
    }
    loadIndex().then(
      (index) => {
        if (cancelled) return;
        setHits(index.search(query).slice(0, 8) as unknown as Hit[]);
        setActive(0);
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [query]);

  const close = useCallback(() => {
    onClose();
    setQuery("");
  }, [onClose]);
  const go = (hit: Hit) => {
    close();
    navigate(`${docHref(hit.slug)}${hit.id.includes("#") && hit.id.split("#")[1] ? `#${hit.id.split("#")[1]}` : ""}`);
  };

  return (
    <Modal open={open} onClose={close} title="Search the docs" hideTitle className="max-w-xl self-start sm:mt-24">
      <div className="flex items-center gap-2 border-b border-border pb-3 pr-10">
        <Search className="size-5 text-fg-muted" aria-hidden="true" />
        {/* type="text", not "search": the native clear button sat beside the dialog's close button, and Escape
            cleared the text instead of closing the dialog. */}
        <input
          ref={inputRef}
          type="text"
          inputMode="search"
          enterKeyHint="search"
          autoComplete="off"
          spellCheck={false}
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "ArrowDown") {
              event.preventDefault();
              setActive((i) => Math.min(i + 1, hits.length - 1));
            } else if (event.key === "ArrowUp") {
              event.preventDefault();
              setActive((i) => Math.max(i - 1, 0));
            } else if (event.key === "Enter" && hits[active]) {
              event.preventDefault();
              go(hits[active]);
            }
          }}
          placeholder="Search agents, worktrees, memory…"
          aria-label="Search the docs"
          role="combobox"
          aria-expanded={hits.length > 0}
          aria-controls={listId}
          aria-activedescendant={hits[active] ? `${listId}-${active}` : undefined}
          className="w-full bg-transparent py-1 text-base outline-none placeholder:text-fg-muted"
        />
      </div>
      <div className="mt-3 min-h-24" aria-live="polite">
        {state === "loading" && <p className="text-sm text-fg-muted">Loading the search index…</p>}
        {state === "error" && <p className="text-sm text-rose-600">The search index could not be loaded. Try again.</p>}
        {state === "idle" && query.trim() !== "" && hits.length === 0 && (
          <p className="text-sm text-fg-muted">No results for “{query}”.</p>
        )}
        <div id={listId} role="listbox" aria-label="Results" className="space-y-1">
          {hits.map((hit, i) => (
            <div
              key={hit.id}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              tabIndex={-1}
              onMouseEnter={() => setActive(i)}
              onClick={() => go(hit)}
              onKeyDown={(event) => event.key === "Enter" && go(hit)}
              className={`flex cursor-pointer gap-3 rounded-lg px-3 py-2.5 ${i === active ? "bg-bg-subtle" : ""}`}
            >
              <FileText className="mt-0.5 size-4 shrink-0 text-fg-muted" aria-hidden="true" />
              <span className="min-w-0">
                <span className="block text-sm font-medium">
                  <Highlighted text={hit.page} query={query} />
                  {hit.heading && (
                    <span className="text-fg-muted">
                      {" "}
                      › <Highlighted text={hit.heading} query={query} />
                    </span>
                  )}
                </span>
                <span className="mt-0.5 block text-xs leading-5 text-fg-muted line-clamp-2">
                  <Highlighted text={snippet(hit.text, query)} query={query} />
                </span>
              </span>
            </div>
          ))}
        </div>
      </div>
    </Modal>
  );
}
