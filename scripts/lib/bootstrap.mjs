// Set-up shared by `npm start` and `npm test`: no dependencies, so it runs on a fresh clone.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const MIN_NODE = [20, 19];
const STAMP = join(ROOT, ".build-stamp");
/** What the build reads: a change to any of these triggers a rebuild. */
const BUILD_INPUTS = [
  "package-lock.json",
  "packages/contracts/src",
  "packages/license-client/src",
  "apps/web/app",
  "apps/web/content",
  "apps/web/public",
  "apps/web/react-router.config.ts",
  "apps/web/vite.config.ts",
  "apps/web/scripts",
  "apps/web/package.json",
  "apps/api/src",
  "apps/api/scripts",
  // The development build of the license CLI pins this key (packages/license-client/scripts/build.mjs).
  "data/license-signing-key.pem",
];

export function log(message) {
  console.error(`\x1b[36m›\x1b[0m ${message}`);
}

export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: "inherit", ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function must(command, args, options) {
  const status = run(command, args, options);
  if (status !== 0) {
    console.error(`\n${command} ${args.join(" ")} failed with exit code ${status}`);
    process.exit(status);
  }
}

export function checkNode() {
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1])) {
    console.error(`Flotilla needs Node.js ${MIN_NODE.join(".")} or newer; this is ${process.versions.node}.`);
    process.exit(1);
  }
}

/** Installs dependencies when node_modules is missing or older than the lockfile. */
export function ensureDependencies() {
  const marker = join(ROOT, "node_modules/.package-lock.json");
  const lock = join(ROOT, "package-lock.json");
  const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs + 1000);
  if (!stale) return;
  log("Installing dependencies…");
  must("npm", [existsSync(marker) || !existsSync(lock) ? "install" : "ci", "--no-audit", "--no-fund"]);
}

function fingerprint() {
  const hash = createHash("sha256");
  const visit = (path) => {
    if (!existsSync(path)) return;
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(path).sort()) {
        if (entry === "node_modules" || entry.startsWith(".")) continue;
        visit(join(path, entry));
      }
    } else {
      hash.update(`${relative(ROOT, path)}:${stat.size}:${Math.trunc(stat.mtimeMs)}\n`);
    }
  };
  for (const input of BUILD_INPUTS) visit(join(ROOT, input));
  // Not the Node.js line: the build's output does not depend on it, so a build made on the production line serves the
  // floor line's smoke too (one build per CI run, decision 0054).
  // PUBLIC_ORIGIN is not an input: the server puts it into the built site when it starts (docs/decisions/0024).
  return hash.digest("hex");
}

/** Builds the site and the API unless the last build used exactly these inputs. */
export function ensureBuild({ force = false } = {}) {
  const current = fingerprint();
  const built =
    existsSync(join(ROOT, "apps/web/build/client/index.html")) && existsSync(join(ROOT, "apps/api/dist/server.js"));
  if (!force && built && existsSync(STAMP) && readFileSync(STAMP, "utf8") === current) {
    log("Build is up to date.");
    return;
  }
  log("Building the site and the API…");
  must("npm", ["run", "build"]);
  // Taken again: the build itself may create inputs (the development signing key).
  writeFileSync(STAMP, fingerprint());
}

/** Debian's Chromium for the browser tests: installed when missing and we are root. */
export function ensureChromium() {
  if (existsSync(CHROMIUM_PATH)) return;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot) {
    console.error(
      `Chromium was not found at ${CHROMIUM_PATH}. Install it (Debian/Ubuntu: sudo apt-get install -y chromium) ` +
        "or point CHROMIUM_PATH at a Chromium or Chrome binary, then run npm test again.",
    );
    process.exit(1);
  }
  log("Installing Chromium from Debian's packages…");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  // Another build on this machine may be installing packages: wait for dpkg's lock instead of failing.
  must("apt-get", [...APT_WAIT_FOR_LOCK, "update", "-qq"], { env });
  must(
    "apt-get",
    [...APT_WAIT_FOR_LOCK, "install", "-y", "-qq", "--no-install-recommends", "chromium", "fonts-liberation"],
    {
      env,
    },
  );
}

/** apt-get options that wait up to 10 minutes for another apt-get or dpkg to finish, rather than failing at once. */
export const APT_WAIT_FOR_LOCK = ["-o", "DPkg::Lock::Timeout=600"];
