import { MESSAGES } from "@flotilla/contracts/messages";
import { QueryClientProvider } from "@tanstack/react-query";
import { act, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createPortalQueryClient } from "../../lib/query-client";
import { DevicePanel } from "./device-panel";

const KEY = "FLOT-ABCDE-FGHJK";
const LIST_URL = `/api/license/machines/${KEY}`;
const ANALYTICS_URL = `${LIST_URL}/analytics?days=30`;

const fetchMock = vi.fn<typeof fetch>();
type Handler = (init: RequestInit | undefined) => Response | Promise<Response>;
let routes: Record<string, Handler> = {};

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

function machine(overrides: Record<string, unknown> = {}) {
  return {
    machine_id: "raw-desktop-1",
    display_id: "DESK-0001",
    machine_name: null,
    platform: null,
    is_primary: false,
    bound_at: "2025-03-04T12:00:00Z",
    last_seen: null,
    last_heartbeat_at: null,
    status: "active",
    inactive_since: null,
    license_file_until: null,
    ...overrides,
  };
}

const LAPTOP = machine({
  machine_id: "ada-laptop",
  display_id: "LAPT-1111",
  machine_name: "Ada's laptop",
  platform: "macOS",
  is_primary: true,
  bound_at: "2025-01-15T12:00:00Z",
  last_seen: "2025-06-12T12:00:00Z",
});
const BUILD_SERVER = machine({
  machine_id: "build server/prod 2",
  display_id: "SRV-2222",
  bound_at: "2025-02-20T12:00:00Z",
});
const PHONE = machine({ machine_id: "android-pixel", display_id: "MOB-3333" });

const SEAT_RULES_FREE = {
  heartbeat_interval_seconds: 900,
  inactive_after_seconds: 1200,
  revival_window_seconds: 604_800,
};

function listAnswer(machines: Record<string, unknown>[], max = 3, seatRules = SEAT_RULES_FREE) {
  const active = machines.filter((m) => m.status !== "inactive").length;
  return json(200, {
    success: true,
    data: { current_count: active, max_machines: max, machines, removed_machines: [], seat_rules: seatRules },
  });
}

function calls(url: string, method = "GET") {
  return fetchMock.mock.calls.filter(([input, init]) => String(input) === url && (init?.method ?? "GET") === method);
}

function renderPanel(removalRequest = 0) {
  const onChanged = vi.fn();
  const client = createPortalQueryClient();
  const tree = (request: number) => (
    <QueryClientProvider client={client}>
      <DevicePanel licenseKey={KEY} onChanged={onChanged} removalRequest={request} />
    </QueryClientProvider>
  );
  const { rerender } = render(tree(removalRequest));
  const user = vi.isFakeTimers() ? userEvent.setup({ advanceTimers: vi.advanceTimersByTime }) : userEvent.setup();
  return { onChanged, user, requestRemoval: (request: number) => rerender(tree(request)) };
}

/** Lets pending promises and timers up to `ms` run, inside act so React state updates are flushed. */
/** Confirms the removal the remove button asked about (the dialog names the device and what removing does). */
async function confirmRemoval(user: ReturnType<typeof renderPanel>["user"]) {
  const dialog = await screen.findByRole("dialog", { name: "Remove this device?" });
  await user.click(within(dialog).getByRole("button", { name: "Remove device" }));
}

async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

