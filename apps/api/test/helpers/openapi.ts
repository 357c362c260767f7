/**
 * The API's operations as its own OpenAPI document describes them, for suites that must cover every
 * endpoint (IDOR matrix, fuzzing, headers): a new route shows up here without anyone listing it.
 */
import type { FastifyInstance } from "fastify";

/** The subset of JSON Schema the zod → OpenAPI transform emits for our contracts. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  /** "POST /api/license/usage": the key tables in the suites are written against. */
  key: string;
  method: string;
  /** The OpenAPI path, with `{name}` placeholders. */
  path: string;
  /** Declares bearer authentication (`security: [{ bearerAuth: [] }]`). */
  bearer: boolean;
  /** Declares the license key scheme (`Authorization: License <key>`, the updater feeds, decision 0059). */
  licenseAuth: boolean;
  pathParams: Parameter[];
  queryParams: Parameter[];
  headerParams: Parameter[];
  /** The JSON request body schema, when the operation takes one. */
  body: JsonSchema | null;
  bodyRequired: boolean;
  /** Status codes the document lists. */
  responses: string[];
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const;

interface OpenApiDocument {
  paths: Record<string, Record<string, Record<string, unknown>>>;
}

export async function openApiDocument(app: FastifyInstance): Promise<OpenApiDocument> {
  const response = await app.inject("/api/openapi.json");
  if (response.statusCode !== 200) throw new Error(`the OpenAPI document answered ${response.statusCode}`);
  return response.json() as OpenApiDocument;
}

/** Every operation under /api (the development issuer at /oidc is not part of the API). */
export async function apiOperations(app: FastifyInstance): Promise<Operation[]> {
  const document = await openApiDocument(app);
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith("/api/") || path.startsWith("/oidc")) continue;
    for (const method of METHODS) {
      const operation = item[method] as
        | {
            security?: Record<string, unknown>[];
            parameters?: Parameter[];
            requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
            responses?: Record<string, unknown>;
          }
        | undefined;
      if (!operation) continue;
      const parameters = operation.parameters ?? [];
      operations.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        bearer: (operation.security ?? []).some((requirement) => "bearerAuth" in requirement),
        licenseAuth: (operation.security ?? []).some((requirement) => "licenseAuth" in requirement),
        pathParams: parameters.filter((p) => p.in === "path"),
        queryParams: parameters.filter((p) => p.in === "query"),
        headerParams: parameters.filter((p) => p.in === "header"),
        body: operation.requestBody?.content?.["application/json"]?.schema ?? null,
        bodyRequired: operation.requestBody?.required ?? false,
        responses: Object.keys(operation.responses ?? {}),
      });
    }
  }
  return operations;
}

/** The concrete URL for an operation: path placeholders filled (encoded) and an optional query string. */
export function operationUrl(
  operation: Pick<Operation, "path">,
  pathValues: Record<string, string>,
  query?: Record<string, string> | string,
): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    const value = pathValues[name];
    if (value === undefined) throw new Error(`no value for path parameter {${name}} of ${operation.path}`);
    return encodeURIComponent(value);
  });
  if (query === undefined) return path;
  const search = typeof query === "string" ? query : new URLSearchParams(query).toString();
  return search ? `${path}?${search}` : path;
}
