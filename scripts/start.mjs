// `npm start`: install what is missing, build what changed, serve site + API on http://localhost:3000.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { checkNode, ensureBuild, ensureDependencies, log, ROOT } from "./lib/bootstrap.mjs";

checkNode();
ensureDependencies();
ensureBuild();

log(`Starting Flotilla on http://localhost:${process.env.PORT ?? 3000}`);
const server = spawn(process.execPath, ["--enable-source-maps", join(ROOT, "apps/api/dist/server.js")], {
  cwd: ROOT,
  stdio: "inherit",
  env: process.env,
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
