// Writes the typed client's types (openapi-typescript) from the service's OpenAPI document:
//   node apps/api/scripts/openapi-client.mjs        (npm run -s openapi:client -w @flotilla/api)
// apps/api/test/openapi-client.test.ts fails while the committed file differs from what this writes, and makes real
// calls with openapi-fetch and these types, as an integrator's generated client would (decision 0042).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";

export const CLIENT_TYPES = new URL("../test/generated/flotilla-api.ts", import.meta.url).pathname;

/** The types for `document`, exactly as the committed file holds them. */
export async function clientTypes(document) {
  return `${COMMENT_HEADER}${astToString(await openapiTS(document))}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = mkdtempSync(join(tmpdir(), "flotilla-openapi-"));
  try {
    const out = join(dir, "openapi.json");
    const exported = spawnSync(process.execPath, [new URL("./export-openapi.mjs", import.meta.url).pathname, out], {
      stdio: "inherit",
    });
    if (exported.status !== 0) process.exit(exported.status ?? 1);
    writeFileSync(CLIENT_TYPES, await clientTypes(JSON.parse(readFileSync(out, "utf8"))));
    console.log(`api: wrote the typed client's types to ${CLIENT_TYPES}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
