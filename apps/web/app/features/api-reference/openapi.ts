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
  /** The description rendered from its Markdown at build time (openapi.server.ts). */
  descriptionHtml?: string;
  parameters: { name: string; in: string; required?: boolean; schema?: JsonSchema }[];
  body?: JsonSchema;
  responses: Answer[];
}

/** One answer an operation declares: a status (or `default`, the failures any operation may give) and its meaning. */
export interface Answer {
  status: string;
  description?: string;
  /** The meaning rendered from its Markdown at build time (openapi.server.ts). */
  meaningHtml?: string;
  schema?: JsonSchema;
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
  descriptionHtml?: string;
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
        (op.responses as Record<string, { description?: string; content?: Record<string, { schema?: JsonSchema }> }>) ??
          {},
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
          description: response.description,
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

/** The anchor of an operation on the page: `post-api-license-validate`. */
export function operationAnchor(op: Pick<Operation, "method" | "path">): string {
  return `${op.method}-${op.path}`
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
}

/** What an answer's status means, where the operation says no more than the framework's "Default Response". */
const STATUS_MEANING: Record<string, string> = {
  default: "Any other failure: the error and its code say what happened.",
  "200": "Done: the answer below.",
  "201": "Created: the answer below.",
  "204": "Done, with no body.",
  "400": "The request is malformed or a field is invalid: the error says which.",
  "401": "No valid session or key: sign in again.",
  "403": "Signed in, but not allowed to do this.",
  "404": "Nothing with that key or id (or nothing of yours).",
  "406": "The Accept header asks for something this endpoint does not send.",
  "409": "It conflicts with the current state: the code says how.",
  "410": "It existed, but is gone.",
  "413": "The body is too large.",
  "422": "Understood, but refused by a rule: the code says which.",
  "429": "Too many requests: wait for Retry-After.",
  "500": "The service failed; try again.",
  "503": "Temporarily unavailable (starting, draining or a dependency down); try again shortly.",
};

/** The operation's own meaning for an answer, else what its status generally means. */
export function statusMeaning(response: Pick<Answer, "status" | "description">): string {
  const own = response.description?.trim();
  if (own && own !== "Default Response") return own;
  return STATUS_MEANING[response.status] ?? "";
}

/** How an answer is named on the page: its status, or "Other failures" for OpenAPI's `default`. */
export function statusLabel(status: string): string {
  return status === "default" ? "Other failures" : status;
}

/**
 * A plausible value for a schema: its example, default, const or first enum value, else one made from its type and
 * format. Shown as each operation's request and response example; generated from the same document, so it cannot
 * drift from what the service accepts.
 */
export function exampleOf(schema: JsonSchema | undefined, name = "", depth = 0): unknown {
  if (!schema || depth > 6) return null;
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.anyOf?.length) {
    const concrete = schema.anyOf.find((option) => option.type !== "null") ?? schema.anyOf[0];
    return exampleOf(concrete, name, depth + 1);
  }
  const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== "null") ?? schema.type[0]) : schema.type;
  switch (type) {
    case "object":
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, value]) => [key, exampleOf(value, key, depth + 1)]),
      );
    case "array":
      return schema.items ? [exampleOf(schema.items, name, depth + 1)] : [];
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return true;
    case "null":
      return null;
    case "string":
      return exampleString(schema, name);
    default:
      return schema.properties ? exampleOf({ ...schema, type: "object" }, name, depth) : null;
  }
}

/** Sample values for the fields a reader meets most, so an example reads like a real call. */
const SAMPLE_STRINGS: Record<string, string> = {
  machine_id: "ada-macbook-pro",
  machine_name: "Ada's MacBook Pro",
  platform: "macos",
  app_version: "1.4.2",
  name: "Ada Lovelace",
  feature: "code-review",
  reason: "Customer asked for it",
};

function exampleString(schema: JsonSchema, name: string): string {
  if (SAMPLE_STRINGS[name]) return SAMPLE_STRINGS[name];
  if (schema.format === "date-time" || /_at$|_until$/.test(name)) return "2026-11-26T12:00:00.000Z";
  if (schema.format === "email" || name === "email") return "ada@example.com";
  if (schema.format === "uri" || name.endsWith("url")) return "https://example.com";
  if (schema.format === "uuid" || name === "id" || name.endsWith("_id")) return "3f2c1e7a-5b1d-4c8e-9a0f-1b2c3d4e5f60";
  if (name === "license_key" || name === "key") return "FLOT-7K2QW-M9XPL-4RTVB-8HNCD-3JZYF";
  return name || "string";
}
