import { screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeApi, json, renderAdmin, signedInAdmin } from "./test-helpers";

const SUBSCRIBER = {
  id: "00000000-0000-4000-8000-000000000001",
  email: "reader@example.com",
  source: "blog",
  status: "confirmed",
  subscribed_at: "2026-01-02T10:00:00.000Z",
  confirmed_at: "2026-01-02T10:05:00.000Z",
  unsubscribed_at: null,
};

beforeEach(() => {
  localStorage.clear();
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("Newsletter subscribers", () => {
  it("exports the current filter as CSV, with the session's token", async () => {
    const api = fakeApi({
      ...signedInAdmin(),
      "GET /api/admin/subscribers": () => json(200, { success: true, data: [SUBSCRIBER], next_cursor: null }),
      "GET /api/admin/subscribers/export": () =>
        new Response("email,source,status\nreader@example.com,blog,confirmed\n", {
          status: 200,
          headers: { "Content-Type": "text/csv; charset=utf-8" },
        }),
    });
    const createObjectURL = vi.fn(() => "blob:subscribers");
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    const clicked = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    const { user } = renderAdmin("/admin?tab=subscribers");
    await screen.findByRole("table", { name: "Subscribers" });

    await user.type(screen.getByLabelText("Email"), "reader");
    await user.selectOptions(screen.getByLabelText("Status"), "confirmed");
    await user.click(screen.getByRole("button", { name: "Apply filters" }));
    await user.click(screen.getByRole("button", { name: "Export CSV" }));

    await vi.waitFor(() => expect(clicked).toHaveBeenCalled());
    const exported = api.calls("GET", "/api/admin/subscribers/export")[0]!;
    expect(Object.fromEntries(exported.url.searchParams)).toEqual({ q: "reader", status: "confirmed" });
    expect(new Headers(exported.init?.headers).get("Authorization")).toBe("Bearer admin-token");
  });

  it("says why an export failed", async () => {
    fakeApi({
      ...signedInAdmin(),
      "GET /api/admin/subscribers": () => json(200, { success: true, data: [SUBSCRIBER], next_cursor: null }),
      "GET /api/admin/subscribers/export": () => json(403, { success: false, error: "Admins only." }),
    });
    const { user } = renderAdmin("/admin?tab=subscribers");
    await screen.findByRole("table", { name: "Subscribers" });
    await user.click(screen.getByRole("button", { name: "Export CSV" }));
    expect(await screen.findByText(/Admins only/)).toBeInTheDocument();
  });
});
