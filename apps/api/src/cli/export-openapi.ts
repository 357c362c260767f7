/**
 * Writes the service's OpenAPI document to a file, without listening or touching a data folder: the web build
 * renders the API reference page from it (docs/decisions/0034), so the prerendered page lists every route the
 * service has, described by the same zod schemas that validate them.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { PUBLIC_ORIGIN_PLACEHOLDER } from "@flotilla/contracts/brand";
import { buildApp } from "../app";
import { loadConfig } from "../config";

export async function openApiDocument(): Promise<unknown> {
  const config = {
    ...loadConfig({ LOG_LEVEL: "silent", NODE_ENV: "development" }),
    siteDir: null,
    dataDir: null,
    database: { kind: "pglite", dataDir: null } as const,
    backgroundJobs: false,
    // The build writes this placeholder wherever an origin belongs; each instance serves its own (decision 0024).
    publicOrigin: PUBLIC_ORIGIN_PLACEHOLDER,
    // In memory only: nothing is signed or sent while the document is read.
    appSecret: "openapi-export-openapi-export-openapi-export",
  };
  const app = await buildApp(config);
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
  }
}

const out = process.argv[2];
if (out) {
  const document = await openApiDocument();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
  console.log(`api: wrote the OpenAPI document to ${out}`);
}
