// Runs after `react-router build` and the islands' build (vite.islands.config.ts; see package.json). Two finishing touches on build/client:
//
// 1. Each prerendered content page gets the islands it names (./add-islands.mjs, docs/decisions/0040). The SPA
//    fallback (the portal's client-only routes) keeps React Router's loading as it is: there the JavaScript is the page.
// 2. Text files are precompressed once, at the highest levels (Brotli 11, gzip 9): the server sends
//    the .br/.gz file (@fastify/static `preCompressed`) instead of compressing on every request.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { addIslands, dialogChunks, islandEntries } from "./add-islands.mjs";

const CLIENT = new URL("../build/client/", import.meta.url).pathname;
const COMPRESSIBLE = /\.(html|js|css|svg|json|xml|txt|data|webmanifest)$/;
const MIN_BYTES = 1024;
const SPA_FALLBACK = "__spa-fallback.html";
const ISLANDS_MANIFEST = JSON.parse(readFileSync(join(CLIENT, "assets/islands/manifest.json"), "utf8"));
const ISLANDS = islandEntries(ISLANDS_MANIFEST);
const DIALOGS = dialogChunks(ISLANDS_MANIFEST);

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

let pages = 0;
let compressed = 0;
let before = 0;
let after = 0;
for (const path of files(CLIENT)) {
  if (path.endsWith(".html") && relative(CLIENT, path) !== SPA_FALLBACK) {
    const withIslands = addIslands(readFileSync(path, "utf8"), ISLANDS, DIALOGS);
    if (withIslands) {
      writeFileSync(path, withIslands);
      pages++;
    }
  }
}
for (const path of files(CLIENT)) {
  if (!COMPRESSIBLE.test(path)) continue;
  const body = readFileSync(path);
  if (body.length < MIN_BYTES) continue;
  const br = brotliCompressSync(body, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
  });
  writeFileSync(`${path}.br`, br);
  writeFileSync(`${path}.gz`, gzipSync(body, { level: 9 }));
  compressed++;
  before += body.length;
  after += br.length;
}
console.log(
  `finish-build: islands on ${pages} content pages; ${compressed} files precompressed ` +
    `(${(before / 1024).toFixed(0)} KB → ${(after / 1024).toFixed(0)} KB brotli)`,
);
