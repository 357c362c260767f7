// Bundles bench/harness/scale.ts (TypeScript sources of the app) into apps/api/dist, where the app's own bundle finds
// its migrations (db/client.ts), and imports it.
import { join } from "node:path";
import { build } from "esbuild";
import { ROOT } from "../../scripts/lib/bootstrap.mjs";

export async function migrateHarness() {
  const outfile = join(ROOT, "apps/api/dist/bench-scale.mjs");
  await build({
    entryPoints: [join(ROOT, "bench/harness/scale.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
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
  return import(outfile);
}
