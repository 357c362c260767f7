// Runs after `react-router build` (see package.json). Two finishing touches on build/client:
//
// 1. Prerendered pages load their JavaScript after the first paint (./defer-hydration.mjs). The SPA
//    fallback (client-only routes) keeps React Router's loading as it is: there the JavaScript is the page.
// 2. Text files are precompressed once, at the highest levels (Brotli 11, gzip 9): the server sends
//    the .br/.gz file (@fastify/static `preCompressed`) instead of compressing on every request.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { deferHydration } from "./defer-hydration.mjs";

const CLIENT = new URL("../build/client/", import.meta.url).pathname;
const COMPRESSIBLE = /\.(html|js|css|svg|json|xml|txt|data|webmanifest)$/;
const MIN_BYTES = 1024;
const SPA_FALLBACK = "__spa-fallback.html";

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
    const deferred = deferHydration(readFileSync(path, "utf8"));
    if (deferred) {
      writeFileSync(path, deferred);
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
  `finish-build: hydration after first paint on ${pages} pages; ${compressed} files precompressed ` +
    `(${(before / 1024).toFixed(0)} KB → ${(after / 1024).toFixed(0)} KB brotli)`,
);
