import { describe, expect, it } from "vitest";
import { groupOperations } from "./openapi";

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
