// Prints the bin folder of the production Node.js (fetched into ~/.cache/flotilla/node when missing), for
// `PATH="$(node scripts/production-node.mjs):$PATH" npm test` — what .ci/run does.
import { ensureNode } from "./lib/node-runtime.mjs";

console.log(ensureNode());
