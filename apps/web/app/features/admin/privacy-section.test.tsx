import { screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeApi, json, renderAdmin, signedInAdmin } from "./test-helpers";

const EXPORT = {
  format: "flotilla.person-export/2",
  generated_at: "2026-11-26T10:00:00.000Z",
  email: "grace@example.com",
  about: "Everything we hold",
  summary: [],
  audit_log_note: "kept",
  data: { signups: [], newsletter_subscriptions: [], customers: [], audit_events: [], messages: [] },
};
const ERASURE = {
  success: true,
  data: {
    erasure_id: "33333333-3333-4333-8333-333333333333",
    erased: {
      signups: 1,
      newsletter_subscriptions: 1,
      customers: 1,
      licenses: 1,
      machines: 2,
      sessions_revoked: 1,
      messages: 3,
      dev_mail: 0,
      sign_in_records: 0,
      beta_invitations: 0,
    },
    audit_events_kept: 7,
    audit_log_note: "kept",
    visible_within_seconds: 1,
  },
};

beforeEach(() => {
  localStorage.clear();
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("Privacy requests", () => {
  it("exports a person: POSTs the address (never in the URL) and downloads the JSON file", async () => {
    const createObjectURL = vi.fn(() => "blob:export");
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    const api = fakeApi({
      ...signedInAdmin(),
      "POST /api/admin/privacy/export": () =>
        new Response(JSON.stringify(EXPORT), {
          status: 200,
          headers: {
            "Content-Type": "application/json",
            "Content-Disposition": 'attachment; filename="flotilla-personal-data-2026-11-26.json"',
          },
        }),
    });
    const { user } = renderAdmin("/admin?tab=privacy");
    expect(await screen.findByRole("heading", { level: 2, name: "Privacy requests" })).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Export JSON" }));
    expect(screen.getByRole("alert")).toHaveTextContent("Enter the person's email address.");
    expect(api.calls("POST", "/api/admin/privacy/export")).toHaveLength(0);

    await user.type(screen.getByLabelText("Email address"), "grace@example.com");
    await user.click(screen.getByRole("button", { name: "Export JSON" }));
    await vi.waitFor(() => expect(click).toHaveBeenCalled());
    const [call] = api.calls("POST", "/api/admin/privacy/export");
    expect(call!.body).toEqual({ email: "grace@example.com" });
    expect(call!.url.search).toBe("");
    expect(new Headers(call!.init!.headers).get("Authorization")).toBe("Bearer admin-token");
    expect(createObjectURL).toHaveBeenCalled();
    expect((click.mock.contexts[0] as HTMLAnchorElement).download).toBe("flotilla-personal-data-2026-11-26.json");
    expect(await screen.findByText(/The file for grace@example.com is downloading/)).toBeInTheDocument();
  });

  it("erases only after a confirmation that names what happens, with a reason, in danger styling", async () => {
    const api = fakeApi({
      ...signedInAdmin(),
      "POST /api/admin/privacy/erase": () => json(200, ERASURE),
    });
    const { user } = renderAdmin("/admin?tab=privacy&email=grace%40example.com");
    expect(await screen.findByLabelText("Email address")).toHaveValue("grace@example.com");
    const opener = screen.getByRole("button", { name: "Erase…" });
    expect(opener.className).toMatch(/red/);
    await user.click(opener);

    const dialog = screen.getByRole("dialog", { name: "Erase this person?" });
    expect(dialog).toHaveTextContent("grace@example.com");
    expect(dialog).toHaveTextContent(/every device loses its slot/);
    expect(dialog).toHaveTextContent(/signed out everywhere/);
    expect(dialog).toHaveTextContent(/audit log keeps its entries/);
    expect(dialog).toHaveTextContent(/We email the address a notice/);
    expect(dialog).toHaveTextContent(/signing in again creates a new, empty account/);
    const confirm = within(dialog).getByRole("button", { name: "Erase person" });
    expect(confirm.className).toMatch(/red/);
    await user.type(within(dialog).getByLabelText("Type the person's email address to confirm"), "grace@example.com");
    await user.click(confirm);
    expect(within(dialog).getByRole("alert")).toHaveTextContent("Give a reason for the change.");
    expect(api.calls("POST", "/api/admin/privacy/erase")).toHaveLength(0);

    await user.type(within(dialog).getByLabelText("Reason"), "Privacy request #42");
    await user.click(confirm);
    await vi.waitFor(() =>
      expect(api.calls("POST", "/api/admin/privacy/erase")[0]?.body).toEqual({
        email: "grace@example.com",
        reason: "Privacy request #42",
      }),
    );
    const done = await screen.findByText(/Reference 33333333-3333-4333-8333-333333333333/);
    expect(done).toHaveTextContent("deleted 1 signup, 1 subscription, 1 account, 1 license, 2 devices");
    expect(done).toHaveTextContent("7 audit log entries stay");
    expect(done).toHaveTextContent("A notice of the erasure is on its way to the address.");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });

  it("keeps Erase person off until the operator types the person's address (trimmed, in any case)", async () => {
    const api = fakeApi({
      ...signedInAdmin(),
      "POST /api/admin/privacy/erase": () => json(200, ERASURE),
    });
    const { user } = renderAdmin("/admin?tab=privacy&email=Grace%40Example.com");
    await user.click(await screen.findByRole("button", { name: "Erase…" }));
    const dialog = screen.getByRole("dialog", { name: "Erase this person?" });
    const confirm = within(dialog).getByRole("button", { name: "Erase person" });
    const typed = within(dialog).getByLabelText("Type the person's email address to confirm");
    const typeIn = async (text: string) => {
      await user.clear(typed);
      await user.paste(text);
    };
    await user.click(within(dialog).getByLabelText("Reason"));
    await user.paste("Privacy request #42");
    expect(confirm).toBeDisabled();
    expect(typed).toHaveAccessibleDescription("Erase person stays off until the address matches.");

    // A prefix of the address, or another one containing it, is not a confirmation — not by a click, not by Enter.
    for (const attempt of ["grace@example.co", "grace@example.com.au"]) {
      await typeIn(attempt);
      expect(confirm, attempt).toBeDisabled();
      await user.click(confirm);
      await user.keyboard("{Enter}");
    }
    expect(api.calls("POST", "/api/admin/privacy/erase")).toHaveLength(0);
    expect(dialog).toBeInTheDocument();

    await typeIn("  GRACE@example.COM ");
    expect(confirm).toBeEnabled();
    expect(typed).toHaveAccessibleDescription("The address matches.");
    await user.clear(typed);
    expect(confirm).toBeDisabled();

    await typeIn("grace@EXAMPLE.com");
    await user.click(confirm);
    await vi.waitFor(() =>
      expect(api.calls("POST", "/api/admin/privacy/erase")[0]?.body).toEqual({
        email: "Grace@Example.com",
        reason: "Privacy request #42",
      }),
    );
    expect(api.calls("POST", "/api/admin/privacy/erase")).toHaveLength(1);
  });

  it("shows the server's refusal in the dialog (a reason naming the person)", async () => {
    fakeApi({
      ...signedInAdmin(),
      "POST /api/admin/privacy/erase": () =>
        json(400, { success: false, error: "Leave the address and name out of the reason.", code: "VALIDATION_ERROR" }),
    });
    const { user } = renderAdmin("/admin?tab=privacy&email=grace%40example.com");
    await user.click(await screen.findByRole("button", { name: "Erase…" }));
    const dialog = screen.getByRole("dialog", { name: "Erase this person?" });
    await user.type(within(dialog).getByLabelText("Reason"), "Grace asked");
    await user.type(within(dialog).getByLabelText("Type the person's email address to confirm"), "grace@example.com");
    await user.click(within(dialog).getByRole("button", { name: "Erase person" }));
    expect(await within(dialog).findByRole("alert")).toHaveTextContent("Leave the address and name out");
  });
});
