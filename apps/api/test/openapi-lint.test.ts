/**
 * The published OpenAPI document passes Redocly's recommended rules (issue 24): no errors, and every warning left is
 * listed below with its reason. It is read from an app that serves the built site too, as production does, so a
 * site route can never leak into it again (the review found `/{*}` listed as an API operation).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATION_IDS } from "../src/plugins/openapi";
import { createTestApp } from "./helpers/test-app";

const ORIGIN = "https://licensing.flotilla.test";

/** Warnings we keep, by operationId, with the reason (also in decision 0042). */
const ACCEPTED_WARNINGS: Record<string, { rule: string; why: string }> = {
  getHealth: { rule: "operation-4xx-response", why: "liveness takes no input: there is no client error to answer" },
  getReadiness: { rule: "operation-4xx-response", why: "readiness takes no input: 503 is its only failure" },
  getLicensePublicKey: { rule: "operation-4xx-response", why: "a constant answer to a request without input" },
  listTiers: { rule: "operation-4xx-response", why: "a constant answer to a request without input" },
  listClientConfigurations: { rule: "operation-4xx-response", why: "a constant answer to a request without input" },
  getLicensingHealth: { rule: "operation-4xx-response", why: "liveness of the licensing module, without input" },
};

let app: FastifyInstance;
let close: () => Promise<void>;
// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document, read field by field.
let document: any;
beforeAll(async () => {
  const siteDir = mkdtempSync(join(tmpdir(), "flotilla-openapi-site-"));
  writeFileSync(join(siteDir, "index.html"), "<!doctype html><title>site</title>");
  ({ app, close } = await createTestApp({ siteDir, publicOrigin: ORIGIN }));
  document = (await app.inject("/api/openapi.json")).json();
}, 90_000); // a fresh database and the whole app: slow on a loaded CI machine, and not what this file tests
afterAll(() => close());

function operations(): { key: string; operationId: string | undefined; security: unknown; summary: unknown }[] {
  return Object.entries(document.paths as Record<string, Record<string, Record<string, unknown>>>).flatMap(
    ([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({
        key: `${method.toUpperCase()} ${path}`,
        operationId: operation.operationId as string | undefined,
        security: operation.security,
        summary: operation.summary,
      })),
  );
}

describe("the OpenAPI document integrators' tools read", () => {
  it("passes Redocly's recommended rules: no error, only the warnings listed with their reasons", async () => {
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: "openapi.json",
      config: await createConfig({ extends: ["recommended"] }),
    });
    const errors = problems.filter((problem) => problem.severity === "error");
    expect(errors.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
    const warnings = problems
      .filter((problem) => problem.severity === "warn")
      .map((problem) => {
        // "#/paths/~1api~1health/get/responses" → the operation it is about.
        const pointer = problem.location[0]?.pointer ?? "";
        const [, path, method] = /^#\/paths\/([^/]+)\/([a-z]+)/.exec(pointer) ?? [];
        const operationId = path ? document.paths[path.replaceAll("~1", "/")]?.[method!]?.operationId : undefined;
        return { rule: problem.ruleId, operationId };
      });
    for (const warning of warnings) {
      expect(ACCEPTED_WARNINGS[warning.operationId ?? ""]?.rule, JSON.stringify(warning)).toBe(warning.rule);
    }
  });

  it("lists API operations only: the site's catch-all is not one", () => {
    expect(Object.keys(document.paths).filter((path) => !path.startsWith("/api/"))).toEqual([]);
    expect(JSON.stringify(document.paths)).not.toContain("{*}");
  });

  it("every operation has its stable operationId from one table, unique and lowerCamelCase, and says who may call it", () => {
    const all = operations();
    expect(all.filter((operation) => !operation.operationId).map((operation) => operation.key)).toEqual([]);
    for (const operation of all) {
      expect(operation.operationId, operation.key).toBe(OPERATION_IDS[operation.key]);
      expect(operation.operationId).toMatch(/^[a-z][A-Za-z]+$/);
      expect(Array.isArray(operation.security), `${operation.key} declares security`).toBe(true);
    }
    const ids = all.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    // The table names no operation that no longer exists.
    expect(Object.keys(OPERATION_IDS).sort()).toEqual(all.map((operation) => operation.key).sort());
  });

  it("summaries are plain text (the API reference shows them as headings, not Markdown: no code spans)", () => {
    expect(
      operations()
        .filter((operation) => typeof operation.summary !== "string" || /[`*]/.test(operation.summary))
        .map((operation) => operation.key),
    ).toEqual([]);
  });

  it("names this deployment's origin as its server", () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: ORIGIN })]);
  });
});