beforeEach(() => {
  localStorage.clear();
  localStorage.setItem("auth_token", "good-token");
  routes = {};
  fetchMock.mockReset();
  fetchMock.mockImplementation(async (input, init) => {
    const handler = routes[`${init?.method ?? "GET"} ${String(input)}`];
    if (!handler) throw new Error(`unexpected request ${init?.method ?? "GET"} ${String(input)}`);
    return handler(init);
  });
  vi.stubGlobal("fetch", fetchMock);
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("DevicePanel: loading and the list", () => {
  it("shows 'Loading machine data...' and then the devices with their details", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP, BUILD_SERVER]);
    renderPanel();

    expect(screen.getByRole("heading", { name: "Device Management" })).toBeInTheDocument();
    expect(screen.getByText("Manage devices authorized to use your license")).toBeInTheDocument();
    expect(screen.getByRole("status")).toHaveTextContent("Loading machine data...");

    const list = await screen.findByRole("list", { name: "Authorized devices" });
    const [laptop, server] = within(list).getAllByRole("listitem");
    expect(laptop).toHaveTextContent("LAPT-1111");
    expect(within(laptop!).getByText("Primary")).toBeInTheDocument();
    expect(laptop).toHaveTextContent("Ada's laptop · macOS");
    expect(laptop).toHaveTextContent("Added Jan 15, 2025");
    expect(laptop).toHaveTextContent("Last seen Jun 12, 2025");
    expect(within(laptop!).getByRole("img", { name: "Desktop computer" })).toBeInTheDocument();

    expect(server).toHaveTextContent("SRV-2222");
    expect(within(server!).queryByText("Primary")).not.toBeInTheDocument();
    expect(server).toHaveTextContent("Added Feb 20, 2025");
    expect(server).toHaveTextContent("Last seen Never");
    expect(within(server!).getByRole("img", { name: "Server" })).toBeInTheDocument();

    const used = screen.getByText("Devices Used").closest("dl")!;
    expect(used).toHaveTextContent("2/3");

    const [, init] = calls(LIST_URL)[0]!;
    expect((init!.headers as Record<string, string>).Authorization).toBe("Bearer good-token");
  });

  it("guesses a mobile icon from the machine id", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([PHONE, LAPTOP]);
    renderPanel();
    expect(await screen.findByRole("img", { name: "Mobile device" })).toBeInTheDocument();
  });

  it("says how many more devices can be added, pluralised, and that new devices register themselves", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP], 3);
    renderPanel();
    expect(await screen.findByText(/You can add 2 more devices\./)).toHaveTextContent(
      "You can add 2 more devices. Running Flotilla on a new device registers it automatically.",
    );
  });

  it("uses the singular for one free slot and says nothing when the license is full", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP, BUILD_SERVER], 3);
    renderPanel();
    expect(await screen.findByText(/You can add 1 more device\./)).toBeInTheDocument();
  });

  it("shows no hint when every slot is used", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP, BUILD_SERVER, PHONE], 3);
    renderPanel();
    await screen.findByText("MOB-3333");
    expect(screen.queryByText(/You can add/)).not.toBeInTheDocument();
    expect(screen.getByText("Devices Used").closest("dl")).toHaveTextContent("3/3");
  });

  it("shows the empty state when no device is registered", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([]);
    renderPanel();
    expect(await screen.findByText("No devices registered yet")).toBeInTheDocument();
    expect(screen.getByText("Devices will appear here when you activate your license")).toBeInTheDocument();
  });

  it("on failure shows 'Unable to load machine data' with the server's reason, and 'Try again' reloads", async () => {
    let failures = 1;
    routes[`GET ${LIST_URL}`] = () =>
      failures-- > 0 ? json(404, { success: false, error: "License not found" }) : listAnswer([LAPTOP]);
    const { user } = renderPanel();

    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent(MESSAGES.machinePanelLoadFailed);
    expect(alert).toHaveTextContent("License not found");
    await user.click(within(alert).getByRole("button", { name: "Try again" }));
    expect(await screen.findByText("LAPT-1111")).toBeInTheDocument();
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("falls back to 'Failed to load machine data' when the server gives no reason", async () => {
    routes[`GET ${LIST_URL}`] = () => json(403, {});
    renderPanel();
    expect(await screen.findByRole("alert")).toHaveTextContent(MESSAGES.machineLoadFailed);
  });

  it("without a stored token says 'Authentication required' and sends nothing", async () => {
    localStorage.clear();
    renderPanel();
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent(MESSAGES.machinePanelLoadFailed);
    expect(alert).toHaveTextContent(MESSAGES.noTokenForMachine);
    expect(fetchMock).not.toHaveBeenCalled();
  });
});

describe("DevicePanel: machine ids on a phone", () => {
  it("wrap at their own hyphens first and break inside a token only when one alone is wider than the line", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP, BUILD_SERVER]);
    renderPanel();
    const id = await screen.findByText("SRV-2222");
    // overflow-wrap: anywhere keeps the hyphens as the break points; word-break: break-all split "server" as "serv|er".
    expect(id).toHaveClass("wrap-anywhere");
    expect(id.className).not.toContain("break-all");
  });
});

