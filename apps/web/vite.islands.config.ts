import { readdirSync, readFileSync } from "node:fs";
import { defineConfig } from "vite";

/**
 * The content pages' islands (docs/decisions/0040), built after `react-router build` into build/client/assets/islands
 * with the same bundler (its tree shaking keeps zod's locales and React out of the small islands). An entry is
 * every app/islands/<name>.ts that calls island("<name>"); the React islands (app/islands/react) are imported on
 * demand by entries and land in chunks of their own. scripts/finish-build.mjs reads the manifest (assets/islands/manifest.json).
 */
const ISLANDS = new URL("./app/islands/", import.meta.url).pathname;
const entries = readdirSync(ISLANDS)
  .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"))
  .map((file) => file.slice(0, -3))
  .filter((name) => readFileSync(`${ISLANDS}${name}.ts`, "utf8").includes(`island("${name}"`));

export default defineConfig({
  publicDir: false,
  // The React islands render with Preact's React-compatible API (decision 0050): the same components, a renderer a
  // tenth of React DOM's size, so a tap on a content page does not wait for React DOM to be evaluated.
  resolve: {
    alias: [
      { find: /^react-dom\/client$/, replacement: "preact/compat/client" },
      { find: /^react-dom$/, replacement: "preact/compat" },
      { find: /^react\/jsx-runtime$/, replacement: "preact/jsx-runtime" },
      { find: /^react$/, replacement: "preact/compat" },
    ],
  },
  build: {
    outDir: "build/client",
    emptyOutDir: false,
    copyPublicDir: false,
    manifest: "assets/islands/manifest.json",
    // Entries get their imports as modulepreload links in the page (finish-build). A dynamic import (a React island on
    // intent) preloads every chunk it needs at once: without the list, the browser finds them one level of imports at
    // a time, a round trip each, on the tap that waits for them.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      // lucide-react marks its modules "use client" (a React Server Components hint): meaningless in a browser bundle.
      onLog(level, log, handler) {
        if (log.code === "MODULE_LEVEL_DIRECTIVE") return;
        handler(level, log);
      },
      input: Object.fromEntries(entries.map((name) => [name, `app/islands/${name}.ts`])),
      output: {
        entryFileNames: "assets/islands/[name]-[hash].js",
        chunkFileNames: "assets/islands/[name]-[hash].js",
        // Fewer, larger files where that fetches nothing earlier (issue 35: 12 script files on a docs page against
        // Starlight's 6). Each group holds modules that are always fetched together; islands.spec.ts fails when two
        // shared chunks are, and when a page that opens no dialog fetches the dialogs' group.
        codeSplitting: {
          groups: [
            // The dialogs' renderer alone, named so that a glance at the network panel (and islands.spec.ts) tells it
            // from React. Kept apart from the dialog shell below: compiled as one file when idle, the two made a task
            // long enough to count as blocking at 4× CPU (decision 0064).
            { name: "preact", test: /node_modules[\\/]preact[\\/]/ },
            // The dialog shell (the island, the modal, its focus return) with lucide's icon base: every dialog imports
            // the icons, all but the newsletter form the shell (1.6 KB gzip); nothing framework-free imports any of it.
            {
              name: "dialog",
              test: /node_modules[\\/]lucide-react[\\/]|islands[\\/]react[\\/]dialog-island\.|components[\\/](modal|use-restore-focus)\./,
            },
            // The islands' runtime, with the signed-in token's storage (the header's account island) and the preload
            // helper (the openers): every content page has a header and an opener.
            { name: "runtime", test: /islands[\\/]runtime\.ts|lib[\\/]token-storage\.ts|preload-helper/ },
          ],
        },
      },
    },
  },
});
