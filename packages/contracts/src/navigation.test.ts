import { describe, expect, it } from "vitest";
import { isNavItemActive, NAV_ITEMS } from "./navigation";

describe("isNavItemActive (equals or starts with the item's href)", () => {
  it("highlights an item on its own path", () => {
    expect(isNavItemActive("/pricing", "/pricing")).toBe(true);
    expect(isNavItemActive("/blog", "/blog")).toBe(true);
  });

  it("highlights an item on paths beneath it", () => {
    expect(isNavItemActive("/docs/agents", "/docs")).toBe(true);
    expect(isNavItemActive("/blog/pricing-philosophy", "/blog")).toBe(true);
  });

  it("does not highlight unrelated items", () => {
    expect(isNavItemActive("/pricing", "/blog")).toBe(false);
    expect(isNavItemActive("/docsearch", "/docs")).toBe(false);
  });

  it("highlights Home on / only, since every path starts with /", () => {
    expect(isNavItemActive("/", "/")).toBe(true);
    expect(isNavItemActive("/pricing", "/")).toBe(false);
  });

  it("highlights exactly one item for each top-level page", () => {
    for (const path of ["/", "/docs/tasks", "/pricing", "/blog/light-dark-mode", "/about"]) {
      expect(NAV_ITEMS.filter((item) => isNavItemActive(path, item.href))).toHaveLength(1);
    }
  });
});
