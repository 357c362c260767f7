import { defineConfig } from "vitest/config";

/**
 * `npm run test:cluster`: three instances of the built service on PostgreSQL and Redis behind nginx
 * (scripts/lib/cluster.mjs), killed and restarted under load. Needs PostgreSQL on 127.0.0.1:5432
 * (TEST_DATABASE_URL to change it), PostgreSQL's server programs for a server of the suite's own that
 * postgres-restart.test.ts restarts (Debian's /usr/lib/postgresql/<major>/bin, or POSTGRES_BIN), redis-server and
 * nginx (installed when missing and root). Each file starts its own cluster on loopback ports: a free random range
 * from 18100, or CLUSTER_TEST_PORT (harness.ts, basePort).
 */
export default defineConfig({
  test: {
    name: "cluster",
    root: "apps/api",
    environment: "node",
    include: ["test/cluster/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 240_000,
  },
});
