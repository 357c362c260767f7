// The reference point of `npm run bench:api`: Fastify with no plugins and one trivial JSON route, the same
// Fastify the service runs (resolved from apps/api), in a process of its own like the service.
import { createRequire } from "node:module";

const require = createRequire(new URL("../../apps/api/package.json", import.meta.url));
const Fastify = require("fastify");
const port = Number(process.env.PORT ?? 3901);
const app = Fastify({ logger: false });
app.get("/", async () => ({ success: true, status: "ok" }));
await app.listen({ port, host: "127.0.0.1" });
console.log(`bare fastify ${app.version} on ${port}`);
process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