describe("DevicePanel: removing a device", () => {
  it("cannot remove the last device", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP]);
    renderPanel();
    const button = await screen.findByRole("button", { name: "Remove device LAPT-1111" });
    expect(button).toBeDisabled();
    expect(button).toHaveAttribute("title", "Cannot remove the last device");
  });

  it("removes a device: spinner and disabled while it runs, the server's message for 3 s, list and parent refreshed", async () => {
    vi.useFakeTimers();
    vi.stubGlobal("jest", { advanceTimersByTime: (ms: number) => vi.advanceTimersByTime(ms) });
    let machines = [LAPTOP, BUILD_SERVER];
    routes[`GET ${LIST_URL}`] = () => listAnswer(machines);
    let answerDelete!: (response: Response) => void;
    const deleteUrl = `${LIST_URL}/${encodeURIComponent("build server/prod 2")}`;
    routes[`DELETE ${deleteUrl}`] = () => new Promise<Response>((resolve) => (answerDelete = resolve));
    const { user, onChanged } = renderPanel();
    await advance(0);

    const button = screen.getByRole("button", { name: "Remove device SRV-2222" });
    expect(button).toBeEnabled();
    expect(button).toHaveAttribute("title", "Remove this device");
    await user.click(button);
    await confirmRemoval(user);

    expect(button).toBeDisabled();
    expect(button).toHaveAttribute("aria-busy", "true");
    expect(calls(deleteUrl, "DELETE")).toHaveLength(1);
    expect(screen.getByRole("button", { name: "Remove device LAPT-1111" })).toBeEnabled();

    machines = [LAPTOP];
    answerDelete(json(200, { success: true, message: "Device SRV-2222 removed" }));
    await advance(0);

    expect(screen.getByText("Device SRV-2222 removed")).toBeInTheDocument();
    expect(screen.getByText("Device SRV-2222 removed").closest("[aria-live]")).toHaveAttribute("aria-live", "polite");
    expect(calls(LIST_URL)).toHaveLength(2);
    expect(screen.queryByText("SRV-2222")).not.toBeInTheDocument();
    expect(screen.getByText("Devices Used").closest("dl")).toHaveTextContent("1/3");
    expect(onChanged).toHaveBeenCalledOnce();
    expect(screen.getByRole("button", { name: "Remove device LAPT-1111" })).toBeDisabled();

    await advance(2900);
    expect(screen.getByText("Device SRV-2222 removed")).toBeInTheDocument();
    await advance(100);
    expect(screen.queryByText("Device SRV-2222 removed")).not.toBeInTheDocument();
  });

  it("asks first, naming the device and what removing does; Cancel removes nothing", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP, BUILD_SERVER]);
    const deleteUrl = `${LIST_URL}/${encodeURIComponent("build server/prod 2")}`;
    routes[`DELETE ${deleteUrl}`] = () => json(200, { success: true, message: "Device SRV-2222 removed" });
    const { user, onChanged } = renderPanel();
    await user.click(await screen.findByRole("button", { name: "Remove device SRV-2222" }));
    const dialog = await screen.findByRole("dialog", { name: "Remove this device?" });
    expect(dialog).toHaveTextContent("SRV-2222");
    expect(dialog).toHaveTextContent("Its slot is freed at once");
    expect(dialog).toHaveTextContent("until you allow it back under Removed devices");
    expect(within(dialog).getByRole("button", { name: "Remove device" }).className).toContain("bg-red-");
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog", { name: "Remove this device?" })).not.toBeInTheDocument();
    expect(calls(deleteUrl, "DELETE")).toHaveLength(0);
    expect(onChanged).not.toHaveBeenCalled();
    expect(screen.getByText("SRV-2222")).toBeInTheDocument();
  });

  it("moves focus to the panel's heading when the focused remove button goes away with its row", async () => {
    let machines = [LAPTOP, BUILD_SERVER];
    routes[`GET ${LIST_URL}`] = () => listAnswer(machines);
    routes[`DELETE ${LIST_URL}/${encodeURIComponent("build server/prod 2")}`] = () => {
      machines = [LAPTOP];
      return json(200, { success: true, message: "Device SRV-2222 removed" });
    };
    const { user } = renderPanel();
    const button = await screen.findByRole("button", { name: "Remove device SRV-2222" });
    button.focus();
    await user.keyboard("{Enter}");
    // The confirmation takes focus; Enter on its "Remove device" confirms.
    within(screen.getByRole("dialog", { name: "Remove this device?" }))
      .getByRole("button", { name: "Remove device" })
      .focus();
    await user.keyboard("{Enter}");

    expect(await screen.findByText("Device SRV-2222 removed")).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Remove device SRV-2222" })).not.toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "Device Management" })).toHaveFocus();
  });

  it("shows the server's error in a red banner when removal fails, and clears it on the next try", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP, BUILD_SERVER]);
    const deleteUrl = `${LIST_URL}/${encodeURIComponent("build server/prod 2")}`;
    routes[`DELETE ${deleteUrl}`] = () => json(409, { success: false, error: "Cannot remove the last device" });
    const { user, onChanged } = renderPanel();

    await user.click(await screen.findByRole("button", { name: "Remove device SRV-2222" }));
    await confirmRemoval(user);
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Cannot remove the last device");
    expect(alert.className).toContain("text-red-");
    expect(onChanged).not.toHaveBeenCalled();
    expect(screen.getByRole("button", { name: "Remove device SRV-2222" })).toBeEnabled();

    routes[`DELETE ${deleteUrl}`] = () => new Promise<Response>(() => {});
    await user.click(screen.getByRole("button", { name: "Remove device SRV-2222" }));
    await confirmRemoval(user);
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("says 'Failed to remove machine' when the failure carries no reason", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP, BUILD_SERVER]);
    routes[`DELETE ${LIST_URL}/ada-laptop`] = () => json(400, { success: false });
    const { user } = renderPanel();
    await user.click(await screen.findByRole("button", { name: "Remove device LAPT-1111" }));
    await confirmRemoval(user);
    expect(await screen.findByRole("alert")).toHaveTextContent(MESSAGES.machineRemoveFailed);
  });
});

