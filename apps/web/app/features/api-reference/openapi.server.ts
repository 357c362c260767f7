/**
 * The service's OpenAPI document, exported by the web build before it prerenders (`npm run openapi` in
 * apps/web: apps/api/scripts/export-openapi.mjs). Read at build time only: the reference page ships as HTML.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { groupOperations, type OperationGroup } from "./openapi";

const DOCUMENT = join(process.cwd(), ".generated", "openapi.json");

export function readApiReference(): OperationGroup[] {
  if (!existsSync(DOCUMENT)) {
    throw new Error(`${DOCUMENT} is missing: run \`npm run openapi -w @flotilla/web\` (the web build does it first)`);
  }
  return groupOperations(JSON.parse(readFileSync(DOCUMENT, "utf8")));
}
