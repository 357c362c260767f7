// The benches' in-process helpers are TypeScript under bench/harness/, bundled on the fly beside the service's build,
// then imported: in apps/api/dist, its third-party imports resolve from apps/api's node_modules and the app's
// database code finds its migrations as the server's bundle does (db/client.ts).
import { join } from "node:path";
import { build } from "esbuild";
import { ROOT } from "../../scripts/lib/bootstrap.mjs";

/** Bundles bench/harness/<name>.ts (workspace sources inlined, packages left external) and imports it. */
export async function importHarness(name) {
  const outfile = join(ROOT, `apps/api/dist/bench-${name}.mjs`);
  await build({
    entryPoints: [join(ROOT, `bench/harness/${name}.ts`)],
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