describe("DevicePanel: removed devices", () => {
  const REMOVED = {
    machine_id: "old-laptop",
    display_id: "OLD-4444",
    machine_name: "Old laptop",
    removed_at: "2025-05-02T12:00:00Z",
    license_file_until: null,
  };

  it("lists removed devices and allows one again: the server is asked, the list reloads", async () => {
    let removed = [REMOVED];
    routes[`GET ${LIST_URL}`] = () =>
      json(200, {
        success: true,
        data: { current_count: 1, max_machines: 3, machines: [LAPTOP], removed_machines: removed },
      });
    routes[`POST ${LIST_URL}/old-laptop/restore`] = () => {
      removed = [];
      return json(200, { success: true, message: "Device allowed again." });
    };
    const { user } = renderPanel();
    const section = await screen.findByRole("region", { name: "Removed devices" });
    expect(section).toHaveTextContent("OLD-4444 · Old laptop");
    expect(section).toHaveTextContent("Removed May 2, 2025");
    expect(section).toHaveTextContent("cannot validate, even from the app, until you allow it again");
    await user.click(within(section).getByRole("button", { name: "Allow device OLD-4444 again" }));
    expect(await screen.findByText("Device allowed again.")).toBeInTheDocument();
    expect(calls(`${LIST_URL}/old-laptop/restore`, "POST")).toHaveLength(1);
    expect(screen.queryByRole("region", { name: "Removed devices" })).not.toBeInTheDocument();
  });

  it("shows nothing about removed devices when there are none (or an older server does not say)", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP]);
    renderPanel();
    await screen.findByRole("list", { name: "Authorized devices" });
    expect(screen.queryByRole("region", { name: "Removed devices" })).not.toBeInTheDocument();
  });
});

