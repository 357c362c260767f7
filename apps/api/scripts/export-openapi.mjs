// Bundles src/cli/export-openapi.ts (as build.mjs bundles the server) and runs it: writes the service's OpenAPI
// document to the path given, for the web build's API reference page. Usage: node export-openapi.mjs <out.json>
import { spawnSync } from "node:child_process";
import { build } from "esbuild";

const out = process.argv[2];
if (!out) {
  console.error("usage: node apps/api/scripts/export-openapi.mjs <out.json>");
  process.exit(2);
}
const bundle = new URL("../dist/export-openapi.js", import.meta.url).pathname;
await build({
  entryPoints: [new URL("../src/cli/export-openapi.ts", import.meta.url).pathname],
  outfile: bundle,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  logLevel: "warning",
  plugins: [
    {
      name: "externalize-third-party",
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) =>
          args.path.startsWith("@flotilla/") ? undefined : { path: args.path, external: true },
        );
      },
    },
  ],
});
const run = spawnSync(process.execPath, [bundle, out], { stdio: "inherit" });
process.exit(run.status ?? 1);
