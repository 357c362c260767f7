// The tour's captions as WebVTT (apps/web/public/video/flotilla-tour.en.vtt), from the same table the video burns
// in (CAPS and the scene times SC in tour.html), so a phone or a screen reader gets text that the picture shows
// too small to read at 375 px. `node scripts/video/captions.mjs` rewrites the file; render.mjs calls it.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

// import.meta.dirname: a plain path, also where a test runner serves the module from a non-file URL.
const TOUR = join(import.meta.dirname, "tour.html");
export const CAPTIONS_FILE = join(import.meta.dirname, "../../apps/web/public/video/flotilla-tour.en.vtt");
/** How long the burned-in caption stays after its end (renderCaption in tour.html fades it over 0.4 s). */
const TAIL_S = 0.4;

/** [start s, end s, text] for each caption of tour.html. */
export function tourCaptions(html = readFileSync(TOUR, "utf8")) {
  const sc = /const SC = (\{[^}]+\});/.exec(html)?.[1];
  const caps = /const CAPS = (\[[\s\S]*?\n\s*\]);/.exec(html)?.[1];
  if (!sc || !caps) throw new Error("tour.html: SC or CAPS not found");
  // Both are literal tables of numbers and strings (SC.sN arithmetic in CAPS): evaluate them, nothing else.
  const SC = Function(`"use strict"; return (${sc});`)();
  const CAPS = Function("SC", `"use strict"; return (${caps});`)(SC);
  return CAPS.map(([start, end, , text]) => [start, end + TAIL_S, text.replace(/<\/?em>/g, "")]);
}

const stamp = (seconds) => {
  const ms = Math.round(seconds * 1000);
  const h = String(Math.floor(ms / 3_600_000)).padStart(2, "0");
  const m = String(Math.floor(ms / 60_000) % 60).padStart(2, "0");
  const s = String(Math.floor(ms / 1000) % 60).padStart(2, "0");
  return `${h}:${m}:${s}.${String(ms % 1000).padStart(3, "0")}`;
};

export function webVtt(captions = tourCaptions()) {
  const cues = captions.map(
    ([start, end, text], index) => `${index + 1}\n${stamp(start)} --> ${stamp(end)}\n${text}\n`,
  );
  return `WEBVTT\n\n${cues.join("\n")}`;
}

if (import.meta.filename === process.argv[1]) {
  writeFileSync(CAPTIONS_FILE, webVtt());
  console.log(`captions: ${CAPTIONS_FILE}`);
}
