import { screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { emptyPage, fakeApi, json, renderAdmin, signedInAdmin } from "./test-helpers";

const COUNTS = () => json(200, { success: true, interval: "day", total: 0, data: [] });

beforeEach(() => {
  localStorage.clear();
  vi.spyOn(console, "warn").mockImplementation(() => {});
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("/admin: who gets in (the server decides)", () => {
  it("sends a signed-out visitor to sign in, with /admin as the return path", async () => {
    const api = fakeApi({});
    const { router } = renderAdmin("/admin?tab=audit");
    expect(await screen.findByRole("heading", { name: "Sign in page" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/login");
    expect(new URLSearchParams(router.state.location.search).get("redirect")).toBe("/admin?tab=audit");
    expect(api.fetchMock).not.toHaveBeenCalled();
  });

  it("sends a visitor whose session the server refuses to sign in", async () => {
    localStorage.setItem("auth_token", "stale");
    fakeApi({
      "GET /api/auth/validate": () => json(401, { success: false, error: "Invalid token" }),
      "GET /api/admin/me": () => json(401, { success: false, error: "Invalid token" }),
    });
    const { router } = renderAdmin();
    expect(await screen.findByRole("heading", { name: "Sign in page" })).toBeInTheDocument();
    expect(new URLSearchParams(router.state.location.search).get("redirect")).toBe("/admin");
  });

  it("tells a signed-in customer who is not an admin so, and loads no admin data", async () => {
    const routes = signedInAdmin();
    routes["GET /api/admin/me"] = () =>
      json(403, { success: false, error: "This needs an admin account.", code: "FORBIDDEN" });
    const api = fakeApi(routes);
    renderAdmin();
    expect(await screen.findByRole("heading", { level: 1, name: "Not an admin" })).toBeInTheDocument();
    expect(screen.getByText(/ops@example\.com/)).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Go to your dashboard" })).toHaveAttribute("href", "/dashboard");
    expect(api.calls("GET", "/api/admin/signups")).toHaveLength(0);
  });

  it("shows the console to an admin, early access first, and switches sections in the address", async () => {
    const api = fakeApi({
      ...signedInAdmin(),
      "GET /api/admin/signups": emptyPage,
      "GET /api/admin/signups/counts": COUNTS,
      "GET /api/admin/audit": emptyPage,
    });
    const { router, user } = renderAdmin();
    expect(await screen.findByRole("heading", { level: 1, name: "Operator console" })).toBeInTheDocument();
    expect(screen.getByText(/ops@example\.com/)).toBeInTheDocument();
    const nav = screen.getByRole("navigation", { name: "Console sections" });
    expect(nav).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Early access" })).toHaveAttribute("aria-current", "page");
    expect(await screen.findByText("No signups match these filters.")).toBeInTheDocument();

    await user.click(screen.getByRole("link", { name: "Audit log" }));
    expect(router.state.location.search).toBe("?tab=audit");
    expect(await screen.findByRole("heading", { level: 2, name: "Audit log" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Audit log" })).toHaveAttribute("aria-current", "page");
    expect(api.calls("GET", "/api/admin/audit").length).toBeGreaterThan(0);
  });
});