describe("DevicePanel: a device holding a license file", () => {
  const LEASED = machine({
    machine_id: "thief-box",
    display_id: "THF-5555",
    license_file_until: "2025-09-01T12:00:00Z",
  });

  it("is revoked, not removed: a confirmation says the file may keep working, then the slot is freed", async () => {
    let machines = [LAPTOP, LEASED];
    let removed: Record<string, unknown>[] = [];
    routes[`GET ${LIST_URL}`] = () =>
      json(200, {
        success: true,
        data: { current_count: machines.length, max_machines: 3, machines, removed_machines: removed },
      });
    routes[`POST ${LIST_URL}/thief-box/revoke`] = () => {
      machines = [LAPTOP];
      removed = [
        {
          machine_id: "thief-box",
          display_id: "THF-5555",
          machine_name: null,
          removed_at: "2025-06-12T12:00:00Z",
          license_file_until: "2025-09-01T12:00:00Z",
        },
      ];
      return json(200, {
        success: true,
        message: "Device revoked (the server's own words).",
        license_file_valid_until: "2025-09-01T12:00:00Z",
      });
    };
    const { user, onChanged } = renderPanel();
    const row = (await screen.findByText("THF-5555")).closest("li")!;
    expect(row).toHaveTextContent("License file");
    expect(row).toHaveTextContent("License file until Sep 1, 2025");
    await user.click(within(row).getByRole("button", { name: "Revoke device THF-5555" }));

    const dialog = await screen.findByRole("dialog", { name: "Revoke this device?" });
    expect(dialog).toHaveTextContent("The file cannot be called back");
    // Nothing is sent until the owner confirms; cancelling sends nothing.
    expect(calls(`${LIST_URL}/thief-box`, "DELETE")).toHaveLength(0);
    expect(calls(`${LIST_URL}/thief-box/revoke`, "POST")).toHaveLength(0);
    await user.click(within(dialog).getByRole("button", { name: "Revoke device" }));

    expect(await screen.findByText(/Device THF-5555 revoked\. Its slot is free now/)).toHaveTextContent(
      /its license file may keep working offline until Sep 1, 2025/,
    );
    expect(calls(`${LIST_URL}/thief-box/revoke`, "POST")).toHaveLength(1);
    expect(onChanged).toHaveBeenCalled();
    const section = await screen.findByRole("region", { name: "Removed devices" });
    expect(section).toHaveTextContent(
      "Revoked: its license file may still work offline on that machine until Sep 1, 2025",
    );
  });

  it("shows the server's refusal in the dialog (the revocation limit) and keeps the device", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP, LEASED]);
    routes[`POST ${LIST_URL}/thief-box/revoke`] = () =>
      json(409, { success: false, error: "This license already has 3 revoked devices…", code: "REVOCATION_LIMIT" });
    const { user } = renderPanel();
    const row = (await screen.findByText("THF-5555")).closest("li")!;
    await user.click(within(row).getByRole("button", { name: "Revoke device THF-5555" }));
    const dialog = await screen.findByRole("dialog", { name: "Revoke this device?" });
    await user.click(within(dialog).getByRole("button", { name: "Revoke device" }));
    expect(await within(dialog).findByText("This license already has 3 revoked devices…")).toBeInTheDocument();
    const list = screen.getByRole("list", { name: "Authorized devices" });
    expect(within(list).getByText("THF-5555")).toBeInTheDocument();
  });
});

