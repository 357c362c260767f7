/**
 * The release notes at build time (decision 0063): read from the API's public endpoint when it answers within two
 * seconds (RELEASE_NOTES_API, default the local API on 127.0.0.1:3000), else none — the page then says so, and its
 * island fetches them in the reader's browser.
 */
import { RELEASE_PATHS, ReleaseNotesAnswerSchema } from "@flotilla/contracts/releases";
import { renderMarkdown } from "../content/markdown.server";
import type { RenderedNote } from "./release-notes";

export const BUILD_FETCH_TIMEOUT_MS = 2_000;

export async function fetchReleaseNotes(
  origin = process.env.RELEASE_NOTES_API ?? "http://127.0.0.1:3000",
  fetchImpl: typeof fetch = fetch,
): Promise<RenderedNote[]> {
  let json: unknown;
  try {
    const response = await fetchImpl(`${origin.replace(/\/+$/, "")}${RELEASE_PATHS.releaseNotes}?limit=100`, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(BUILD_FETCH_TIMEOUT_MS),
    });
    if (!response.ok) return [];
    json = await response.json();
  } catch {
    return [];
  }
  const parsed = ReleaseNotesAnswerSchema.safeParse(json);
  if (!parsed.success) return [];
  return Promise.all(
    parsed.data.data.map(async (note) => ({
      version: note.version,
      channel: note.channel,
      published_at: note.published_at,
      platforms: note.platforms,
      html: (await renderMarkdown(note.notes)).html,
    })),
  );
}
