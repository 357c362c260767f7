import type { AdminEntry } from "@flotilla/contracts/admin";
import { screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ADMIN_USER, fakeApi, json, renderAdmin, signedInAdmin } from "./test-helpers";

const CONFIGURED: AdminEntry = {
  id: null,
  email: ADMIN_USER.email,
  source: "config",
  granted_by: null,
  granted_at: null,
};
const GRANTED: AdminEntry = {
  id: "6b0f1c2e-7d0a-4f57-9c53-2d9f5f3a6a10",
  email: "pat@example.com",
  source: "granted",
  granted_by: ADMIN_USER.email,
  granted_at: "2026-01-02T10:00:00.000Z",
};
const OTHER_CONFIGURED: AdminEntry = {
  id: null,
  email: "root@example.com",
  source: "config",
  granted_by: null,
  granted_at: null,
};

beforeEach(() => {
  localStorage.clear();
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("Admins", () => {
  it("lists configured and granted admins; only granted ones other than you can be revoked", async () => {
    fakeApi({
      ...signedInAdmin(),
      "GET /api/admin/admins": () => json(200, { success: true, data: [CONFIGURED, OTHER_CONFIGURED, GRANTED] }),
    });
    renderAdmin("/admin?tab=admins");
    const list = await screen.findByRole("list", { name: "Admins" });
    const rows = within(list).getAllByRole("listitem");
    expect(rows.map((row) => row.textContent)).toEqual([
      expect.stringMatching(/^ops@example\.com\(you\)From ADMIN_EMAILS/),
      expect.stringMatching(/^root@example\.comFrom ADMIN_EMAILS/),
      expect.stringMatching(/^pat@example\.comGranted by ops@example\.com/),
    ]);
    expect(within(list).getAllByRole("button")).toHaveLength(1);
    expect(within(rows[2]!).getByRole("button", { name: "Revoke admin for pat@example.com" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Admins" })).toHaveAttribute("aria-current", "page");
  });

  it("grants: checks the address and the reason before sending, then says so and refreshes the list", async () => {
    let admins = [CONFIGURED];
    const api = fakeApi({
      ...signedInAdmin(),
      "GET /api/admin/admins": () => json(200, { success: true, data: admins }),
      "POST /api/admin/admins": () => {
        admins = [CONFIGURED, { ...GRANTED, email: "new@example.com" }];
        return json(200, { success: true, changed: true, message: "new@example.com is now an admin." });
      },
    });
    const { user } = renderAdmin("/admin?tab=admins");
    await user.click(await screen.findByRole("button", { name: "Grant admin" }));
    const dialog = screen.getByRole("dialog", { name: "Grant admin" });
    const email = within(dialog).getByLabelText("Email");
    await vi.waitFor(() => expect(email).toHaveFocus());

    await user.type(email, "not an email");
    await user.click(within(dialog).getByRole("button", { name: "Grant admin" }));
    expect(within(dialog).getByRole("alert")).toHaveTextContent("Enter an email address, like name@example.com.");
    expect(email).toHaveAttribute("aria-invalid", "true");

    await user.clear(email);
    await user.type(email, " new@example.com ");
    await user.click(within(dialog).getByRole("button", { name: "Grant admin" }));
    expect(within(dialog).getByRole("alert")).toHaveTextContent("Give a reason for the change.");
    expect(api.calls("POST", "/api/admin/admins")).toHaveLength(0);

    await user.type(within(dialog).getByLabelText("Reason"), "joins support");
    await user.click(within(dialog).getByRole("button", { name: "Grant admin" }));
    await vi.waitFor(() =>
      expect(api.calls("POST", "/api/admin/admins")[0]?.body).toEqual({
        email: "new@example.com",
        reason: "joins support",
      }),
    );
    expect(await screen.findByText("new@example.com is now an admin.")).toBeInTheDocument();
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    expect(await within(screen.getByRole("list", { name: "Admins" })).findByText("new@example.com")).toBeVisible();
  });

  it("revokes with a reason, and shows the server's refusal in the dialog", async () => {
    let admins = [CONFIGURED, GRANTED];
    let refuse = true;
    const api = fakeApi({
      ...signedInAdmin(),
      "GET /api/admin/admins": () => json(200, { success: true, data: admins }),
      "POST /api/admin/admins/revoke": () => {
        if (refuse) {
          return json(409, {
            success: false,
            error: "This is the last admin: grant the role to someone else first.",
            code: "LAST_ADMIN",
          });
        }
        admins = [CONFIGURED];
        return json(200, { success: true, changed: true, message: "pat@example.com is no longer an admin." });
      },
    });
    const { user } = renderAdmin("/admin?tab=admins");
    await user.click(await screen.findByRole("button", { name: "Revoke admin for pat@example.com" }));
    const dialog = screen.getByRole("dialog", { name: "Revoke admin" });
    expect(dialog).toHaveTextContent("pat@example.com loses access to this console at once.");
    await user.type(within(dialog).getByLabelText("Reason"), "left the team");
    await user.click(within(dialog).getByRole("button", { name: "Revoke admin" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("This is the last admin");

    refuse = false;
    await user.click(within(dialog).getByRole("button", { name: "Revoke admin" }));
    expect(await screen.findByText("pat@example.com is no longer an admin.")).toBeInTheDocument();
    expect(api.calls("POST", "/api/admin/admins/revoke").map((call) => call.body)).toEqual([
      { email: "pat@example.com", reason: "left the team" },
      { email: "pat@example.com", reason: "left the team" },
    ]);
    await vi.waitFor(() => expect(screen.queryByText("pat@example.com")).not.toBeInTheDocument());
  });
});
