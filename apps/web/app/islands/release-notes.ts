/**
 * The release notes page (decision 0063) is prerendered with the notes the API had at build time. Once idle, this
 * island asks the public endpoint and adds, above them, the releases published since — their notes as plain text
 * (no Markdown renderer is shipped to the browser; the next build renders them).
 */
import { addNewerNotes, PUBLIC_NOTES_PATH, readNotes } from "../features/release-notes/release-notes";
import { island, islandsNamed } from "./runtime";

island("release-notes", () => {
  const [root] = islandsNamed("release-notes");
  if (!root) return;
  const run = () =>
    fetch(`${PUBLIC_NOTES_PATH}?limit=100`, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(5_000),
    })
      .then((response) => (response.ok ? response.json() : null))
      .then((json) => addNewerNotes(root, readNotes(json)))
      .catch(() => {
        // No API (a static host, offline): the prerendered notes stand.
      });
  if ("requestIdleCallback" in window) requestIdleCallback(run, { timeout: 2_000 });
  else setTimeout(run, 0);
});
