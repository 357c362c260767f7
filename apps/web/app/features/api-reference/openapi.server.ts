/**
 * The service's OpenAPI document, exported by the web build before it prerenders (`npm run openapi` in
 * apps/web: apps/api/scripts/export-openapi.mjs). Read at build time only: the reference page ships as HTML.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { renderMarkdown } from "../content/markdown.server";
import { groupOperations, type OperationGroup, statusMeaning } from "./openapi";

const DOCUMENT = join(process.cwd(), ".generated", "openapi.json");

/**
 * The document's operations, grouped, with every description and every answer's meaning rendered from its Markdown
 * (code spans, links).
 */
export async function readApiReference(): Promise<OperationGroup[]> {
  if (!existsSync(DOCUMENT)) {
    throw new Error(`${DOCUMENT} is missing: run \`npm run openapi -w @flotilla/web\` (the web build does it first)`);
  }
  const groups = groupOperations(JSON.parse(readFileSync(DOCUMENT, "utf8")));
  const html = async (markdown: string | undefined) => (markdown ? (await renderMarkdown(markdown)).html : undefined);
  for (const group of groups) {
    group.descriptionHtml = await html(group.description);
    for (const op of group.operations) {
      op.descriptionHtml = await html(op.description);
      for (const answer of op.responses) answer.meaningHtml = await html(statusMeaning(answer));
    }
  }
  return groups;
}
