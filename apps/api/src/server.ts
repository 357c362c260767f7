import { buildApp } from "./app";
import { loadConfig } from "./config";
import { FolderInUseError } from "./db/folder-lock";
import { trackConnections } from "./lib/connection-drain";

const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
})();

const app = await buildApp(config).catch((error: unknown) => {
  // Another process holds the embedded database (decision 0047): say who, without a stack trace.
  if (!(error instanceof FolderInUseError)) throw error;
  console.error(error.message);
  process.exit(1);
});
const connections = trackConnections(app.server);
/** A connection idle this long during a drain is ended: a request already on the wire has arrived by then. */
const DRAIN_IDLE_GRACE_MS = 1_000;

/**
 * Graceful shutdown (SIGTERM, SIGINT): readiness fails at once and every answer says Connection: close; the
 * server stops listening and answers every request on the connections it accepted (connection-drain.ts); then
 * the buffered counters are written and storage closes (the onClose hook in app.ts). If draining outlasts
 * SHUTDOWN_TIMEOUT_MS, what is left is cut so that the flush still happens before exit.
 */
let closing = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    app.lifecycle.draining = true;
    // Live event streams never finish on their own: end them now, and their browsers reconnect elsewhere.
    app.liveEvents.closeAll();
    // Held watches are answered now: their apps ask again, and reach another instance.
    app.executionWatches.releaseAll();
    app.log.info({ signal, connections: connections.open }, "shutting down: draining connections");
    connections
      .drain({ idleGraceMs: DRAIN_IDLE_GRACE_MS, timeoutMs: config.shutdownTimeoutMs })
      .then(({ cut }) => {
        if (cut > 0) app.log.warn({ cut, timeoutMs: config.shutdownTimeoutMs }, "drain timed out: connections cut");
        return app.close();
      })
      .then(
        () => {
          app.log.info("shut down cleanly");
          process.exit(0);
        },
        (error) => {
          app.log.error(error, "error during shutdown");
          process.exit(1);
        },
      );
  });
}

try {
  await app.listen({ port: config.port, host: config.host });
  app.log.info(`Flotilla is serving on ${config.publicOrigin}`);
} catch (error) {
  app.log.error(error);
  process.exit(1);
}
