// `npm run test:cluster`: builds what changed, then runs the cluster suite (vitest.cluster.config.ts).
import { checkNode, ensureBuild, ensureDependencies, run } from "./lib/bootstrap.mjs";

checkNode();
ensureDependencies();
ensureBuild();
process.exit(run("npx", ["vitest", "run", "-c", "vitest.cluster.config.ts"]));