describe("DevicePanel: analytics", () => {
  const ANALYTICS = {
    success: true,
    data: {
      days: 30,
      summary: { total_attempts: 1234, successful_attempts: 1200, unique_machines_active: 3 },
      machine_stats: [
        { machine_id: "LAPT-1111", total_attempts: 1000, successful_attempts: 990, failed_attempts: 10 },
        { machine_id: "SRV-2222", total_attempts: 200, successful_attempts: 190, failed_attempts: 10 },
        { machine_id: "MOB-3333", total_attempts: 34, successful_attempts: 20, failed_attempts: 14 },
      ],
    },
  };

  const STAT = (id: string, total: number, successful: number) => ({
    machine_id: id,
    total_attempts: total,
    successful_attempts: successful,
    failed_attempts: total - successful,
  });

  it("fetches analytics only when shown, then shows the totals and a coloured chip per device", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP, BUILD_SERVER, PHONE], 5);
    routes[`GET ${ANALYTICS_URL}`] = () => json(200, ANALYTICS);
    const { user } = renderPanel();
    await screen.findByText("LAPT-1111");
    expect(calls(ANALYTICS_URL)).toHaveLength(0);
    expect(screen.queryByText("Usage Analytics (Last 30 Days)")).not.toBeInTheDocument();

    const toggle = screen.getByRole("button", { name: "Show Analytics" });
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    await user.click(toggle);
    expect(toggle).toHaveAccessibleName("Hide Analytics");
    expect(toggle).toHaveAttribute("aria-expanded", "true");

    const title = await screen.findByRole("heading", { name: "Usage Analytics (Last 30 Days)" });
    const panel = title.parentElement!;
    expect(within(panel).getByText("Total Validations").parentElement).toHaveTextContent("1,234");
    expect(within(panel).getByText("Successful").parentElement).toHaveTextContent("1,200");
    expect(within(panel).getByText("Active Devices").parentElement).toHaveTextContent("3");
    expect(calls(ANALYTICS_URL)).toHaveLength(1);

    const busiest = screen.getByText("1,000 uses");
    expect(busiest.className).toContain("emerald");
    expect(busiest.parentElement).toHaveTextContent("990 successful");
    expect(busiest.parentElement).toHaveTextContent("10 failed");
    expect(screen.getByText("200 uses").className).toContain("slate");
    expect(screen.getByText("34 uses").className).toContain("slate");

    await user.click(toggle);
    expect(screen.getByRole("button", { name: "Show Analytics" })).toBeInTheDocument();
    expect(screen.queryByText("1,000 uses")).not.toBeInTheDocument();
    expect(screen.queryByText("Usage Analytics (Last 30 Days)")).not.toBeInTheDocument();
  });

  it("says what each figure counts, and a device's executions beside its uses", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP, BUILD_SERVER], 5);
    routes[`GET ${ANALYTICS_URL}`] = () =>
      json(200, {
        success: true,
        data: {
          days: 30,
          summary: { total_attempts: 3, successful_attempts: 3, unique_machines_active: 2 },
          machine_stats: [
            { ...STAT("LAPT-1111", 1, 1), executions: 12 },
            { ...STAT("SRV-2222", 2, 2), executions: 1 },
          ],
        },
      });
    const { user } = renderPanel();
    await screen.findByText("LAPT-1111");
    await user.click(screen.getByRole("button", { name: "Show Analytics" }));
    const title = await screen.findByRole("heading", { name: "Usage Analytics (Last 30 Days)" });
    expect(title.parentElement).toHaveTextContent(
      "Active Devices hold a slot now and validated in these 30 days; a device's uses are its validations, and its executions are the agent runs it started.",
    );
    const laptop = screen.getByText("1 use").parentElement!;
    expect(laptop).toHaveTextContent("1 successful");
    expect(laptop).toHaveTextContent("12 executions");
    expect(screen.getByText("2 uses").parentElement).toHaveTextContent("1 execution");
  });

  it("colours a device yellow above 0.3 of the busiest", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP, BUILD_SERVER], 5);
    routes[`GET ${ANALYTICS_URL}`] = () =>
      json(200, {
        success: true,
        data: {
          ...ANALYTICS.data,
          machine_stats: [
            { machine_id: "LAPT-1111", total_attempts: 10, successful_attempts: 10, failed_attempts: 0 },
            { machine_id: "SRV-2222", total_attempts: 5, successful_attempts: 4, failed_attempts: 1 },
          ],
        },
      });
    const { user } = renderPanel();
    await user.click(await screen.findByRole("button", { name: "Show Analytics" }));
    expect((await screen.findByText("5 uses")).className).toContain("amber");
    expect(screen.getByText("10 uses").className).toContain("emerald");
  });

  it("lists the devices that were refused (not bound) with their failed attempts, apart from the bound ones", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP, BUILD_SERVER, PHONE]);
    routes[`GET ${ANALYTICS_URL}`] = () =>
      json(200, {
        success: true,
        data: {
          days: 30,
          summary: { total_attempts: 10, successful_attempts: 9, unique_machines_active: 3 },
          machine_stats: [
            { ...STAT("LAPT-1111", 3, 3), machine_name: "Ada's laptop", bound: true },
            { ...STAT("SRV-2222", 3, 3), machine_name: null, bound: true },
            { ...STAT("MOB-3333", 3, 3), machine_name: null, bound: true },
            { ...STAT("WKST-9999", 1, 0), machine_name: "Bob's new PC", bound: false },
            { ...STAT("OLD-4444", 2, 2), machine_name: "Old laptop", bound: false },
          ],
        },
      });
    const { user } = renderPanel();
    await user.click(await screen.findByRole("button", { name: "Show Analytics" }));
    const refused = await screen.findByRole("list", { name: "Refused devices" });
    const items = within(refused).getAllByRole("listitem");
    expect(items).toHaveLength(1);
    expect(items[0]).toHaveTextContent("Bob's new PC");
    expect(items[0]).toHaveTextContent("WKST-9999");
    expect(items[0]).toHaveTextContent("1 failed");
    // The bound devices keep their own figures in the device list; the refused one is not listed there.
    const devices = screen.getByRole("list", { name: "Authorized devices" });
    expect(within(devices).queryByText("WKST-9999")).not.toBeInTheDocument();
    expect(within(devices).getAllByText("0 failed")).toHaveLength(3);
  });

  it("says nothing about refused devices when none was refused (or an older server does not say)", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP, BUILD_SERVER, PHONE], 5);
    routes[`GET ${ANALYTICS_URL}`] = () => json(200, ANALYTICS);
    const { user } = renderPanel();
    await user.click(await screen.findByRole("button", { name: "Show Analytics" }));
    await screen.findByText("1,000 uses");
    expect(screen.queryByRole("list", { name: "Refused devices" })).not.toBeInTheDocument();
  });

  it("only logs an analytics failure", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP, BUILD_SERVER]);
    routes[`GET ${ANALYTICS_URL}`] = () => json(404, { success: false, error: "License not found" });
    const { user } = renderPanel();
    await user.click(await screen.findByRole("button", { name: "Show Analytics" }));

    await vi.waitFor(() => expect(logged).toHaveBeenCalled());
    expect(await screen.findByRole("button", { name: "Hide Analytics" })).toBeInTheDocument();
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    expect(screen.queryByText("Usage Analytics (Last 30 Days)")).not.toBeInTheDocument();
    expect(screen.queryByText(/uses$/)).not.toBeInTheDocument();
    expect(screen.getByText("LAPT-1111")).toBeInTheDocument();
  });

  it("fetches the analytics again after a removal and after a restore", async () => {
    let machines = [LAPTOP, BUILD_SERVER];
    let removed: Record<string, unknown>[] = [];
    routes[`GET ${LIST_URL}`] = () =>
      json(200, {
        success: true,
        data: {
          current_count: machines.length,
          max_machines: 3,
          machines,
          removed_machines: removed,
          seat_rules: SEAT_RULES_FREE,
        },
      });
    routes[`GET ${ANALYTICS_URL}`] = () => json(200, ANALYTICS);
    routes[`DELETE ${LIST_URL}/${encodeURIComponent("build server/prod 2")}`] = () => {
      machines = [LAPTOP];
      removed = [
        {
          machine_id: "build server/prod 2",
          display_id: "SRV-2222",
          machine_name: null,
          removed_at: "2025-06-12T12:00:00Z",
          license_file_until: null,
        },
      ];
      return json(200, { success: true, message: "Device SRV-2222 removed" });
    };
    routes[`POST ${LIST_URL}/${encodeURIComponent("build server/prod 2")}/restore`] = () => {
      removed = [];
      return json(200, { success: true, message: "Device allowed again." });
    };
    const { user } = renderPanel();
    await user.click(await screen.findByRole("button", { name: "Show Analytics" }));
    await screen.findByText("1,000 uses");
    expect(calls(ANALYTICS_URL)).toHaveLength(1);

    await user.click(screen.getByRole("button", { name: "Remove device SRV-2222" }));
    await confirmRemoval(user);
    await screen.findByText("Device SRV-2222 removed");
    await vi.waitFor(() => expect(calls(ANALYTICS_URL)).toHaveLength(2));

    const section = await screen.findByRole("region", { name: "Removed devices" });
    await user.click(within(section).getByRole("button", { name: "Allow device SRV-2222 again" }));
    await screen.findByText("Device allowed again.");
    await vi.waitFor(() => expect(calls(ANALYTICS_URL)).toHaveLength(3));
  });

  it("shows fresh analytics when shown again after a removal made while they were hidden", async () => {
    let machines = [LAPTOP, BUILD_SERVER];
    routes[`GET ${LIST_URL}`] = () => listAnswer(machines);
    routes[`GET ${ANALYTICS_URL}`] = () => json(200, ANALYTICS);
    routes[`DELETE ${LIST_URL}/${encodeURIComponent("build server/prod 2")}`] = () => {
      machines = [LAPTOP];
      return json(200, { success: true, message: "Device SRV-2222 removed" });
    };
    const { user } = renderPanel();
    await user.click(await screen.findByRole("button", { name: "Show Analytics" }));
    await screen.findByText("1,000 uses");
    await user.click(screen.getByRole("button", { name: "Hide Analytics" }));
    await user.click(screen.getByRole("button", { name: "Remove device SRV-2222" }));
    await confirmRemoval(user);
    await screen.findByText("Device SRV-2222 removed");
    await user.click(screen.getByRole("button", { name: "Show Analytics" }));
    await vi.waitFor(() => expect(calls(ANALYTICS_URL)).toHaveLength(2));
  });
});

