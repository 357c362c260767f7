#!/usr/bin/env node
// Launcher for the CLI bundled by scripts/build.mjs (Node 20 cannot run the TypeScript source directly).
import { existsSync } from "node:fs";

const bundle = new URL("../dist/cli.js", import.meta.url);
if (!existsSync(bundle)) {
  process.stderr.write(
    "flotilla-license is not built yet: run `npm run build -w @flotilla/license-client` from the repository root.\n",
  );
  process.exit(2);
}
const { main } = await import(bundle.href);
process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
