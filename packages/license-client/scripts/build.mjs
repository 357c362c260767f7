// Bundles src/cli.ts (with @flotilla/contracts, which ships as TypeScript) into dist/cli.js for bin/flotilla-license.mjs,
// pinning the public keys this build trusts (src/trusted-keys.ts):
//   FLOTILLA_TRUSTED_KEYS=<file or inline JSON>  a production build: a JWKS ({"keys":[{"kty":"OKP","crv":"Ed25519","x":…}]})
//                                                or an array of such JWKs — every key the app should accept;
//   (unset)                                      a development build, pinned to this checkout's development signing key
//                                                (DATA_DIR/license-signing-key.pem, created here if missing — the file the
//                                                local server signs with).
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

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

const pinned = process.env.FLOTILLA_TRUSTED_KEYS
  ? { kind: "production", keys: productionKeys(process.env.FLOTILLA_TRUSTED_KEYS) }
  : { kind: "development", keys: [developmentKey()] };

await build({
  absWorkingDir: root,
  entryPoints: ["src/cli.ts"],
  outfile: "dist/cli.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Runtime dependencies stay in node_modules: jose (ours) and zod (the contracts'); only our TypeScript is bundled.
  external: ["jose", "zod"],
  define: { __FLOTILLA_PINNED_BUILD__: JSON.stringify(pinned) },
  sourcemap: true,
  legalComments: "none",
  logLevel: "info",
});
console.log(`license-client: ${pinned.kind} build, trusting ${pinned.keys.map((key) => key.kid).join(", ")}`);
