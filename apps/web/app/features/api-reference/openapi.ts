/** The small part of an OpenAPI 3 document the reference page reads. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  default?: unknown;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  format?: string;
  description?: string;
}

export interface Operation {
  method: string;
  path: string;
  tag: string;
  summary: string;
  description?: string;
  parameters: { name: string; in: string; required?: boolean; schema?: JsonSchema }[];
  body?: JsonSchema;
  responses: { status: string; schema?: JsonSchema }[];
}

interface OpenApiDocument {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  tags?: { name: string; description?: string }[];
}

/**
 * The order a reader meets the API in: what the desktop app (and anyone integrating it) calls first (licensing, then
 * execution leases), then the portal's endpoints, sign-in and early access; the service's own health and readiness
 * checks come last.
 * Tags the list does not know follow in the document's order, before Service.
 */
export const TAG_ORDER = ["Licensing", "Executions", "Customer", "Sign-in", "Early access"] as const;
const LAST_TAG = "Service";
/** Internal probes: at the end of their section, whatever tag they carry. */
const isProbe = (op: Operation) => /\/(health|ready)$/.test(op.path);

export interface OperationGroup {
  tag: string;
  description?: string;
  operations: Operation[];
}

export function groupOperations(doc: OpenApiDocument): OperationGroup[] {
  const operations = operationsOf(doc);
  const tags = [...new Set(operations.map((op) => op.tag))];
  const rank = (tag: string) => {
    const known = (TAG_ORDER as readonly string[]).indexOf(tag);
    if (known >= 0) return known;
    return tag === LAST_TAG ? TAG_ORDER.length + tags.length : TAG_ORDER.length + tags.indexOf(tag);
  };
  return tags
    .sort((a, b) => rank(a) - rank(b))
    .map((tag) => ({
      tag,
      description: doc.tags?.find((t) => t.name === tag)?.description,
      operations: operations.filter((op) => op.tag === tag).sort((a, b) => Number(isProbe(a)) - Number(isProbe(b))),
    }));
}

const METHODS = ["get", "post", "put", "patch", "delete"];

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    // The site's own catch-all route is not part of the API.
    if (!path.startsWith("/api/")) continue;
    for (const method of METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op) continue;
      const content = (op.requestBody as { content?: Record<string, { schema?: JsonSchema }> } | undefined)?.content;
      const responses = Object.entries(
        (op.responses as Record<string, { content?: Record<string, { schema?: JsonSchema }> }>) ?? {},
      );
      operations.push({
        method: method.toUpperCase(),
        path,
        tag: ((op.tags as string[] | undefined) ?? ["Other"])[0]!,
        summary: String(op.summary ?? ""),
        description: op.description as string | undefined,
        parameters: (op.parameters as Operation["parameters"] | undefined) ?? [],
        body: content?.["application/json"]?.schema,
        responses: responses.map(([status, response]) => ({
          status,
          schema: response.content?.["application/json"]?.schema,
        })),
      });
    }
  }
  return operations;
}

export function describeType(schema: JsonSchema | undefined): string {
  if (!schema) return "";
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  if (schema.anyOf) return schema.anyOf.map(describeType).join(" | ");
  if (schema.type === "array") return `${describeType(schema.items)}[]`;
  return Array.isArray(schema.type) ? schema.type.join(" | ") : (schema.type ?? "any");
}
