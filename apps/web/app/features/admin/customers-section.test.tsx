import { screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeApi, json, renderAdmin, signedInAdmin } from "./test-helpers";

const CUSTOMER_ID = "11111111-1111-4111-8111-111111111111";
const CUSTOMER = {
  id: CUSTOMER_ID,
  email: "grace@example.com",
  name: "Grace Hopper",
  created_at: "2026-01-02T10:00:00.000Z",
  last_sign_in_at: "2026-01-03T10:00:00.000Z",
};
const LICENSE = {
  id: "22222222-2222-4222-8222-222222222222",
  license_key: "FLOT-ABCDE-FGHJK-MNPQR-STVWX-YZ012",
  tier: "free",
  status: "active",
  max_machines: 3,
  expires_at: null,
  last_seen: null,
  created_at: "2026-01-02T10:00:00.000Z",
  offline_files_allowed: false,
};
function detail(status = "active") {
  return {
    success: true,
    data: {
      customer: CUSTOMER,
      is_admin: false,
      licenses: [
        {
          ...LICENSE,
          status,
          machines: [
            {
              machine_id: "grace-laptop",
              display_id: "LAPT-1111",
              machine_name: "Grace's laptop",
              platform: "macos",
              is_primary: true,
              bound_at: "2026-01-02T11:00:00.000Z",
              last_seen: null,
              status: "active",
              license_file_until: "2026-03-01T10:00:00.000Z",
            },
          ],
          executions: { limit: 1, running: 0, list: [] },
        },
      ],
      sessions: [
        {
          id: "s1",
          created_at: "2026-01-02T10:00:00.000Z",
          last_used_at: "2026-01-03T10:00:00.000Z",
          expires_at: "2026-02-02T10:00:00.000Z",
        },
      ],
    },
  };
}

