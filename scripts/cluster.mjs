// `npm run cluster`: the production topology on this machine — N instances of the built service (default 3) on
// PostgreSQL and Redis behind nginx, on http://localhost:8080 — until Ctrl-C stops them all.
//   CLUSTER_PORT (8080), CLUSTER_INSTANCES (3), DATABASE_URL (postgres://postgres@127.0.0.1:5432/flotilla, created
//   when missing), REDIS_URL (redis://127.0.0.1:6379). Logs: .cache/cluster/.
import { checkNode, ensureBuild, ensureDependencies, log } from "./lib/bootstrap.mjs";

checkNode();
ensureDependencies();
ensureBuild();
const { DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, startCluster } = await import("./lib/cluster.mjs");

const port = Number(process.env.CLUSTER_PORT ?? 8080);
const instances = Number(process.env.CLUSTER_INSTANCES ?? 3);
if (!Number.isInteger(port) || port < 1 || port > 65535 || !Number.isInteger(instances) || instances < 1) {
  console.error("CLUSTER_PORT must be a port number and CLUSTER_INSTANCES a positive whole number.");
  process.exit(2);
}

let cluster;
try {
  cluster = await startCluster({
    port,
    instances,
    databaseUrl: process.env.DATABASE_URL || DEFAULT_DATABASE_URL,
    redisUrl: process.env.REDIS_URL || DEFAULT_REDIS_URL,
    log,
  });
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}

log(`Flotilla cluster: ${cluster.publicOrigin} (nginx) → ${cluster.instances.map((i) => i.url).join(", ")}`);
log(`Metrics per instance at <instance>/metrics; logs in ${cluster.runtime}. Ctrl-C stops everything.`);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    log("Stopping: nginx, then each instance drains and exits…");
    await cluster.stop();
    log("Stopped.");
    process.exit(0);
  });
}
// An instance that dies on its own is reported; nginx keeps serving with the others.
for (const instance of cluster.instances) {
  instance.exited.then((code) => {
    if (!stopping) log(`${instance.name} exited (${code}); nginx routes around it.`);
  });
}
