// Regenerates apps/web/app/fonts/inter-variable-subset.woff2 (docs/decisions/0023):
//   node apps/web/scripts/subset-font.mjs
// Inter's variable Latin file from @fontsource-variable/inter (weights 100–900), cut down with HarfBuzz to the
// characters the site sets in its text face. Anything else (code uses the monospace face) falls through to the
// metric-matched fallback. app.css declares the same ranges (scripts/font-ranges.test.ts checks).
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import subsetFont from "subset-font";
import { RANGES, unicodeRange } from "./font-ranges.mjs";

const require = createRequire(import.meta.url);
const source = require.resolve("@fontsource-variable/inter/files/inter-latin-wght-normal.woff2");
const target = new URL("../app/fonts/inter-variable-subset.woff2", import.meta.url);

let text = "";
for (const [from, to] of RANGES) for (let code = from; code <= to; code++) text += String.fromCodePoint(code);
const input = readFileSync(source);
const output = await subsetFont(input, text, { targetFormat: "woff2" });
writeFileSync(target, output);
console.log(`subset-font: ${input.length} → ${output.length} bytes; unicode-range: ${unicodeRange()}`);