beforeEach(() => {
  localStorage.clear();
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("Customers", () => {
  it("finds a customer by email and shows their licenses, devices and sessions", async () => {
    const api = fakeApi({
      ...signedInAdmin(),
      "GET /api/admin/customers": () => json(200, { success: true, data: [CUSTOMER], next_cursor: null }),
      [`GET /api/admin/customers/${CUSTOMER_ID}`]: () => json(200, detail()),
    });
    const { user, router } = renderAdmin("/admin?tab=customers");
    await user.type(await screen.findByLabelText("Email or name"), "grace");
    await user.click(screen.getByRole("button", { name: "Search" }));
    await vi.waitFor(() =>
      expect(api.calls("GET", "/api/admin/customers").at(-1)!.url.searchParams.get("q")).toBe("grace"),
    );
    await user.click(await screen.findByRole("link", { name: "Grace Hopper" }));
    expect(new URLSearchParams(router.state.location.search).get("customer")).toBe(CUSTOMER_ID);

    expect(await screen.findByRole("heading", { level: 2, name: "Grace Hopper" })).toBeInTheDocument();
    const license = screen.getByRole("region", { name: /License FLOT-ABCDE/ });
    expect(within(license).getByText("Active")).toBeInTheDocument();
    expect(within(license).getByText("Grace's laptop")).toBeInTheDocument();
    expect(screen.getByRole("table", { name: "Live sessions" })).toBeInTheDocument();
  });

  it("suspends a license only with a reason, in a confirmation dialog, then shows the new status", async () => {
    let status = "active";
    const api = fakeApi({
      ...signedInAdmin(),
      [`GET /api/admin/customers/${CUSTOMER_ID}`]: () => json(200, detail(status)),
      [`POST /api/admin/licenses/${LICENSE.license_key}/actions`]: () => {
        status = "suspended";
        return json(200, { success: true, data: { ...LICENSE, status }, visible_within_seconds: 5 });
      },
    });
    const { user } = renderAdmin(`/admin?tab=customers&customer=${CUSTOMER_ID}`);
    const license = await screen.findByRole("region", { name: /License FLOT-ABCDE/ });
    const opener = within(license).getByRole("button", { name: "Suspend" });
    await user.click(opener);

    const dialog = screen.getByRole("dialog", { name: "Suspend license" });
    const reason = within(dialog).getByLabelText("Reason");
    expect(reason).toBeRequired();
    await vi.waitFor(() => expect(reason).toHaveFocus());
    await user.click(within(dialog).getByRole("button", { name: "Suspend license" }));
    expect(within(dialog).getByRole("alert")).toHaveTextContent("Give a reason for the change.");
    expect(api.calls("POST", `/api/admin/licenses/${LICENSE.license_key}/actions`)).toHaveLength(0);

    await user.type(reason, "Chargeback on the card");
    await user.click(within(dialog).getByRole("button", { name: "Suspend license" }));
    await vi.waitFor(() =>
      expect(api.calls("POST", `/api/admin/licenses/${LICENSE.license_key}/actions`)[0]?.body).toEqual({
        action: "suspend",
        reason: "Chargeback on the card",
      }),
    );
    expect(await within(license).findByText("Suspended")).toBeInTheDocument();
    expect(screen.getByRole("status")).toHaveTextContent(/every instance within 5 s/);
    expect(within(license).getByRole("button", { name: "Reactivate" })).toBeInTheDocument();
  });

  it("changes tier and device limit, and extends the end date, with their own fields", async () => {
    const api = fakeApi({
      ...signedInAdmin(),
      [`GET /api/admin/customers/${CUSTOMER_ID}`]: () => json(200, detail()),
      [`POST /api/admin/licenses/${LICENSE.license_key}/actions`]: () =>
        json(200, { success: true, data: LICENSE, visible_within_seconds: 5 }),
    });
    const { user } = renderAdmin(`/admin?tab=customers&customer=${CUSTOMER_ID}`);
    const license = await screen.findByRole("region", { name: /License FLOT-ABCDE/ });
    const actions = `/api/admin/licenses/${LICENSE.license_key}/actions`;

    await user.click(within(license).getByRole("button", { name: "Change tier or limit" }));
    let dialog = screen.getByRole("dialog", { name: "Change tier, device limit or license files" });
    await user.selectOptions(within(dialog).getByLabelText("Tier"), "pro");
    await user.clear(within(dialog).getByLabelText("Device limit"));
    await user.type(within(dialog).getByLabelText("Device limit"), "7");
    await user.click(within(dialog).getByLabelText("License files for offline devices allowed"));
    await user.type(within(dialog).getByLabelText("Reason"), "Sales upgrade");
    await user.click(within(dialog).getByRole("button", { name: "Save changes" }));
    await vi.waitFor(() =>
      expect(api.calls("POST", actions)[0]?.body).toEqual({
        action: "change",
        reason: "Sales upgrade",
        tier: "pro",
        max_machines: 7,
        offline_files: true,
      }),
    );

    await user.click(within(license).getByRole("button", { name: "Extend" }));
    dialog = await screen.findByRole("dialog", { name: "Extend license" });
    await user.type(within(dialog).getByLabelText("New end date"), "2027-03-01");
    await user.type(within(dialog).getByLabelText("Reason"), "Goodwill");
    await user.click(within(dialog).getByRole("button", { name: "Extend license" }));
    await vi.waitFor(() =>
      expect(api.calls("POST", actions)[1]?.body).toEqual({
        action: "extend",
        reason: "Goodwill",
        expires_at: "2027-03-01T23:59:59.000Z",
      }),
    );
  });

  it("revokes a device holding a license file, with a reason, and says until when the file may still run", async () => {
    const revoke = `/api/admin/licenses/${LICENSE.license_key}/machines/grace-laptop/revoke`;
    const api = fakeApi({
      ...signedInAdmin(),
      [`GET /api/admin/customers/${CUSTOMER_ID}`]: () => json(200, detail()),
      [`POST ${revoke}`]: () =>
        json(200, { success: true, license_file_valid_until: "2026-03-01T10:00:00.000Z", visible_within_seconds: 1 }),
    });
    const { user } = renderAdmin(`/admin?tab=customers&customer=${CUSTOMER_ID}`);
    const license = await screen.findByRole("region", { name: /License FLOT-ABCDE/ });
    expect(within(license).getByRole("table", { name: "Devices" })).toHaveTextContent("until");
    await user.click(within(license).getByRole("button", { name: "Revoke device LAPT-1111" }));
    const dialog = screen.getByRole("dialog", { name: "Revoke device" });
    expect(dialog).toHaveTextContent("cannot be called back");
    await user.click(within(dialog).getByRole("button", { name: "Revoke device" }));
    expect(within(dialog).getByRole("alert")).toHaveTextContent("Give a reason for the change.");
    expect(api.calls("POST", revoke)).toHaveLength(0);
    await user.type(within(dialog).getByLabelText("Reason"), "Stolen laptop");
    await user.click(within(dialog).getByRole("button", { name: "Revoke device" }));
    await vi.waitFor(() => expect(api.calls("POST", revoke)[0]?.body).toEqual({ reason: "Stolen laptop" }));
    expect(
      await screen.findByText(/Device LAPT-1111 revoked; its license file may keep working offline until/),
    ).toBeInTheDocument();
  });

  it("signs a customer out everywhere after a confirmation", async () => {
    const api = fakeApi({
      ...signedInAdmin(),
      [`GET /api/admin/customers/${CUSTOMER_ID}`]: () => json(200, detail()),
      [`POST /api/admin/customers/${CUSTOMER_ID}/sign-out-everywhere`]: () => json(200, { success: true, revoked: 1 }),
    });
    const { user } = renderAdmin(`/admin?tab=customers&customer=${CUSTOMER_ID}`);
    await user.click(await screen.findByRole("button", { name: "Sign out everywhere" }));
    const dialog = screen.getByRole("dialog", { name: "Sign out everywhere?" });
    await user.click(within(dialog).getByRole("button", { name: "Sign out everywhere" }));
    await vi.waitFor(() =>
      expect(api.calls("POST", `/api/admin/customers/${CUSTOMER_ID}/sign-out-everywhere`)).toHaveLength(1),
    );
    expect(await screen.findByText("Ended 1 session.")).toBeInTheDocument();
  });
});
