// Builds the package (docs/decisions/0043):
//  - the library, dist/index.js and dist/index.d.ts: what `npm pack` ships. ESM for Node 20.19+, with what it needs of
//    @flotilla/contracts inlined (the contracts are not published); jose and zod stay imports (real dependencies). It
//    pins no key: the publisher passes its keys at construction, or defines __FLOTILLA_PINNED_BUILD__ in its own bundler.
//    `--library` builds only this (the prepack script).
//  - the CLI, dist/cli.js for bin/flotilla-license.mjs (this repository's, not published), pinning the public keys it
//    trusts (src/trusted-keys.ts):
//   FLOTILLA_TRUSTED_KEYS=<file or inline JSON>  a production build: a JWKS ({"keys":[{"kty":"OKP","crv":"Ed25519","x":…}]})
//                                                or an array of such JWKs — every key the app should accept;
//   (unset)                                      a development build, pinned to this checkout's development signing key
//                                                (DATA_DIR/license-signing-key.pem, created here if missing — the file the
//                                                local server signs with).
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { rollup } from "rollup";
import { dts } from "rollup-plugin-dts";

const root = fileURLToPath(new URL("..", import.meta.url));
const repository = resolve(root, "../..");
const ED25519_X = /^[A-Za-z0-9_-]{43}$/;

const keyIdOf = (x) => createHash("sha256").update(x).digest("base64url").slice(0, 16);

function fail(message) {
  console.error(`license-client build: ${message}`);
  process.exit(1);
}

function productionKeys(setting) {
  const text =
    setting.trim().startsWith("{") || setting.trim().startsWith("[") ? setting : readFileSync(setting, "utf8");
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    fail(`FLOTILLA_TRUSTED_KEYS is not JSON (${error.message})`);
  }
  const jwks = Array.isArray(parsed) ? parsed : parsed?.keys;
  if (!Array.isArray(jwks) || jwks.length === 0) fail("FLOTILLA_TRUSTED_KEYS holds no keys");
  return jwks.map((jwk, index) => {
    if (jwk?.kty !== "OKP" || jwk?.crv !== "Ed25519" || !ED25519_X.test(jwk?.x ?? "")) {
      fail(`FLOTILLA_TRUSTED_KEYS key ${index + 1} is not an Ed25519 public JWK (kty OKP, crv Ed25519, x)`);
    }
    if ("d" in jwk) fail(`FLOTILLA_TRUSTED_KEYS key ${index + 1} is a private key: pin public keys only`);
    return { kid: keyIdOf(jwk.x), x: jwk.x };
  });
}

function developmentKey() {
  const dataDir = process.env.DATA_DIR
    ? isAbsolute(process.env.DATA_DIR)
      ? process.env.DATA_DIR
      : resolve(repository, process.env.DATA_DIR)
    : join(repository, "data");
  const path = join(dataDir, "license-signing-key.pem");
  if (!existsSync(path)) {
    mkdirSync(dataDir, { recursive: true });
    const { privateKey } = generateKeyPairSync("ed25519");
    writeFileSync(path, privateKey.export({ format: "pem", type: "pkcs8" }), { mode: 0o600 });
  }
  const { x } = createPublicKey(createPrivateKey(readFileSync(path, "utf8"))).export({ format: "jwk" });
  return { kid: keyIdOf(x), x };
}

/** What the library bundle shares with the CLI's. */
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Runtime dependencies stay imports: jose (ours) and zod (the contracts'); only our TypeScript is bundled.
  external: ["jose", "zod"],
  legalComments: "none",
  logLevel: "warning",
};

async function buildLibrary() {
  await rm(join(root, "dist/index.js"), { force: true });
  await rm(join(root, "dist/index.d.ts"), { force: true });
  // No define: `typeof __FLOTILLA_PINNED_BUILD__` stays in the output for the publisher's bundler to fill.
  await build({ ...common, entryPoints: ["src/index.ts"], outfile: "dist/index.js" });
  // One declaration file, the contracts' types inlined (tsconfig.build.json maps @flotilla/contracts to its sources).
  const types = await rollup({
    input: join(root, "src/index.ts"),
    external: (id) => id === "jose" || id === "zod" || id.startsWith("zod/") || id.startsWith("node:"),
    plugins: [dts({ tsconfig: join(root, "tsconfig.build.json") })],
    onwarn: (warning) => fail(`types: ${warning.message}`),
  });
  await types.write({ file: join(root, "dist/index.d.ts"), format: "es" });
  await types.close();
  // What the package promises: nothing of the unpublished contracts is left to resolve.
  for (const file of ["dist/index.js", "dist/index.d.ts"]) {
    if ((await readFile(join(root, file), "utf8")).includes("@flotilla/contracts")) {
      fail(`${file} still refers to @flotilla/contracts`);
    }
  }
  // Progress goes to stderr: `npm pack --json` (which runs this as prepack) owns stdout.
  console.error("license-client: library built (dist/index.js, dist/index.d.ts)");
}

async function buildCli() {
  const pinned = process.env.FLOTILLA_TRUSTED_KEYS
    ? { kind: "production", keys: productionKeys(process.env.FLOTILLA_TRUSTED_KEYS) }
    : { kind: "development", keys: [developmentKey()] };
  await build({
    ...common,
    entryPoints: ["src/cli.ts"],
    outfile: "dist/cli.js",
    define: { __FLOTILLA_PINNED_BUILD__: JSON.stringify(pinned) },
    sourcemap: true,
  });
  console.error(`license-client: ${pinned.kind} CLI build, trusting ${pinned.keys.map((key) => key.kid).join(", ")}`);
}

const args = process.argv.slice(2);
if (args.some((arg) => arg !== "--library")) fail(`unknown arguments: ${args.join(" ")} (only --library)`);
await mkdir(join(root, "dist"), { recursive: true });
await buildLibrary();
if (!args.includes("--library")) await buildCli();
