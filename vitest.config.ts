import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

/**
 * Inside the workspace, @flotilla/license-client is imported from its TypeScript sources: its package.json maps the
 * "@flotilla/source" export condition to src/index.ts; an install from the registry, which never sets it, gets dist/
 * (docs/decisions/0043). tsconfig.base.json sets the same condition for the type checker.
 */
const workspaceSources = { ssr: { resolve: { conditions: ["@flotilla/source", ...defaultServerConditions] } } };

export default defineConfig({
  test: {
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
        },
      },
      {
        ...workspaceSources,
        test: {
          name: "api",
          root: "apps/api",
          environment: "node",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          // The cluster suite runs the real topology: `npm run test:cluster` (vitest.cluster.config.ts). Files named
          // *.postgres.test.ts prove what only a PostgreSQL server can show (a link to stall, LISTEN/NOTIFY across
          // instances): they run in the api-postgres project below.
          exclude: ["test/cluster/**", "test/**/*.postgres.test.ts"],
          // Fails a file whose apps answered a status their route does not declare (issue 25).
          setupFiles: ["./test/setup/declared-answers.ts"],
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: { name: "bench", root: "bench", environment: "node", include: ["lib/**/*.test.mjs"] },
      },
      // The same API suite against a real PostgreSQL server when one is configured (CI sets it).
      ...(process.env.TEST_DATABASE_URL
        ? [
            {
              ...workspaceSources,
              test: {
                name: "api-postgres",
                root: "apps/api",
                environment: "node",
                include: ["src/**/*.test.ts", "test/**/*.test.ts"],
                exclude: [
                  "test/site.test.ts",
                  "test/public-origin.test.ts",
                  "test/durability.test.ts",
                  "test/shutdown.test.ts",
                  "test/cluster/**",
                ],
                setupFiles: ["./test/setup/declared-answers.ts"],
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
