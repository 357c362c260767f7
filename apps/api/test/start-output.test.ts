/**
 * What someone who self-hosts reads first: `npm start` on a fresh data folder, on the Node line it runs (20 is the
 * floor, decision 0041), prints no warning. oidc-provider, which the development sign-in loads, called Node 20 an
 * "Unsupported runtime" at every start.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";

const API_DIR = fileURLToPath(new URL("..", import.meta.url));
const SERVER = join(API_DIR, "dist/server.js");
const PORT = 5700 + Math.floor(Math.random() * 200);
const BASE = `http://127.0.0.1:${PORT}`;

let dataDir: string;
beforeAll(() => {
  if (!existsSync(SERVER)) spawnSync(process.execPath, [join(API_DIR, "scripts/build.mjs")], { stdio: "inherit" });
  dataDir = mkdtempSync(join(tmpdir(), "flotilla-start-output-"));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it("starts with the development sign-in and prints no warning", async () => {
  const child = spawn(process.execPath, [SERVER], {
    env: {
      ...process.env,
      PORT: String(PORT),
      HOST: "127.0.0.1",
      PUBLIC_ORIGIN: BASE,
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      SERVE_SITE: "false",
      BACKGROUND_JOBS: "false",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += String(chunk)));
  child.stderr!.on("data", (chunk) => (output += String(chunk)));
  try {
    const deadline = Date.now() + 90_000;
    let ready = false;
    while (!ready && Date.now() < deadline) {
      ready = await fetch(`${BASE}/api/ready`).then(
        (response) => response.ok,
        () => false,
      );
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(ready, output).toBe(true);
    // The development issuer is there (it is what loads oidc-provider) …
    expect((await fetch(`${BASE}/oidc/.well-known/openid-configuration`)).status).toBe(200);
    // … and nothing alarming was said on the way.
    expect(output).not.toMatch(/warn|unsupported/i);
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  }
}, 120_000);
