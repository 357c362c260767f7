// The reference points of `npm run bench:api`, in a process of its own like the service, on the same Fastify (resolved
// from apps/api) and the same Node:
//   GET /         Fastify with no plugins and one trivial JSON route (issue 35's floor, with one signature beside it);
//   POST /signed  the least a signed desktop answer can be in Fastify: the JSON body parsed, a JSON answer of the
//                 same size as a valid validation's, and its Flotilla-Signature header (SHA-256 of the body, one
//                 Ed25519 signature over the same signing input as answer-signing.ts). No schema, hook or database.
import { generateKeyPairSync, hash, sign } from "node:crypto";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../apps/api/package.json", import.meta.url));
const Fastify = require("fastify");
const port = Number(process.env.PORT ?? 3901);
const { privateKey } = generateKeyPairSync("ed25519");
// A valid validation's answer is about 900 bytes, most of it the offline token.
const TOKEN = "e".repeat(760);
const app = Fastify({ logger: false });
app.get("/", async () => ({ success: true, status: "ok" }));
app.post("/signed", (request, reply) => {
  const body = JSON.stringify({
    success: true,
    data: { valid: true, code: "VALID", machine: request.body.machine_id, token: TOKEN },
  });
  const created = Math.floor(Date.now() / 1000);
  const nonce = request.headers["flotilla-nonce"] ?? "-";
  const input = `POST\n/signed\n${created}\n${nonce}\nsha-256=${hash("sha256", body, "base64")}`;
  const signature = sign(null, Buffer.from(input), privateKey).toString("base64url");
  reply
    .header(
      "flotilla-signature",
      `keyid="bench", alg="ed25519", created=${created}, nonce="${nonce}", signature="${signature}"`,
    )
    .type("application/json; charset=utf-8")
    .send(body);
});
await app.listen({ port, host: "127.0.0.1" });
console.log(`bare fastify ${app.version} on ${port}, Node ${process.version}`);
process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
