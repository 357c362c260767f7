import { screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeApi, json, renderAdmin, signedInAdmin } from "./test-helpers";

const WAVE_ID = "00000000-0000-4000-8000-0000000000a1";
const step = (count: number, at: string | null = null) => ({ count, first_at: at, last_at: at });
const WAVE = {
  id: WAVE_ID,
  name: "December",
  date: "2026-12-01",
  created_at: "2026-11-28T10:00:00.000Z",
  withdrawn: 0,
  funnel: {
    admitted: step(2, "2026-11-28T10:00:00.000Z"),
    signed_in: step(1, "2026-11-28T11:00:00.000Z"),
    license_created: step(1, "2026-11-28T11:05:00.000Z"),
    first_activation: step(0),
    first_execution: step(0),
  },
};
const CANDIDATE = {
  signup_id: "00000000-0000-4000-8000-0000000000c1",
  email: "grace@example.com",
  name: "Grace",
  role: "developer",
  platform: "macos",
  interests: "agents",
  created_at: "2026-11-20T09:00:00.000Z",
  invitation: null,
};
const INVITATION = {
  id: "00000000-0000-4000-8000-0000000000b1",
  wave_id: WAVE_ID,
  email: "ada@example.com",
  status: "invited",
  invited_at: "2026-11-28T10:00:00.000Z",
  last_sent_at: "2026-11-28T10:00:00.000Z",
  sends: 1,
  accepted_at: null,
  withdrawn_at: null,
};

beforeEach(() => localStorage.clear());
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("Beta testers", () => {
  it("shows each wave's funnel, admits the selected signups into a wave once, and says what was sent", async () => {
    let admitted = false;
    const api = fakeApi({
      ...signedInAdmin(),
      "GET /api/admin/beta/waves": () => json(200, { success: true, data: [WAVE] }),
      "GET /api/admin/beta/candidates": () => json(200, { success: true, data: admitted ? [] : [CANDIDATE] }),
      [`POST /api/admin/beta/waves/${WAVE_ID}/admit`]: () => {
        admitted = true;
        return json(200, { success: true, data: { admitted: 1, already_invited: 0, not_found: 0 } });
      },
    });
    const { user } = renderAdmin("/admin?tab=beta");
    const row = (await screen.findByText("December", { selector: "span" })).closest("tr")!;
    const cells = within(row)
      .getAllByRole("cell")
      .map((cell) => cell.textContent);
    expect(cells.slice(1, 6).map((text) => text!.slice(0, 1))).toEqual(["2", "1", "1", "0", "0"]);

    const admit = screen.getByRole("button", { name: "Admit 0 selected" });
    expect(admit).toBeDisabled();
    await user.click(await screen.findByRole("checkbox", { name: "Select grace@example.com" }));
    // A double click is one admission (decision 0055).
    await user.dblClick(screen.getByRole("button", { name: "Admit 1 selected" }));
    expect(await screen.findByText("1 invitation sent.")).toBeInTheDocument();
    expect(api.calls("POST", `/api/admin/beta/waves/${WAVE_ID}/admit`)).toHaveLength(1);
    expect(api.calls("POST", `/api/admin/beta/waves/${WAVE_ID}/admit`)[0]!.body).toEqual({
      signup_ids: [CANDIDATE.signup_id],
    });
    expect(await screen.findByText("No signup without an invitation matches.")).toBeInTheDocument();
  });

  it("lists a wave's invitations; resend asks the server, withdraw asks to confirm first", async () => {
    const api = fakeApi({
      ...signedInAdmin(),
      "GET /api/admin/beta/waves": () => json(200, { success: true, data: [WAVE] }),
      "GET /api/admin/beta/candidates": () => json(200, { success: true, data: [] }),
      [`GET /api/admin/beta/waves/${WAVE_ID}/invitations`]: () => json(200, { success: true, data: [INVITATION] }),
      [`POST /api/admin/beta/invitations/${INVITATION.id}/resend`]: () =>
        json(200, { success: true, data: { ...INVITATION, sends: 2 } }),
      [`POST /api/admin/beta/invitations/${INVITATION.id}/withdraw`]: () =>
        json(200, { success: true, data: { ...INVITATION, status: "withdrawn" } }),
    });
    const { user } = renderAdmin("/admin?tab=beta");
    await user.click(await screen.findByRole("button", { name: "Invitations of December" }));
    const invitation = (await screen.findByText("ada@example.com")).closest("tr")!;
    await user.click(within(invitation).getByRole("button", { name: "Resend" }));
    await vi.waitFor(() =>
      expect(api.calls("POST", `/api/admin/beta/invitations/${INVITATION.id}/resend`)).toHaveLength(1),
    );

    await user.click(within(invitation).getByRole("button", { name: "Withdraw" }));
    const dialog = await screen.findByRole("dialog", { name: "Withdraw this invitation?" });
    expect(api.calls("POST", `/api/admin/beta/invitations/${INVITATION.id}/withdraw`)).toHaveLength(0);
    await user.click(within(dialog).getByRole("button", { name: "Withdraw invitation" }));
    await vi.waitFor(() =>
      expect(api.calls("POST", `/api/admin/beta/invitations/${INVITATION.id}/withdraw`)).toHaveLength(1),
    );
  });
});
