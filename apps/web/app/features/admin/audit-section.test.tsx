import { screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeApi, json, renderAdmin, signedInAdmin } from "./test-helpers";

function event(seq: number) {
  return {
    id: `evt-${seq}`,
    type: "license.status_changed",
    actor: { type: "admin", id: "c-admin", email: "ops@example.com" },
    target: { type: "license", id: `lic-${seq}` },
    customer_id: null,
    license_id: null,
    license_key_hint: null,
    before: { status: "active" },
    after: { status: "suspended" },
    reason: `Reason ${seq}`,
    address: "127.0.0.1",
    occurred_at: "2026-01-02T10:00:00.000Z",
  };
}

beforeEach(() => {
  localStorage.clear();
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("Audit log", () => {
  it("filters by type, actor, target and dates, and loads more with the cursor", async () => {
    const api = fakeApi({
      ...signedInAdmin(),
      "GET /api/admin/audit": (url) =>
        url.searchParams.get("cursor")
          ? json(200, { success: true, data: [event(1)], next_cursor: null })
          : json(200, { success: true, data: [event(2)], next_cursor: "SEQ-1" }),
    });
    const { user } = renderAdmin("/admin?tab=audit");
    const table = await screen.findByRole("table", { name: "Audit events" });
    expect(within(table).getByText("Reason 2")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Load more" }));
    expect(await within(table).findByText("Reason 1")).toBeInTheDocument();
    expect(api.calls("GET", "/api/admin/audit").at(-1)!.url.searchParams.get("cursor")).toBe("SEQ-1");

    await user.selectOptions(screen.getByLabelText("Event type"), "license.status_changed");
    await user.type(screen.getByLabelText("Actor"), "ops@");
    await user.selectOptions(screen.getByLabelText("Target type"), "license");
    await user.type(screen.getByLabelText("Target id"), "lic-2");
    await user.type(screen.getByLabelText("From"), "2026-01-01");
    await user.type(screen.getByLabelText("To"), "2026-01-31");
    await user.click(screen.getByRole("button", { name: "Apply filters" }));
    await vi.waitFor(() =>
      expect(Object.fromEntries(api.calls("GET", "/api/admin/audit").at(-1)!.url.searchParams)).toEqual({
        type: "license.status_changed",
        actor: "ops@",
        target_type: "license",
        target_id: "lic-2",
        from: "2026-01-01",
        to: "2026-01-31",
        limit: "50",
      }),
    );
  });

  it("names a license by its key's hint, not its id; a missing value reads 'none', never 'null'; times name their zone", async () => {
    fakeApi({
      ...signedInAdmin(),
      "GET /api/admin/audit": () =>
        json(200, {
          success: true,
          data: [
            {
              ...event(3),
              target: { type: "license", id: "8d6c1a52-5f0e-4c59-9a57-0c8f3b1e2d44" },
              license_id: "8d6c1a52-5f0e-4c59-9a57-0c8f3b1e2d44",
              license_key_hint: "…K7P2Q",
              before: { suspended_reason: null },
              after: { suspended_reason: "abuse" },
            },
          ],
          next_cursor: null,
        }),
    });
    renderAdmin("/admin?tab=audit");
    const table = await screen.findByRole("table", { name: "Audit events" });
    const hint = await within(table).findByText("key …K7P2Q");
    expect(hint).toHaveAttribute("title", "8d6c1a52-5f0e-4c59-9a57-0c8f3b1e2d44");
    expect(within(table).queryByText("8d6c1a52-5f0e-4c59-9a57-0c8f3b1e2d44")).not.toBeInTheDocument();
    expect(within(table).getByText("suspended_reason: none → abuse")).toBeInTheDocument();
    expect(table.textContent).not.toMatch(/\bnull\b/);
    expect(within(table).getByText(/^Jan 2, 2026, \d\d:00 [AP]M [A-Z]{2,5}([+-]\d+)?$/)).toBeInTheDocument();
  });
});
