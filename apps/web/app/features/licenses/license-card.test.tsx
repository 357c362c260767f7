import type { License } from "@flotilla/contracts/licensing";
import { QueryClientProvider } from "@tanstack/react-query";
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createPortalQueryClient } from "../../lib/query-client";
import { SignupOpenerContext } from "../../lib/signup-opener";
import { LicenseCard } from "./license-card";

const fetchMock = vi.fn<typeof fetch>();

const BASE: License = {
  id: "lic-1",
  license_key: "FLOT-ABCDE-FGHJK-MNPQR-STVWX-YZ012",
  tier: "free",
  status: "active",
  machine_id: null,
  expires_at: null,
  last_seen: null,
  max_machines: 3,
  created_at: "2025-06-01T12:00:00Z",
  features: { maxConcurrentExecutions: 1, sharedMemory: false, backups: false, embeddingModels: false },
  refused_activations: [],
  previous_key_valid_until: null,
};

function renderCard(license: License) {
  render(
    <MemoryRouter>
      <QueryClientProvider client={createPortalQueryClient()}>
        <LicenseCard license={license} />
      </QueryClientProvider>
    </MemoryRouter>,
  );
  return screen.getByRole("article");
}

function field(card: HTMLElement, label: string) {
  return within(card).getByText(label, { selector: "dt" }).nextElementSibling as HTMLElement;
}

beforeEach(() => {
  localStorage.setItem("auth_token", "good-token");
  fetchMock.mockReset();
  fetchMock.mockImplementation(
    async () =>
      new Response(JSON.stringify({ success: true, data: { current_count: 0, max_machines: 3, machines: [] } }), {
        status: 200,
      }),
  );
  vi.stubGlobal("fetch", fetchMock);
});

