import { describe, expect, it } from "vitest";
import { exampleOf, groupOperations, operationAnchor, operationsOf, statusLabel, statusMeaning } from "./openapi";

const op = (tag: string) => ({ get: { tags: [tag], summary: "", responses: {} } });
/** The order the service registers its routes in: health first. */
const DOC = {
  tags: [
    { name: "Early access", description: "Signup and newsletter" },
    { name: "Licensing", description: "What the desktop app calls with its license key" },
    { name: "Service", description: "Health and readiness" },
  ],
  paths: {
    "/api/health": op("Service"),
    "/api/ready": op("Service"),
    "/api/signup": op("Early access"),
    "/api/auth/validate": op("Sign-in"),
    "/api/license/health": op("Licensing"),
    "/api/license/validate": op("Licensing"),
    "/api/customer/dashboard": op("Customer"),
    "/api/extra": op("Partners"),
    "/{*}": { get: { summary: "site", responses: {} } },
  },
};

describe("API reference order", () => {
  it("leads with what integrators use and ends with the service's health checks", () => {
    const groups = groupOperations(DOC);
    expect(groups.map((g) => g.tag)).toEqual([
      "Licensing",
      "Customer",
      "Sign-in",
      "Early access",
      "Partners",
      "Service",
    ]);
    expect(groups[0]?.description).toBe("What the desktop app calls with its license key");
  });

  it("puts a section's internal probes after its real endpoints", () => {
    const licensing = groupOperations(DOC)[0]!;
    expect(licensing.operations.map((o) => o.path)).toEqual(["/api/license/validate", "/api/license/health"]);
  });

  it("leaves out the site's own routes", () => {
    const paths = groupOperations(DOC).flatMap((g) => g.operations.map((o) => o.path));
    expect(paths).not.toContain("/{*}");
  });
});

describe("API reference content", () => {
  it("makes an example from a schema: consts, defaults and enums first, then plausible values by type and name", () => {
    const example = exampleOf({
      type: "object",
      properties: {
        success: { const: true },
        license_key: { type: "string" },
        tier: { enum: ["free", "plus"] },
        newsletter: { type: "boolean", default: false },
        expires_at: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
        machines: { type: "array", items: { type: "object", properties: { id: { type: "string" } } } },
        count: { type: "integer" },
      },
    });
    expect(example).toEqual({
      success: true,
      license_key: "FLOT-7K2QW-M9XPL-4RTVB-8HNCD-3JZYF",
      tier: "free",
      newsletter: false,
      expires_at: "2026-11-26T12:00:00.000Z",
      machines: [{ id: "3f2c1e7a-5b1d-4c8e-9a0f-1b2c3d4e5f60" }],
      count: 1,
    });
  });

  it("says what each answer means: the operation's own words, else the status's meaning, never 'Default Response'", () => {
    expect(statusMeaning({ status: "409", description: "The license already has a machine there" })).toBe(
      "The license already has a machine there",
    );
    // The document's words win even where the generic meaning would say something else.
    expect(statusMeaning({ status: "404", description: "NOT_FOUND: no license has this key" })).toBe(
      "NOT_FOUND: no license has this key",
    );
    expect(statusMeaning({ status: "404" })).toBe("Nothing with that key or id (or nothing of yours).");
    expect(statusMeaning({ status: "429", description: "Default Response" })).toMatch(/Retry-After/);
    for (const status of ["200", "400", "401", "403", "404", "409", "422", "429", "503"])
      expect(statusMeaning({ status, description: "Default Response" }), status).not.toBe("");
  });

  it("lists each operation's own answers with their own meaning, and the failures any operation may give last", () => {
    const [validate, dashboard] = operationsOf({
      paths: {
        "/api/license/validate": {
          post: {
            tags: ["Licensing"],
            summary: "Validate",
            responses: {
              "200": { description: "Default Response" },
              "400": { description: "VALIDATION_ERROR: a field is missing or invalid" },
              "429": { description: "RATE_LIMITED: too many calls" },
              default: { description: "- 500 INTERNAL_ERROR: the service failed" },
            },
          },
        },
        "/api/customer/dashboard": {
          get: {
            tags: ["Customer"],
            summary: "Dashboard",
            responses: { "200": {}, "401": { description: "INVALID_SESSION: the session ended" } },
          },
        },
      },
    });
    expect(validate?.responses.map((answer) => [statusLabel(answer.status), statusMeaning(answer)])).toEqual([
      ["200", "Done: the answer below."],
      ["400", "VALIDATION_ERROR: a field is missing or invalid"],
      ["429", "RATE_LIMITED: too many calls"],
      ["Other failures", "- 500 INTERNAL_ERROR: the service failed"],
    ]);
    expect(dashboard?.responses.map((answer) => answer.status)).toEqual(["200", "401"]);
  });

  it("names the `default` answer 'Other failures', never a status number", () => {
    expect(statusLabel("default")).toBe("Other failures");
    expect(statusLabel("404")).toBe("404");
    expect(statusMeaning({ status: "default" })).toMatch(/other failure/i);
  });

  it("anchors each operation by method and path", () => {
    expect(operationAnchor({ method: "POST", path: "/api/license/executions/{id}/heartbeat" })).toBe(
      "post-api-license-executions-id-heartbeat",
    );
  });
});
