// Runs drizzle-kit (e.g. `npm run db:generate -w @flotilla/api`). npm installs drizzle-orm inside this
// workspace while drizzle-kit is hoisted to the root, and drizzle-kit's dynamic import of drizzle-orm then
// fails; a root-level link to this workspace's copy makes it resolvable.
import { spawnSync } from "node:child_process";
import { existsSync, symlinkSync } from "node:fs";
import { fileURLToPath } from "node:url";

const local = fileURLToPath(new URL("../node_modules/drizzle-orm", import.meta.url));
const hoisted = fileURLToPath(new URL("../../../node_modules/drizzle-orm", import.meta.url));
if (existsSync(local) && !existsSync(hoisted)) symlinkSync(local, hoisted, "dir");
const result = spawnSync("npx", ["drizzle-kit", ...process.argv.slice(2)], {
  stdio: "inherit",
  cwd: fileURLToPath(new URL("..", import.meta.url)),
});
process.exit(result.status ?? 1);
