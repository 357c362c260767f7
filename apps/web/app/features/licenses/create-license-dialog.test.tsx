import { COMMUNITY_URL } from "@flotilla/contracts/brand";
import type { License } from "@flotilla/contracts/licensing";
import { MESSAGES } from "@flotilla/contracts/messages";
import { QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createPortalQueryClient } from "../../lib/query-client";
import { CreateLicenseDialog } from "./create-license-dialog";

const fetchMock = vi.fn<typeof fetch>();

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

const LICENSE: License = {
  id: "lic-1",
  license_key: "FLOT-ABCDE-FGHJK-MNPQR-STVWX-YZ012",
  tier: "free",
  status: "active",
  machine_id: null,
  expires_at: null,
  last_seen: null,
  max_machines: 3,
  created_at: "2025-06-12T12:00:00Z",
  features: { maxConcurrentExecutions: 1, sharedMemory: false, backups: false, embeddingModels: false },
  refused_activations: [],
  previous_key_valid_until: null,
  offline_files_allowed: false,
  executions: { limit: 1, running: [] },
};

function Harness({ onCreated }: { onCreated: (license: License) => void }) {
  const [open, setOpen] = useState(true);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Open create
      </button>
      <CreateLicenseDialog open={open} onClose={() => setOpen(false)} onCreated={onCreated} />
    </>
  );
}

function setup() {
  const onCreated = vi.fn();
  render(
    <QueryClientProvider client={createPortalQueryClient()}>
      <Harness onCreated={onCreated} />
    </QueryClientProvider>,
  );
  return { onCreated, user: userEvent.setup() };
}

const dialog = () => screen.getByRole("dialog", { name: "Create Your License" });
const freeButton = () => within(dialog()).getByRole("button", { name: "Create Free License" });

