// BENCH_BEFORE=<git ref> for bench/web.mjs: the "before" column is that commit, built and served beside this one and
// measured in the same run, interleaved. A saved baseline from another day compares two different machines' moods:
// on a shared 2-core machine the same build's first paint moves by 200 ms from one hour to the next.
//
// The commit is exported with `git archive` into a cache outside the clone (tools that glob the repository must not
// see a second copy of it), installed with `npm ci` and built with its own `npm run build`. A finished build is
// reused: the commit never changes.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "flotilla", "bench-before");
const READY = ".bench-before-ready";

function must(command, args, options) {
  const result = spawnSync(command, args, { stdio: ["ignore", "inherit", "inherit"], ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status})`);
  return result;
}

/** Resolves `ref` in the repository at `root` and returns { commit, root: where that commit is built }. */
export function prepareBefore(repository, ref, log) {
  const resolved = spawnSync("git", ["rev-parse", "--verify", `${ref}^{commit}`], {
    cwd: repository,
    encoding: "utf8",
  });
  if (resolved.status !== 0) throw new Error(`BENCH_BEFORE=${ref} is not a commit of this repository`);
  const commit = resolved.stdout.trim();
  const root = join(CACHE, commit);
  if (existsSync(join(root, READY))) return { commit, root };

  log(`before: exporting ${commit.slice(0, 10)} into ${root}, then npm ci and npm run build (once per commit)`);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const archive = must("git", ["archive", "--format=tar", commit], { cwd: repository, stdio: "pipe", maxBuffer: 1e9 });
  must("tar", ["-x", "-C", root], { input: archive.stdout, stdio: ["pipe", "inherit", "inherit"] });
  must("npm", ["ci", "--no-audit", "--no-fund"], { cwd: root });
  must("npm", ["run", "build"], { cwd: root });
  writeFileSync(join(root, READY), `${commit}\n`);
  return { commit, root };
}

/** The order in which the builds take turn `i`: alternating, so neither always runs on the warmer machine. */
export const turn = (sites, i) => (i % 2 ? [...sites].reverse() : sites);
