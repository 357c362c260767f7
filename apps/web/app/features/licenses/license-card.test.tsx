import type { License } from "@flotilla/contracts/licensing";
import { QueryClientProvider, useQueryClient } from "@tanstack/react-query";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createPortalQueryClient } from "../../lib/query-client";
import { SignupOpenerContext } from "../../lib/signup-opener";
import { dashboardQueryKey, useDashboardQuery } from "../dashboard/api";
import { LicenseCard } from "./license-card";
import { freeSlotText } from "./refused-activations-notice";

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
  offline_files_allowed: false,
  executions: { limit: 1, running: [] },
};

function renderCard(license: License, onChanged?: () => void) {
  render(
    <MemoryRouter>
      <QueryClientProvider client={createPortalQueryClient()}>
        <LicenseCard license={license} onChanged={onChanged} />
      </QueryClientProvider>
    </MemoryRouter>,
  );
  return screen.getByRole("article");
}

/** The card also asks which builds it may download (issue 36): none while every platform is closed. */
const NO_DOWNLOADS = { success: true, data: { license_key: null, platforms: [] } };

type Handler = (init: RequestInit | undefined) => Response | Promise<Response>;
function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}
/** Answers by "METHOD url"; anything else is the empty machine list. */
function route(handlers: Record<string, Handler>) {
  fetchMock.mockImplementation(async (input, init) => {
    const handler = handlers[`${init?.method ?? "GET"} ${String(input)}`];
    if (handler) return handler(init);
    if (String(input).startsWith("/api/license/machines/")) {
      return json(200, { success: true, data: { current_count: 0, max_machines: 3, machines: [] } });
    }
    if (String(input) === "/api/customer/downloads") return json(200, NO_DOWNLOADS);
    throw new Error(`unexpected request ${init?.method ?? "GET"} ${String(input)}`);
  });
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
    expect(chips.map((chip) => chip.textContent)).toEqual(["1 concurrent execution"]);

    // The device panel inside asks for this license's machines.
    expect(await within(card).findByText("No devices registered yet")).toBeInTheDocument();
    expect(fetchMock.mock.calls.map((call) => String(call[0]))).toContain(`/api/license/machines/${BASE.license_key}`);
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
      "Unlimited concurrent executions",
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

  it("Transfer, Download and Deactivate only say they are coming soon, on the page, never blocking it", async () => {
    const blocking = vi.spyOn(window, "alert").mockImplementation(() => {});
    const user = userEvent.setup();
    const card = renderCard(BASE);
    for (const [name, feature] of [
      ["Transfer", "License transfer"],
      ["Download", "License download"],
      ["Deactivate", "License deactivation"],
    ] as const) {
      await user.click(within(card).getByRole("button", { name }));
      expect(
        within(card)
          .getByText(/is coming soon!$/)
          .closest("[role=alert]"),
      ).toHaveTextContent(new RegExp(`^${feature}`, "i"));
    }
    expect(blocking).not.toHaveBeenCalled();
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

describe("LicenseCard: a device refused because the license is full", () => {
  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
  const REFUSED: License = {
    ...BASE,
    machine_id: "ada-macbook",
    refused_activations: [
      {
        machine_id: "raw-new",
        display_id: "WKST-9999",
        machine_name: "Ada's new desktop",
        platform: "linux",
        refused_at: minutesAgo(5),
      },
      { machine_id: "raw-old", display_id: "OLD-1", machine_name: null, platform: null, refused_at: minutesAgo(90) },
    ],
  };

  it("names the latest refused device, when, and that the license is full", async () => {
    route({ [`GET /api/license/machines/${BASE.license_key}`]: () => listOf(["a", "b", "c"]) });
    const card = renderCard(REFUSED);
    await within(card).findByText("C");
    const notice = within(card).getByRole("status", { name: "This license is full" });
    expect(notice).toHaveTextContent(
      "Ada's new desktop (WKST-9999 · linux) could not start Flotilla 5 minutes ago: every slot is taken. 1 other device was refused too.",
    );
    expect(within(notice).getByText("5 minutes ago").tagName).toBe("TIME");
  });

  const device = (id: string) => ({
    machine_id: id,
    display_id: id.toUpperCase(),
    machine_name: null,
    platform: null,
    is_primary: id === "a",
    bound_at: "2025-03-04T12:00:00Z",
    last_seen: null,
    last_heartbeat_at: new Date().toISOString(),
    status: "active",
    inactive_since: null,
    license_file_until: null,
  });
  const listOf = (ids: string[]) =>
    json(200, {
      success: true,
      data: { current_count: ids.length, max_machines: 3, machines: ids.map(device), removed_machines: [] },
    });

  it("once a slot is free (a reload after a removal), says the refused device gets it, not that the license is full", async () => {
    route({ [`GET /api/license/machines/${BASE.license_key}`]: () => listOf(["a", "b"]) });
    const card = renderCard(REFUSED);
    const notice = await within(card).findByRole("status", { name: "A slot is free" });
    expect(notice).toHaveTextContent(
      "Ada's new desktop (WKST-9999 · linux) could not start Flotilla 5 minutes ago, when every slot was taken. 1 other device was refused too.",
    );
    expect(notice).toHaveTextContent("The first of them to start gets the free slot.");
    expect(within(card).queryByText("This license is full")).not.toBeInTheDocument();
    expect(within(notice).queryByRole("button", { name: "Free a slot" })).not.toBeInTheDocument();
    expect(within(card).getByText("Devices Used").closest("dl")).toHaveTextContent("2/3");
    expect(within(card).getByText(/You can add 1 more device/)).toBeInTheDocument();
  });

  it("says so as soon as the owner removes a device from the full license", async () => {
    let ids = ["a", "b", "c"];
    route({
      [`GET /api/license/machines/${BASE.license_key}`]: () => listOf(ids),
      [`DELETE /api/license/machines/${BASE.license_key}/c`]: () => {
        ids = ["a", "b"];
        return json(200, { success: true, message: "Device C removed" });
      },
    });
    const user = userEvent.setup();
    const card = renderCard({ ...REFUSED, refused_activations: REFUSED.refused_activations.slice(0, 1) });
    await within(card).findByText("C");
    expect(within(card).getByRole("status", { name: "This license is full" })).toBeInTheDocument();
    await user.click(within(card).getByRole("button", { name: "Remove device C" }));
    const confirm = await screen.findByRole("dialog", { name: "Remove this device?" });
    await user.click(within(confirm).getByRole("button", { name: "Remove device" }));
    const notice = await within(card).findByRole("status", { name: "A slot is free" });
    expect(notice).toHaveTextContent("It gets the free slot the next time it starts.");
    expect(within(card).queryByText("This license is full")).not.toBeInTheDocument();
  });

  it("shows no notice when no device was refused", () => {
    const card = renderCard(BASE);
    expect(within(card).queryByTestId("refused-activations")).not.toBeInTheDocument();
  });

  it("Free a slot opens the device panel on removal", async () => {
    const machine = (id: string) => ({
      machine_id: id,
      display_id: id.toUpperCase(),
      machine_name: null,
      platform: null,
      is_primary: id === "a",
      bound_at: "2025-03-04T12:00:00Z",
      last_seen: null,
      last_heartbeat_at: null,
      status: "active",
      inactive_since: null,
      license_file_until: null,
    });
    route({
      [`GET /api/license/machines/${BASE.license_key}`]: () =>
        json(200, {
          success: true,
          data: { current_count: 3, max_machines: 3, machines: ["a", "b", "c"].map(machine), removed_machines: [] },
        }),
    });
    const user = userEvent.setup();
    const card = renderCard(REFUSED);
    await within(card).findByText("C");
    await user.click(within(card).getByRole("button", { name: "Free a slot" }));
    expect(await within(card).findByText(/Remove a device you no longer use/)).toBeInTheDocument();
    await vi.waitFor(() =>
      expect(document.activeElement).toBe(within(card).getByRole("button", { name: "Remove device A" })),
    );
  });

  it("Dismiss asks the server and refreshes the dashboard; a failure is said", async () => {
    let fail = true;
    const url = `DELETE /api/customer/licenses/${BASE.license_key}/refusals`;
    route({
      [url]: () => (fail ? json(404, { success: false, error: "License not found" }) : json(200, { success: true })),
    });
    const onChanged = vi.fn();
    const user = userEvent.setup();
    const card = renderCard(REFUSED, onChanged);
    await user.click(await within(card).findByRole("button", { name: "Dismiss" }));
    expect(await within(card).findByRole("alert")).toHaveTextContent("License not found");
    expect(onChanged).not.toHaveBeenCalled();
    fail = false;
    await user.click(within(card).getByRole("button", { name: "Dismiss" }));
    await vi.waitFor(() => expect(onChanged).toHaveBeenCalledOnce());
    const [, init] = fetchMock.mock.calls.find(([, i]) => i?.method === "DELETE")!;
    expect((init!.headers as Record<string, string>).Authorization).toBe("Bearer good-token");
  });
});

describe("LicenseCard: rotating the key", () => {
  const NEW_KEY = "FLOT-NEWKY-22222-33333-44444-55555";

  it("confirms with the grace explained, then shows the new key once with a copy button and when the old one stops", async () => {
    const until = new Date(Date.now() + 3_600_000).toISOString();
    route({
      [`POST /api/customer/licenses/${BASE.license_key}/rotate`]: () =>
        json(200, {
          success: true,
          data: {
            license: { ...BASE, license_key: NEW_KEY, previous_key_valid_until: until },
            previous_key_valid_until: until,
          },
        }),
    });
    const onChanged = vi.fn();
    const user = userEvent.setup();
    const card = renderCard(BASE, onChanged);
    await user.click(within(card).getByRole("button", { name: "Rotate key" }));
    const dialog = screen.getByRole("dialog", { name: "Rotate license key?" });
    expect(dialog).toHaveTextContent(
      "the old key keeps working for 1 hour, then stops. Your devices keep their slots when you enter the new key.",
    );
    await user.click(within(dialog).getByRole("button", { name: "Rotate key" }));

    const done = await screen.findByRole("dialog", { name: "Your new license key" });
    expect(within(done).getByTestId("license-key")).toHaveTextContent(NEW_KEY);
    expect(done).toHaveTextContent(/The old key stops working at (?:[A-Z][a-z]{2} \d{1,2}, )?\d{1,2}:\d{2} (AM|PM)\./);
    expect(onChanged).toHaveBeenCalledOnce();
    await user.click(within(done).getByRole("button", { name: "Copy new license key" }));
    expect(await navigator.clipboard.readText()).toBe(NEW_KEY);
    await user.click(within(done).getByRole("button", { name: "Done" }));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });

  it("Cancel rotates nothing; a refusal is shown in the dialog", async () => {
    route({
      [`POST /api/customer/licenses/${BASE.license_key}/rotate`]: () =>
        json(429, { success: false, error: "Too many requests. Try again in a minute." }),
    });
    const user = userEvent.setup();
    const card = renderCard(BASE);
    await user.click(within(card).getByRole("button", { name: "Rotate key" }));
    await user.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Cancel" }));
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === "POST")).toBe(false);
    await user.click(within(card).getByRole("button", { name: "Rotate key" }));
    await user.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Rotate key" }));
    expect(await within(screen.getByRole("dialog")).findByRole("alert")).toHaveTextContent("Too many requests");
  });

  it("says until when the previous key works, and stops saying it once it no longer does", () => {
    const later = new Date(Date.now() + 30 * 60_000).toISOString();
    const card = renderCard({ ...BASE, previous_key_valid_until: later });
    expect(within(card).getByTestId("previous-key")).toHaveTextContent(
      /^Previous key works until (?:[A-Z][a-z]{2} \d{1,2}, )?\d{1,2}:\d{2} (AM|PM)$/,
    );
    cleanup();
    const past = new Date(Date.now() - 60_000).toISOString();
    const again = renderCard({ ...BASE, previous_key_valid_until: past });
    expect(within(again).queryByTestId("previous-key")).not.toBeInTheDocument();
  });
});

describe("LicenseCard: license files need the owner's consent", () => {
  const URL = `/api/customer/licenses/${encodeURIComponent(BASE.license_key)}/offline-files`;

  it("shows files off by default and turns them on with the switch: the server is asked, the dashboard reloads", async () => {
    const onChanged = vi.fn();
    const sent: unknown[] = [];
    route({
      [`PUT ${URL}`]: (init) => {
        sent.push(JSON.parse(String(init?.body)));
        return json(200, { success: true, message: "License files are on.", data: { offline_files_allowed: true } });
      },
    });
    const card = renderCard(BASE, onChanged);
    const toggle = within(card).getByRole("switch", { name: "License files for offline devices" });
    expect(toggle).toHaveAttribute("aria-checked", "false");
    expect(within(card).getByTestId("offline-files")).toHaveTextContent("Off: devices run online");
    await userEvent.setup().click(toggle);
    expect(await within(card).findByText("License files are on.")).toBeInTheDocument();
    expect(sent).toEqual([{ allowed: true }]);
    expect(onChanged).toHaveBeenCalledTimes(1);
  });

  it("says when they are on, and shows a refusal without changing the switch", async () => {
    route({ [`PUT ${URL}`]: () => json(500, { success: false, error: "Database unavailable" }) });
    const card = renderCard({ ...BASE, offline_files_allowed: true });
    const toggle = within(card).getByRole("switch", { name: "License files for offline devices" });
    expect(toggle).toHaveAttribute("aria-checked", "true");
    expect(within(card).getByTestId("offline-files")).toHaveTextContent("up to 90 days");
    vi.useFakeTimers({ shouldAdvanceTime: true });
    await userEvent.setup({ advanceTimers: vi.advanceTimersByTime }).click(toggle);
    await vi.advanceTimersByTimeAsync(20_000);
    vi.useRealTimers();
    expect(await within(card).findByText("Database unavailable")).toBeInTheDocument();
    expect(toggle).toHaveAttribute("aria-checked", "true");
  });
});

describe("freeSlotText", () => {
  it("says who gets the free slots", () => {
    expect(freeSlotText(1, 1)).toBe("It gets the free slot the next time it starts.");
    expect(freeSlotText(1, 3)).toBe("The first of them to start gets the free slot.");
    expect(freeSlotText(2, 3)).toBe("The first 2 of them to start get the free slots.");
    expect(freeSlotText(3, 2)).toBe("Each of them gets a slot the next time it starts.");
  });
});

describe("LicenseCard: after a rotation nothing asks by the old key", () => {
  const NEW_KEY = "FLOT-NEWKY-22222-33333-44444-55555";

  /** The card as the dashboard shows it: its license comes from the cached dashboard. */
  function DashboardCard() {
    const dashboard = useDashboardQuery();
    const queryClient = useQueryClient();
    const license = dashboard.data?.licenses[0];
    return license ? (
      <LicenseCard
        license={license}
        onChanged={() => void queryClient.invalidateQueries({ queryKey: dashboardQueryKey })}
      />
    ) : null;
  }

  it("the card moves to the new key at once; the live refresh that follows asks by the new key only", async () => {
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const dashboardWith = (key: string) => ({
      customer: { name: "Ada", email: "ada@example.com", avatar_url: null },
      licenses: [{ ...BASE, license_key: key }],
      usage_analytics: {
        total_executions: 0,
        current_month_executions: 0,
        license_utilization: 0,
        most_used_features: [],
      },
    });
    let rotated = false;
    // The dashboard's refetch after the rotation is slow: the old code kept the old key on the card meanwhile.
    let releaseDashboard: () => void = () => undefined;
    const slowDashboard = new Promise<void>((resolve) => {
      releaseDashboard = resolve;
    });
    const requests: string[] = [];
    fetchMock.mockImplementation(async (input, init) => {
      const request = `${init?.method ?? "GET"} ${String(input)}`;
      requests.push(request);
      if (request === "GET /api/customer/dashboard") {
        if (!rotated) return json(200, { success: true, data: dashboardWith(BASE.license_key) });
        await slowDashboard;
        return json(200, { success: true, data: dashboardWith(NEW_KEY) });
      }
      if (request === `POST /api/customer/licenses/${BASE.license_key}/rotate`) {
        rotated = true;
        return json(200, {
          success: true,
          data: {
            license: { ...BASE, license_key: NEW_KEY, previous_key_valid_until: until },
            previous_key_valid_until: until,
          },
        });
      }
      if (String(input).startsWith("/api/license/machines/")) {
        return json(200, { success: true, data: { current_count: 0, max_machines: 3, machines: [] } });
      }
      if (request === "GET /api/customer/downloads") return json(200, NO_DOWNLOADS);
      throw new Error(`unexpected request ${request}`);
    });
    const queryClient = createPortalQueryClient();
    const user = userEvent.setup();
    render(
      <MemoryRouter>
        <QueryClientProvider client={queryClient}>
          <DashboardCard />
        </QueryClientProvider>
      </MemoryRouter>,
    );
    const card = await screen.findByRole("article");
    await user.click(within(card).getByRole("button", { name: "Rotate key" }));
    await user.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Rotate key" }));
    await screen.findByRole("dialog", { name: "Your new license key" });
    const sent = requests.length;

    // The rotation's change notice reaches the live stream, which refreshes every query in view.
    // (Not awaited: the dashboard's refetch waits until released below.)
    void queryClient.invalidateQueries();
    await vi.waitFor(() =>
      expect(requests.slice(sent)).toContain(`GET /api/license/machines/${encodeURIComponent(NEW_KEY)}`),
    );
    releaseDashboard();
    await vi.waitFor(() => expect(queryClient.isFetching()).toBe(0));
    expect(requests.slice(sent).filter((request) => request.includes(BASE.license_key))).toEqual([]);
  });
});