beforeEach(() => {
  localStorage.clear();
  localStorage.setItem("auth_token", "good-token");
  fetchMock.mockReset();
  vi.stubGlobal("fetch", fetchMock);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("CreateLicenseDialog", () => {
  it("offers the free and plus plans, plus as Coming Soon with a disabled button, and the footer notes", () => {
    setup();
    const plans = within(dialog())
      .getAllByRole("listitem")
      .filter((item) => item.hasAttribute("data-tier"));
    expect(plans.map((plan) => plan.dataset.tier)).toEqual(["free", "plus"]);
    const [free, plus] = plans;
    expect(within(free!).getByRole("heading", { name: "Self Hosted Free" })).toBeInTheDocument();
    expect(free).toHaveTextContent("$0/month");
    expect(free).toHaveTextContent("Up to 3 devices");
    expect(within(free!).getByRole("button", { name: "Create Free License" })).toBeEnabled();
    expect(within(plus!).getByRole("heading", { name: "Self Hosted Plus" })).toBeInTheDocument();
    expect(plus).toHaveTextContent("$10/month");
    expect(within(plus!).getByRole("button", { name: "Coming Soon" })).toBeDisabled();
    for (const note of ["Instant activation", "Secure and encrypted", "Community support"]) {
      expect(within(dialog()).getByText(note)).toBeInTheDocument();
    }
    // A promise with somewhere to go: the channels that exist are on the About page.
    expect(within(dialog()).getByRole("link", { name: "Community support" })).toHaveAttribute("href", COMMUNITY_URL);
  });

  it("closes with 'Maybe later'", async () => {
    const { user } = setup();
    await user.click(within(dialog()).getByRole("button", { name: "Maybe later" }));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });

  it("while creating reads 'Creating...', disables the choice and cannot be closed; on success hands the license over and closes", async () => {
    let answer!: (response: Response) => void;
    fetchMock.mockImplementation(() => new Promise<Response>((resolve) => (answer = resolve)));
    const { user, onCreated } = setup();
    await user.click(freeButton());

    const creating = within(dialog()).getByRole("button", { name: "Creating..." });
    expect(creating).toBeDisabled();
    expect(within(dialog()).getByRole("button", { name: "Close" })).toBeDisabled();
    expect(within(dialog()).getByRole("button", { name: "Maybe later" })).toBeDisabled();
    await user.keyboard("{Escape}");
    expect(dialog()).toHaveAttribute("open");

    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/customer/licenses");
    expect(init?.method).toBe("POST");
    expect(JSON.parse(String(init?.body))).toEqual({ tier: "free" });
    expect((init!.headers as Record<string, string>).Authorization).toBe("Bearer good-token");

    answer(json(201, { success: true, data: { license: LICENSE } }));
    await vi.waitFor(() => expect(onCreated).toHaveBeenCalledWith(LICENSE));
    await vi.waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
  });

  it("says a duplicate once, in one banner with the spec's words, and leaves the choice enabled", async () => {
    fetchMock.mockResolvedValue(json(409, { success: false, error: MESSAGES.duplicateLicense }));
    const { user, onCreated } = setup();
    await user.click(freeButton());

    const alert = await within(dialog()).findByRole("alert");
    expect(alert).toHaveTextContent(MESSAGES.duplicateLicense);
    expect(within(dialog()).getAllByText(MESSAGES.duplicateLicense)).toHaveLength(1);
    expect(within(dialog()).getAllByRole("alert")).toHaveLength(1);
    expect(onCreated).not.toHaveBeenCalled();
    expect(fetchMock).toHaveBeenCalledOnce();
    expect(freeButton()).toBeEnabled();
  });

  it("a double-click creates one license: one request, the dialog closes on its success, no failure is shown", async () => {
    // The server would refuse a second request as a duplicate: it must never be sent.
    let answer!: (response: Response) => void;
    fetchMock
      .mockImplementationOnce(() => new Promise<Response>((resolve) => (answer = resolve)))
      .mockResolvedValue(json(409, { success: false, error: MESSAGES.duplicateLicense }));
    const { onCreated } = setup();
    // Two clicks as a real double-click delivers them: back to back, before anything re-renders.
    const button = freeButton();
    fireEvent.click(button);
    fireEvent.click(button);
    await vi.waitFor(() => expect(fetchMock).toHaveBeenCalled());
    await new Promise((resolve) => setTimeout(resolve, 20));
    answer(json(201, { success: true, data: { license: LICENSE } }));

    await vi.waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(fetchMock).toHaveBeenCalledOnce();
    expect(onCreated).toHaveBeenCalledExactlyOnceWith(LICENSE);
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("offline, says so at once and sends nothing; nothing is sent later when the network returns", async () => {
    const online = vi.spyOn(navigator, "onLine", "get").mockReturnValue(false);
    const { user } = setup();
    await user.click(freeButton());
    expect(await within(dialog()).findByRole("alert")).toHaveTextContent("You're offline");
    expect(freeButton()).toBeEnabled();
    online.mockReturnValue(true);
    window.dispatchEvent(new Event("online"));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("starts clean when reopened after a failure", async () => {
    fetchMock.mockResolvedValue(json(409, { success: false, error: MESSAGES.duplicateLicense }));
    const { user } = setup();
    await user.click(freeButton());
    await within(dialog()).findByRole("alert");
    await user.click(within(dialog()).getByRole("button", { name: "Maybe later" }));
    await user.click(screen.getByRole("button", { name: "Open create" }));
    expect(within(dialog()).queryByRole("alert")).not.toBeInTheDocument();
  });

  it("shows 'Failed to create license' in red when the server gives no reason, without an amber banner", async () => {
    fetchMock.mockResolvedValue(json(400, { success: false }));
    const { user } = setup();
    await user.click(freeButton());
    const alert = await within(dialog()).findByRole("alert");
    expect(alert).toHaveTextContent(MESSAGES.licenseCreateFailed);
    expect(within(dialog()).queryByText(MESSAGES.duplicateLicense)).not.toBeInTheDocument();
    expect(within(dialog()).queryByText("One license per customer")).not.toBeInTheDocument();
  });

  it("without a stored token says 'Authentication token not found' and sends nothing", async () => {
    localStorage.clear();
    const { user } = setup();
    await user.click(freeButton());
    expect(await within(dialog()).findByRole("alert")).toHaveTextContent(MESSAGES.noTokenForLicense);
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
