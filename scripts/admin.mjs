// `npm run admin -- <command>`: the API's admin CLI, built first if needed.
import { join } from "node:path";
import { checkNode, ensureBuild, ensureDependencies, ROOT, run } from "./lib/bootstrap.mjs";

checkNode();
ensureDependencies();
ensureBuild();
process.exit(run(process.execPath, [join(ROOT, "apps/api/dist/admin.js"), ...process.argv.slice(2)]));
