// Bundles the service and the workspace packages it uses (TypeScript sources) into one ESM file;
// third-party packages stay external and are resolved from node_modules at run time.
import { build } from "esbuild";

await build({
  entryPoints: {
    server: new URL("../src/server.ts", import.meta.url).pathname,
    admin: new URL("../src/cli/admin.ts", import.meta.url).pathname,
  },
  outdir: new URL("../dist/", import.meta.url).pathname,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  sourcemap: true,
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
console.log("api: built dist/server.js and dist/admin.js");
