import { describe, expect, it } from "vitest";
import { isClientOnlyPath, isNavItemActive, NAV_ITEMS } from "./navigation";

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

describe("isClientOnlyPath (the server's app-shell rule)", () => {
  it("serves the shell for the client-only pages and anything beneath /auth/callback", () => {
    for (const path of [
      "/login",
      "/dashboard",
      "/admin",
      "/auth/callback",
      "/auth/callback/abc",
      "/newsletter/unsubscribe",
      "/newsletter/confirm",
    ]) {
      expect(isClientOnlyPath(path)).toBe(true);
    }
  });

  it("treats paths beneath the other client-only pages, and other spellings, as unknown", () => {
    for (const path of [
      "/login/google",
      "/dashboard/licenses",
      "/admin/x",
      "/newsletter/unsubscribe/x",
      "/newsletter/confirm/x",
      "/Dashboard",
      "/auth",
    ]) {
      expect(isClientOnlyPath(path)).toBe(false);
    }
  });
});
