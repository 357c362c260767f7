/**
 * The home page's platform cards (issue 36): prerendered with the spec's text, they switch to "Available / Get it"
 * for each platform the operator has opened downloads for, read from the public endpoint once the page is idle.
 * If the API cannot be reached, the cards stay as prerendered.
 */
import { applyOpenPlatforms, fetchOpenPlatforms } from "../features/downloads/open-platforms";
import { island, islandsNamed } from "./runtime";

island("platforms", () => {
  const lists = islandsNamed("platforms");
  if (lists.length === 0) return;
  const run = () =>
    fetchOpenPlatforms()
      .then((open) => {
        for (const list of lists) applyOpenPlatforms(list, open);
      })
      .catch(() => {
        // Offline or no API: the prerendered cards are right for closed platforms.
      });
  if ("requestIdleCallback" in window) requestIdleCallback(run, { timeout: 2_000 });
  else setTimeout(run, 0);
});
