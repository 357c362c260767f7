// µs of CPU per Ed25519 signature of a signed answer's size (median of 7 batches of 500), printed alone: bench:api
// runs it with the Node it measures the service on, since OpenSSL's cost differs between Node lines.
import { generateKeyPairSync, sign } from "node:crypto";

const { privateKey } = generateKeyPairSync("ed25519");
const input = Buffer.from("x".repeat(160));
const batches = [];
for (let batch = 0; batch < 8; batch++) {
  const started = process.cpuUsage();
  for (let i = 0; i < 500; i++) sign(null, input, privateKey);
  const used = process.cpuUsage(started);
  if (batch > 0) batches.push((used.user + used.system) / 500); // the first batch warms up
}
console.log(batches.sort((a, b) => a - b)[3]);
