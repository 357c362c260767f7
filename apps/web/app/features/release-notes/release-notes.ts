/** The release notes page (issue 36, decision 0063): /docs/release-notes, where the footer's "View Release Notes" leads. */
export const RELEASE_NOTES_PATH = "/docs/release-notes";
/** RELEASE_PATHS.releaseNotes, written out so the island does not ship zod (a test pins it). */
export const PUBLIC_NOTES_PATH = "/api/releases/notes";

export interface RenderedNote {
  version: string;
  channel: string;
  published_at: string;
  platforms: string[];
  /** The notes' Markdown rendered at build time (raw HTML in notes is dropped, as in docs pages). */
  html: string;
}

const PLATFORM_NAMES: Record<string, string> = { macos: "macOS", windows: "Windows", linux: "Linux" };
export const platformList = (platforms: readonly string[]) =>
  platforms.map((platform) => PLATFORM_NAMES[platform] ?? platform).join(", ");

/** "November 28, 2026" in UTC (the page is the same for every reader). */
export function formatNoteDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  return date.toLocaleDateString("en-US", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });
}

/** The public endpoint's answer, checked by hand (no zod in the island). */
export interface PublishedNote {
  version: string;
  channel: string;
  published_at: string;
  notes: string;
  platforms: string[];
}

export function readNotes(json: unknown): PublishedNote[] {
  const data = (json as { success?: unknown; data?: unknown } | null)?.data;
  if ((json as { success?: unknown } | null)?.success !== true || !Array.isArray(data)) return [];
  return data.filter(
    (note): note is PublishedNote =>
      typeof note?.version === "string" &&
      typeof note.channel === "string" &&
      typeof note.published_at === "string" &&
      typeof note.notes === "string" &&
      Array.isArray(note.platforms),
  );
}

/** Adds the notes newer than the page's newest (and not on it) at the top of `root`; answers how many. */
export function addNewerNotes(root: HTMLElement, notes: readonly PublishedNote[]): number {
  const newest = Date.parse(root.dataset.newest ?? "") || 0;
  const shown = new Set((root.dataset.versions ?? "").split(" ").filter(Boolean));
  const newer = notes.filter((note) => Date.parse(note.published_at) > newest && !shown.has(note.version));
  for (const note of [...newer].reverse()) {
    const section = document.createElement("section");
    section.dataset.version = note.version;
    const heading = document.createElement("h2");
    heading.className = "text-2xl font-semibold tracking-tight";
    heading.textContent = note.channel === "stable" ? note.version : `${note.version} (${note.channel})`;
    const meta = document.createElement("p");
    meta.className = "mt-1 text-sm text-fg-muted";
    meta.textContent = [formatNoteDate(note.published_at), platformList(note.platforms)].filter(Boolean).join(" · ");
    const body = document.createElement("div");
    body.className = "prose mt-4";
    body.append(renderNotes(note.notes));
    section.append(heading, meta, body);
    root.prepend(section);
  }
  if (newer.length > 0) root.querySelector("[data-release-notes-empty]")?.remove();
  return newer.length;
}

/** `**bold**`, `` `code` `` and [links](https://…) inside a line, as nodes (text stays text: nothing is parsed as HTML). */
function inline(text: string): Node[] {
  const nodes: Node[] = [];
  const pattern = /\*\*([^*]+)\*\*|`([^`]+)`|\[([^\]]+)\]\(((?:https?:\/\/|\/)[^\s)]+)\)/g;
  let last = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (match.index > last) nodes.push(document.createTextNode(text.slice(last, match.index)));
    const [, bold, code, label, href] = match;
    const element = document.createElement(bold ? "strong" : code ? "code" : "a");
    element.textContent = bold ?? code ?? label ?? "";
    if (href) element.setAttribute("href", href);
    nodes.push(element);
    last = match.index + match[0].length;
  }
  if (last < text.length) nodes.push(document.createTextNode(text.slice(last)));
  return nodes;
}

/**
 * The notes of a release published since the build, rendered in the browser from a small subset of Markdown
 * (headings, lists, fenced code, paragraphs, bold, code, links): the next build renders them in full.
 */
export function renderNotes(markdown: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  // Widened on purpose: `close` resets them, which TypeScript's narrowing does not see.
  let list = null as HTMLElement | null;
  let paragraph = null as HTMLElement | null;
  let code = null as string[] | null;
  const close = () => {
    list = null;
    paragraph = null;
  };
  for (const line of markdown.replace(/\r\n?/g, "\n").split("\n")) {
    if (code) {
      if (line.trimStart().startsWith("```")) {
        const pre = document.createElement("pre");
        const element = document.createElement("code");
        element.textContent = code.join("\n");
        pre.append(element);
        fragment.append(pre);
        code = null;
      } else code.push(line);
      continue;
    }
    if (line.trimStart().startsWith("```")) {
      close();
      code = [];
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const item = /^\s*(?:[-*+]|(\d+)[.)])\s+(.*)$/.exec(line);
    if (heading) {
      close();
      const element = document.createElement(heading[1]!.length <= 2 ? "h3" : "h4");
      element.append(...inline(heading[2]!));
      fragment.append(element);
    } else if (item) {
      paragraph = null;
      const kind = item[1] ? "OL" : "UL";
      if (list?.tagName !== kind) {
        list = document.createElement(kind.toLowerCase());
        fragment.append(list);
      }
      const element = document.createElement("li");
      element.append(...inline(item[2]!));
      list.append(element);
    } else if (line.trim() === "") close();
    else {
      list = null;
      if (!paragraph) {
        paragraph = document.createElement("p");
        fragment.append(paragraph);
      } else paragraph.append(document.createTextNode(" "));
      paragraph.append(...inline(line.trim()));
    }
  }
  if (code) {
    const pre = document.createElement("pre");
    pre.textContent = code.join("\n");
    fragment.append(pre);
  }
  return fragment;
}