describe("DevicePanel: heartbeats and inactive devices", () => {
  const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

  it("shows each device's last heartbeat, relative, with the exact time in its tooltip", async () => {
    const beat = minutesAgo(4);
    routes[`GET ${LIST_URL}`] = () => listAnswer([{ ...LAPTOP, last_heartbeat_at: beat }, BUILD_SERVER]);
    renderPanel();
    const list = await screen.findByRole("list", { name: "Authorized devices" });
    const [laptop, server] = within(list).getAllByRole("listitem");
    expect(laptop).toHaveTextContent("Last heartbeat 4 minutes ago");
    const time = within(laptop!).getByText("4 minutes ago");
    expect(time.tagName).toBe("TIME");
    expect(time).toHaveAttribute("dateTime", beat);
    expect(time.getAttribute("title")).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} (AM|PM)$/);
    expect(server).toHaveTextContent("Last heartbeat Never");
  });

  it("marks a silent device Inactive, says since when, and counts only active slots", async () => {
    const sleeper = {
      ...BUILD_SERVER,
      status: "inactive",
      last_heartbeat_at: minutesAgo(180),
      inactive_since: minutesAgo(160),
    };
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP, sleeper], 3);
    renderPanel();
    const list = await screen.findByRole("list", { name: "Authorized devices" });
    const [laptop, server] = within(list).getAllByRole("listitem");
    expect(within(laptop!).queryByText("Inactive")).not.toBeInTheDocument();
    expect(within(server!).getByText("Inactive")).toBeInTheDocument();
    expect(server).toHaveTextContent("Inactive since 2 hours ago, its slot is free");
    expect(screen.getByText("Devices Used").closest("dl")).toHaveTextContent("1/3 active slots");
    // Two devices are bound: either may be removed (only the last bound one cannot).
    expect(within(server!).getByRole("button", { name: "Remove device SRV-2222" })).toBeEnabled();
  });

  it("states the rule with the numbers the service sends", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP]);
    renderPanel();
    expect(await screen.findByTestId("seat-rule")).toHaveTextContent(
      "A device that sends no heartbeat for 20 minutes (its 15-minute interval plus 5 minutes) is marked inactive and frees its slot. If it comes back within 7 days it gets its slot back while one is free.",
    );
  });

  it("follows another tier's interval", async () => {
    const rules = { heartbeat_interval_seconds: 600, inactive_after_seconds: 900, revival_window_seconds: 604_800 };
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP], 5, rules);
    renderPanel();
    expect(await screen.findByTestId("seat-rule")).toHaveTextContent(
      "no heartbeat for 15 minutes (its 10-minute interval plus 5 minutes)",
    );
  });

  it("asked to free a slot, says how and puts focus on the first device that can be removed", async () => {
    routes[`GET ${LIST_URL}`] = () => listAnswer([LAPTOP, BUILD_SERVER, PHONE], 3);
    const { requestRemoval } = renderPanel();
    await screen.findByText("MOB-3333");
    expect(screen.queryByText("Free a slot")).not.toBeInTheDocument();
    requestRemoval(1);
    expect(await screen.findByText("Free a slot")).toBeInTheDocument();
    await vi.waitFor(() =>
      expect(document.activeElement).toBe(screen.getByRole("button", { name: "Remove device LAPT-1111" })),
    );
  });
});
