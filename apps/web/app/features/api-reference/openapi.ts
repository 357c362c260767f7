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
}

const METHODS = ["get", "post", "put", "patch", "delete"];

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
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
