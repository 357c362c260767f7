// Bundles src/cli.ts (with @flotilla/contracts, which ships as TypeScript) into dist/cli.js for bin/flotilla-license.mjs.
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

await build({
  absWorkingDir: root,
  entryPoints: ["src/cli.ts"],
  outfile: "dist/cli.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Runtime dependencies stay in node_modules: jose (ours) and zod (the contracts'); only our TypeScript is bundled.
  external: ["jose", "zod"],
  sourcemap: true,
  legalComments: "none",
  logLevel: "info",
});
