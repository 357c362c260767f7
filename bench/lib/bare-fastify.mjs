// The reference points of `npm run bench:api`, in a process of its own like the service, on the same Fastify (resolved
// from apps/api) and the same Node:
//   GET /         Fastify with no plugins and one trivial JSON route (issue 35's floor, with one signature beside it);
//   POST /signed  the least a signed desktop answer can be in Fastify: the JSON body parsed, a JSON answer of the
//                 same size as a valid validation's, and its Flotilla-Signature header (SHA-256 of the body, one
//                 Ed25519 signature over the same signing input as answer-signing.ts). No schema, hook or database.
//   POST /api/license/executions/:id/heartbeat
//                 a heartbeat as issue 35 says it should be: "a conditional update of one row and one signature". One
//                 UPDATE … RETURNING of a lease row that has not ended and has not expired, on the same kind of database
//                 as the service (PostgreSQL at BARE_DATABASE_URL through pg's pool, else PGlite in BARE_DATA_DIR), and a
//                 signed answer of a heartbeat's size; a lease it does not know is a 404, unsigned. POST /seed {ids}
//                 adds lease rows (the bench's fleet) beforehand. No license, machine, schema or hook.
import { generateKeyPairSync, hash, sign } from "node:crypto";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const require = createRequire(new URL("../../apps/api/package.json", import.meta.url));
const Fastify = require("fastify");
const port = Number(process.env.PORT ?? 3901);
const { privateKey } = generateKeyPairSync("ed25519");
// A valid validation's answer is about 900 bytes, most of it the offline token.
const TOKEN = "e".repeat(760);
const app = Fastify({ logger: false });

/** Sends `body` signed as the service signs a desktop answer. */
function sendSigned(request, reply, body) {
  const created = Math.floor(Date.now() / 1000);
  const nonce = request.headers["flotilla-nonce"] ?? "-";
  const input = `POST\n${request.url}\n${created}\n${nonce}\nsha-256=${hash("sha256", body, "base64")}`;
  const signature = sign(null, Buffer.from(input), privateKey).toString("base64url");
  reply
    .header(
      "flotilla-signature",
      `keyid="bench", alg="ed25519", created=${created}, nonce="${nonce}", signature="${signature}"`,
    )
    .type("application/json; charset=utf-8")
    .send(body);
}

/** `query(text, params)` → rows, on the service's kind of database. */
async function openDatabase() {
  if (process.env.BARE_DATABASE_URL) {
    const pg = require("pg");
    const pool = new pg.Pool({ connectionString: process.env.BARE_DATABASE_URL, max: 10 });
    return { query: async (text, params) => (await pool.query(text, params)).rows, close: () => pool.end() };
  }
  const { PGlite } = await import(pathToFileURL(require.resolve("@electric-sql/pglite")).href);
  const db = new PGlite(process.env.BARE_DATA_DIR);
  return { query: async (text, params) => (await db.query(text, params)).rows, close: () => db.close() };
}
const database = await openDatabase();
await database.query(`create table if not exists bare_leases (
  id uuid primary key, last_heartbeat_at timestamptz not null default now(),
  expires_at timestamptz not null, ended_at timestamptz)`);

app.get("/", async () => ({ success: true, status: "ok" }));
app.post("/signed", (request, reply) => {
  const body = JSON.stringify({
    success: true,
    data: { valid: true, code: "VALID", machine: request.body.machine_id, token: TOKEN },
  });
  sendSigned(request, reply, body);
});
app.post("/seed", async (request) => {
  await database.query(
    "insert into bare_leases (id, expires_at) select unnest($1::uuid[]), now() + interval '1 day' on conflict do nothing",
    [request.body.ids],
  );
  return { success: true };
});
app.post("/api/license/executions/:id/heartbeat", async (request, reply) => {
  const [lease] = await database.query(
    `update bare_leases set last_heartbeat_at = now(), expires_at = now() + interval '1 day'
     where id = $1 and ended_at is null and expires_at > now() returning id, last_heartbeat_at, expires_at`,
    [request.params.id],
  );
  if (!lease) return reply.code(404).send({ success: false, code: "EXECUTION_NOT_FOUND" });
  const body = JSON.stringify({
    success: true,
    data: {
      execution: {
        id: lease.id,
        feature: "bench-run",
        started_at: new Date(lease.last_heartbeat_at).toISOString(),
        heartbeat_interval_seconds: 60,
        expires_at: new Date(lease.expires_at).toISOString(),
      },
      running: 1,
      limit: 1,
      revived: false,
    },
  });
  sendSigned(request, reply, body);
  return reply;
});
await app.listen({ port, host: "127.0.0.1" });
console.log(`bare fastify ${app.version} on ${port}, Node ${process.version}`);
process.on("SIGTERM", () =>
  app
    .close()
    .then(() => database.close())
    .then(() => process.exit(0)),
);
