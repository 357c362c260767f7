import { availableParallelism } from "node:os";
import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

/**
 * Inside the workspace, @flotilla/license-client is imported from its TypeScript sources: its package.json maps the
 * "@flotilla/source" export condition to src/index.ts; an install from the registry, which never sets it, gets dist/
 * (docs/decisions/0043). tsconfig.base.json sets the same condition for the type checker.
 * Without Vite's "module" condition, packages resolve as Node resolves them: the AWS SDK maps "module" to its bundler
 * build (dist-es, extension-less imports), which Node cannot load once Vitest externalizes it (issue 36).
 */
const workspaceSources = {
  ssr: {
    resolve: {
      conditions: ["@flotilla/source", ...defaultServerConditions.filter((condition) => condition !== "module")],
    },
  },
};

/**
 * API test files that prove the embedded database itself (PGlite in a data folder, one process, the built server on
 * it): they run on PGlite whichever database the rest of the API suite uses.
 */
const EMBEDDED_ONLY = [
  "test/site.test.ts",
  "test/public-origin.test.ts",
  "test/durability.test.ts",
  "test/shutdown.test.ts",
  "test/embedded-database-lock.test.ts",
  "test/embedded-vacuum.test.ts",
  // What they prove is the embedded database's: its queries' parsers, and statements that run on the service's thread.
  "test/pglite-parsers.test.ts",
  "test/counter-flush-turns.test.ts",
];
/**
 * With a PostgreSQL server (TEST_DATABASE_URL), the API suite runs once, on it — the production database — and only
 * EMBEDDED_ONLY on PGlite; the browser journeys run on PGlite too (decision 0054). Without one, all of it runs on PGlite.
 */
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

export default defineConfig({
  test: {
    // Vitest's default is one worker fewer than the cores: one, on this 2-core machine, where most files wait on a
    // database, a socket or a child process. Two run side by side (decision 0054).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        test: {
          name: "contracts",
          root: "packages/contracts",
          environment: "node",
          include: ["src/**/*.test.ts"],
        },
      },
      {
        test: {
          name: "license-client",
          root: "packages/license-client",
          environment: "node",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
        },
      },
      {
        test: {
          name: "web",
          root: "apps/web",
          environment: "jsdom",
          include: ["app/**/*.test.{ts,tsx}", "scripts/**/*.test.ts"],
          setupFiles: ["./test/setup.ts"],
          // A hang, not slowness: jsdom screens on a loaded machine take seconds (decision 0054).
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        ...workspaceSources,
        test: {
          name: "api",
          root: "apps/api",
          environment: "node",
          include: onPostgres ? EMBEDDED_ONLY : ["src/**/*.test.ts", "test/**/*.test.ts"],
          // The cluster suite runs the real topology: `npm run test:cluster` (vitest.cluster.config.ts). Files named
          // *.postgres.test.ts prove what only a PostgreSQL server can show (a link to stall, LISTEN/NOTIFY across
          // instances): they run in the api-postgres project below.
          exclude: ["test/cluster/**", "test/**/*.postgres.test.ts"],
          // Fails a file whose apps answered a status their route does not declare (issue 25).
          setupFiles: ["./test/setup/declared-answers.ts"],
          // Each file builds its own apps and databases: what it imports (Fastify, Drizzle, the OIDC provider) is the
          // same, and imported once per worker rather than once per file saves a fifth of the run (decision 0054).
          isolate: false,
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: { name: "bench", root: "bench", environment: "node", include: ["lib/**/*.test.mjs"] },
      },
      // The API suite against a real PostgreSQL server when one is configured (CI sets it), each file in a database of
      // its own.
      ...(onPostgres
        ? [
            {
              ...workspaceSources,
              test: {
                name: "api-postgres",
                root: "apps/api",
                environment: "node",
                include: ["src/**/*.test.ts", "test/**/*.test.ts"],
                exclude: [...EMBEDDED_ONLY, "test/cluster/**"],
                setupFiles: ["./test/setup/declared-answers.ts"],
                isolate: false,
                env: { FLOTILLA_TEST_DB: "postgres" },
                testTimeout: 20_000,
                hookTimeout: 30_000,
              },
            },
          ]
        : []),
    ],
  },
});