afterEach(() => {
  localStorage.clear();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("LicenseCard", () => {
  it("shows a fresh free license: upper-case tier, active status, key, 'Not activated', 'Never' dates, one chip", async () => {
    const card = renderCard(BASE);
    expect(within(card).getByText("free")).toHaveClass("uppercase");
    expect(within(card).getByRole("heading", { name: "Self Hosted Free" })).toBeInTheDocument();
    const status = card.querySelector("[data-tone]");
    expect(status).toHaveAttribute("data-tone", "active");
    expect(status).toHaveTextContent("Active");
    expect(status?.className).toContain("emerald");

    expect(field(card, "License Key")).toHaveTextContent(BASE.license_key);
    expect(field(card, "Machine ID")).toHaveTextContent("Not activated");
    expect(field(card, "Expires")).toHaveTextContent("Never");
    expect(field(card, "Last Seen")).toHaveTextContent("Never");

    const chips = within(within(card).getByRole("list", { name: "Features" })).getAllByRole("listitem");
    expect(chips.map((chip) => chip.textContent)).toEqual(["1 execution"]);

    // The device panel inside asks for this license's machines.
    expect(await within(card).findByText("No devices registered yet")).toBeInTheDocument();
    expect(String(fetchMock.mock.calls[0]![0])).toBe(`/api/license/machines/${BASE.license_key}`);
  });

  it("shows a bound, expiring plus license with every feature chip", () => {
    const card = renderCard({
      ...BASE,
      tier: "plus",
      status: "suspended",
      machine_id: "ada-macbook",
      expires_at: "2026-01-03T12:00:00Z",
      last_seen: "2025-06-12T12:00:00Z",
      features: { maxConcurrentExecutions: null, sharedMemory: true, backups: true, embeddingModels: true },
    });
    expect(card.querySelector("[data-tone]")).toHaveAttribute("data-tone", "suspended");
    expect(field(card, "Machine ID")).toHaveTextContent("ada-macbook");
    expect(field(card, "Expires")).toHaveTextContent("Jan 3, 2026");
    expect(field(card, "Last Seen")).toHaveTextContent("Jun 12, 2025");
    const chips = within(within(card).getByRole("list", { name: "Features" })).getAllByRole("listitem");
    expect(chips.map((chip) => chip.textContent)).toEqual([
      "Unlimited executions",
      "Shared Memory",
      "Backups",
      "AI Models",
    ]);
  });

  it("marks expired licenses red and unknown statuses and tiers neutral", () => {
    const card = renderCard({ ...BASE, tier: "enterprise", status: "expired" });
    expect(card.querySelector("[data-tone]")?.className).toContain("red");
    expect(within(card).getByRole("heading", { name: "enterprise license" })).toBeInTheDocument();
    expect(within(card).getByText("enterprise").className).toContain("slate");
  });

  it("Transfer, Download and Deactivate only say they are coming soon", async () => {
    const alert = vi.spyOn(window, "alert").mockImplementation(() => {});
    const user = userEvent.setup();
    const card = renderCard(BASE);
    for (const name of ["Transfer", "Download", "Deactivate"]) {
      await user.click(within(card).getByRole("button", { name }));
    }
    expect(alert).toHaveBeenCalledTimes(3);
    for (const [message] of alert.mock.calls) expect(String(message)).toMatch(/coming soon/i);
    expect(fetchMock.mock.calls.every(([, init]) => (init?.method ?? "GET") === "GET")).toBe(true);
  });

  it("copies the license key", async () => {
    const user = userEvent.setup();
    const card = renderCard(BASE);
    await user.click(within(card).getByRole("button", { name: "Copy license key" }));
    expect(await navigator.clipboard.readText()).toBe(BASE.license_key);
    expect(await within(card).findByText("Copied to clipboard")).toBeInTheDocument();
  });
});

describe("LicenseCard: a new customer's next step", () => {
  it("while no device is active, says how to get the macOS beta, where the key goes, and links the activation docs", () => {
    const card = renderCard(BASE);
    const step = within(card).getByRole("region", { name: /Next step/ });
    expect(step).toHaveTextContent("Get the macOS beta");
    expect(step).toHaveTextContent(/early-access members/);
    expect(step).toHaveTextContent("Paste your license key");
    expect(step).toHaveTextContent("Settings → License");
    expect(within(step).getByRole("link", { name: /activation guide/ })).toHaveAttribute(
      "href",
      "/docs/pricing#activating-the-desktop-app",
    );
    // Transfer, Download and Deactivate stay as they were (coming soon).
    for (const name of ["Transfer", "Download", "Deactivate"]) {
      expect(within(card).getByRole("button", { name })).toBeInTheDocument();
    }
  });

  it("goes away once a device is active", () => {
    const card = renderCard({ ...BASE, machine_id: "ada-macbook", last_seen: "2025-06-12T12:00:00Z" });
    expect(within(card).queryByRole("region", { name: /Next step/ })).not.toBeInTheDocument();
  });

  it("offers the early-access form in place when the site's signup opener is there", async () => {
    const open = vi.fn();
    render(
      <MemoryRouter>
        <SignupOpenerContext.Provider value={open}>
          <QueryClientProvider client={createPortalQueryClient()}>
            <LicenseCard license={BASE} />
          </QueryClientProvider>
        </SignupOpenerContext.Provider>
      </MemoryRouter>,
    );
    await userEvent.click(screen.getByRole("button", { name: "join early access" }));
    expect(open).toHaveBeenCalledOnce();
  });
});

describe("LicenseCard: the key on a phone", () => {
  it("can wrap only between groups, and still reads and copies as the exact key", () => {
    const card = renderCard(BASE);
    const key = within(card).getByTestId("license-key");
    expect(key.textContent).toBe(BASE.license_key);
    const groups = [...key.querySelectorAll("span")];
    expect(groups.map((group) => group.textContent?.replace("-", ""))).toEqual(BASE.license_key.split("-"));
    for (const group of groups) expect(group).toHaveClass("whitespace-nowrap");
    expect(key.querySelectorAll("wbr")).toHaveLength(groups.length - 1);
    expect(key.className).not.toContain("break-all");
  });
});
