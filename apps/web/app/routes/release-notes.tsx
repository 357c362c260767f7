import { Link } from "react-router";
import { MarkdownArticle } from "../features/content/markdown-article";
import { formatNoteDate, platformList, RELEASE_NOTES_PATH } from "../features/release-notes/release-notes";
import { fetchReleaseNotes } from "../features/release-notes/release-notes.server";
import { seo } from "../lib/seo";
import type { Route } from "./+types/release-notes";

/** Prerendered with the notes the API had at build time; the release-notes island adds any published since. */
export async function loader() {
  return { notes: await fetchReleaseNotes() };
}

export const meta = () =>
  seo({
    title: "Release Notes · Docs",
    description: "What changed in each published release of the desktop app.",
    path: RELEASE_NOTES_PATH,
  });

export default function ReleaseNotesPage({ loaderData }: Route.ComponentProps) {
  const { notes } = loaderData;
  return (
    <div className="py-10">
      <article className="min-w-0 max-w-3xl">
        <nav aria-label="Breadcrumb">
          <ol className="flex flex-wrap items-center gap-1.5 text-sm font-medium text-accent">
            <li>
              <Link to="/docs" className="hover:underline">
                Docs
              </Link>
            </li>
          </ol>
        </nav>
        <h1 className="mt-2 text-3xl font-semibold tracking-tight sm:text-4xl">Release Notes</h1>
        <p className="mt-4 text-lg leading-8 text-fg-muted">What changed in each published release, newest first.</p>
        <div
          className="mt-8 space-y-12"
          data-island="release-notes"
          data-newest={notes[0]?.published_at ?? ""}
          data-versions={notes.map((note) => note.version).join(" ")}
        >
          {notes.length === 0 && (
            <p data-release-notes-empty className="text-fg-muted">
              No release has been published yet.
            </p>
          )}
          {notes.map((note) => (
            <section key={note.version} aria-labelledby={`release-${note.version}`} data-version={note.version}>
              <h2 id={`release-${note.version}`} className="text-2xl font-semibold tracking-tight">
                {note.version}
                {note.channel !== "stable" && (
                  <span className="ml-3 rounded-full bg-bg-subtle px-2.5 py-0.5 align-middle text-xs font-medium text-fg-muted">
                    {note.channel}
                  </span>
                )}
              </h2>
              <p className="mt-1 text-sm text-fg-muted">
                <time dateTime={note.published_at}>{formatNoteDate(note.published_at)}</time>
                {note.platforms.length > 0 && ` · ${platformList(note.platforms)}`}
              </p>
              <MarkdownArticle html={note.html} className="mt-4" />
            </section>
          ))}
        </div>
      </article>
    </div>
  );
}
