import { describe, expect, it } from "vitest";
import { exampleOf, groupOperations, operationAnchor, statusMeaning } from "./openapi";

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
    expect(statusMeaning({ status: "429", description: "Default Response" })).toMatch(/Retry-After/);
    for (const status of ["200", "400", "401", "403", "404", "409", "422", "429", "503"])
      expect(statusMeaning({ status, description: "Default Response" }), status).not.toBe("");
  });

  it("anchors each operation by method and path", () => {
    expect(operationAnchor({ method: "POST", path: "/api/license/executions/{id}/heartbeat" })).toBe(
      "post-api-license-executions-id-heartbeat",
    );
  });
});
