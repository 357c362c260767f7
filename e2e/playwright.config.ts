import { mkdtempSync, readFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig, devices } from "@playwright/test";

/** Journeys run against the real built app, served by the API process on its own port. */
const PORT = Number(process.env.E2E_PORT ?? 3100);
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ROOT = new URL("..", import.meta.url).pathname;
/** The development signing key the built CLI pins (packages/license-client/scripts/build.mjs creates it). */
const SIGNING_KEY = readFileSync(join(ROOT, "data/license-signing-key.pem"), "utf8");
/** A fresh embedded database for every run. */
const DATA_DIR = process.env.E2E_DATA_DIR ?? mkdtempSync(join(tmpdir(), "flotilla-e2e-shared-"));
// The workers inherit it: a journey that reads what the server keeps there (distribution.spec.ts: the development
// release key, the stored artifacts) finds the same folder.
process.env.E2E_DATA_DIR = DATA_DIR;

export default defineConfig({
  testDir: "./tests",
  fullyParallel: true,
  // Playwright's default is half the cores: one, on a 2-core machine, where the journeys mostly wait on the server.
  workers: Math.max(2, Math.floor(availableParallelism() / 2)),
  retries: process.env.CI ? 1 : 0,
  forbidOnly: true,
  // A timeout here catches a hang, not slowness: CI shares its machine, and a loaded one ran these journeys 3× slower
  // than a quiet one (the longest takes 21 s quiet), so CI allows twice as long.
  timeout: process.env.CI ? 60_000 : 30_000,
  expect: { timeout: process.env.CI ? 12_000 : 7_000 },
  reporter: [["list"], ["json"]],
  outputDir: "../.cache/test-results",
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  projects: [
    { name: "desktop", use: { ...devices["Desktop Chrome"], channel: undefined }, testIgnore: /mobile\.spec\.ts/ },
    { name: "mobile", use: { ...devices["Pixel 7"], channel: undefined }, testMatch: /mobile\.spec\.ts/ },
  ],
  webServer: {
    command: `node ${ROOT}apps/api/dist/server.js`,
    url: `http://127.0.0.1:${PORT}/api/health`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: {
      PORT: String(PORT),
      HOST: "127.0.0.1",
      PUBLIC_ORIGIN: `http://127.0.0.1:${PORT}`,
      // Many journeys sign in from one address; the limit itself is proven by the API suite.
      RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: "1000",
      LOG_LEVEL: "warn",
      DATA_DIR,
      DATABASE_URL: "",
      LICENSE_SIGNING_KEY: SIGNING_KEY,
      // The admin of the console journeys (tests/admin.spec.ts); everyone else who signs in is a customer.
      ADMIN_EMAILS: "ops-admin@e2e.flotilla.test",
    },
  },
});
