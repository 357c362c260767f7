/**
 * A fresh app and database per test file: in-memory PGlite by default; a throw-away PostgreSQL database
 * when the suite runs in its PostgreSQL project (TEST_DATABASE_URL set, FLOTILLA_TEST_DB=postgres).
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { buildApp } from "../../src/app";
import { type Config, loadConfig } from "../../src/config";
import type { DatabaseOptions } from "../../src/db/client";
import { checkDeclaredAnswers } from "./declared-answers";

export const onPostgres = process.env.FLOTILLA_TEST_DB === "postgres" && Boolean(process.env.TEST_DATABASE_URL);

/** A fresh Ed25519 signing key (PKCS#8 PEM), for configurations that must not generate their own. */
export function newSigningKeyPem(): string {
  return generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString();
}

export interface TestDatabase {
  options: DatabaseOptions;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (!onPostgres) return { options: { kind: "pglite", dataDir: null }, drop: async () => {} };
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const name = `flotilla_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    options: { kind: "postgres", url: url.toString(), poolSize: 20 },
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** The APP_SECRET of test apps (it signs newsletter links, among others). */
export const TEST_APP_SECRET = "test-secret-test-secret-test-secret-1234";

const UNLIMITED: Config["rateLimits"] = {
  signupPerMinute: 100_000,
  perMinute: 100_000,
  authFailuresPerMinute: 100_000,
  accountPerMinute: 100_000,
  licensePerMinute: 100_000,
  licenseKeyPerMinute: 100_000,
};

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({ LOG_LEVEL: "silent", NODE_ENV: "test" }),
    siteDir: null,
    dataDir: null,
    appSecret: TEST_APP_SECRET,
    rateLimits: UNLIMITED,
    ...overrides,
  };
}

export async function createTestApp(
  overrides: Partial<Config> = {},
): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  const database = await createTestDatabase();
  return started(database, testConfig({ database: database.options, ...overrides }));
}

/**
 * An app configured from environment variables exactly as the server would be (exposure, conveniences and all),
 * on a fresh test database, with no data folder and no site unless `overrides` says so.
 */
export async function createTestAppFromEnv(
  env: Record<string, string>,
  overrides: Partial<Config> = {},
): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
  const database = await createTestDatabase();
  const config = loadConfig({ LOG_LEVEL: "silent", ...env });
  return started(database, {
    ...config,
    siteDir: null,
    dataDir: null,
    rateLimits: UNLIMITED,
    database: database.options,
    ...overrides,
  });
}

async function started(database: TestDatabase, config: Config) {
  const app = await buildApp(config).catch(async (error: unknown) => {
    await database.drop();
    throw error;
  });
  // Every answer is held to the statuses its route declares (the setup file fails the test file otherwise).
  checkDeclaredAnswers(app);
  return {
    app,
    close: async () => {
      await app.close();
      await database.drop();
    },
  };
}
