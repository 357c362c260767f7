import { describe, expect, it } from "vitest";
import { DEFAULT_RETURN_PATH, safeReturnPath } from "./return-path";

describe("safeReturnPath", () => {
  it.each([
    ["/dashboard", "/dashboard"],
    ["/docs/agents?tab=1#rules", "/docs/agents?tab=1#rules"],
    ["/blog/a%20b", "/blog/a%20b"],
  ])("keeps the same-origin path %s", (input, expected) => {
    expect(safeReturnPath(input)).toBe(expected);
  });

  it.each([
    "//evil.example",
    "https://evil.example",
    "http://evil.example/dashboard",
    "/\\evil.example",
    "\\\\evil.example",
    "/\t/evil.example",
    "/%2F%2Fevil.example",
    "/%5Cevil.example",
    "%2F%2Fevil.example",
    "javascript:alert(1)",
    "dashboard",
    "",
    "/%E0%A4%A",
    "/.//evil.example",
    "/..//evil.example",
    "/a/..//evil.example",
    "/%2e%2e//evil.example",
    `/${"a".repeat(600)}`,
    undefined,
    null,
    42,
  ])("replaces %j with the default", (input) => {
    expect(safeReturnPath(input)).toBe(DEFAULT_RETURN_PATH);
  });

  it("uses the fallback it is given", () => {
    expect(safeReturnPath("//evil.example", "/")).toBe("/");
  });
});
