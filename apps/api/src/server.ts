import { buildApp } from "./app";
import { loadConfig } from "./config";

const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
})();

const app = await buildApp(config);

// Graceful shutdown: stop accepting, let in-flight requests finish, then exit.
let closing = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, "shutting down");
    app.close().then(
      () => process.exit(0),
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
