import type { LicenseExecutions } from "@flotilla/contracts/licensing";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { RunningExecutions } from "./running-executions";

const KEY = "FLOT-ABCDE-FGHJK-MNPQR-STVWX-YZ012";
const RUNNING: LicenseExecutions["running"][number] = {
  id: "5a0c1a43-57a7-4a39-9d0b-6f3b1ed2a3a1",
  machine_id: "machine-a",
  display_id: "machine-a",
  machine_name: "Studio Mac",
  feature: "code-review",
  started_at: "2026-11-26T14:02:00Z",
  last_heartbeat_at: "2026-11-26T14:05:00Z",
  expires_at: "2026-11-26T14:06:30Z",
  status: "running",
  stop_reason: null,
  stop_requested_at: null,
};
const fetchMock = vi.fn<typeof fetch>();

beforeEach(() => {
  localStorage.setItem("auth_token", "good-token");
  fetchMock.mockReset();
  vi.stubGlobal("fetch", fetchMock);
});
afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.unstubAllGlobals();
});

function renderRunning(executions: LicenseExecutions, onChanged = vi.fn()) {
  render(<RunningExecutions licenseKey={KEY} executions={executions} onChanged={onChanged} />);
  return { section: screen.getByRole("region", { name: "Running now" }), onChanged };
}

describe("RunningExecutions", () => {
  it("says nothing runs, and what the plan allows", () => {
    const { section } = renderRunning({ limit: 1, running: [] });
    expect(within(section).getByTestId("running-count")).toHaveTextContent("0 of 1");
    expect(section).toHaveTextContent("This plan allows 1 concurrent execution across all of its devices.");
  });

  it("shows 1 of 1 with the device, what it runs and since when, and that another is refused", () => {
    const { section } = renderRunning({ limit: 1, running: [RUNNING] });
    expect(within(section).getByTestId("running-count")).toHaveTextContent("1 of 1");
    const row = within(section).getByRole("listitem");
    expect(row).toHaveTextContent("Studio Mac");
    expect(row).toHaveTextContent("code review");
    expect(row.querySelector("time")).toHaveAttribute("datetime", RUNNING.started_at);
    expect(section).toHaveTextContent("Another execution on any device is refused");
  });

  it("counts without a limit on unlimited plans", () => {
    const { section } = renderRunning({ limit: null, running: [RUNNING, { ...RUNNING, id: "other" }] });
    expect(within(section).getByTestId("running-count")).toHaveTextContent("2 running");
  });

  it("ends an execution only after the owner confirms it", async () => {
    fetchMock.mockResolvedValue(
      new Response(JSON.stringify({ success: true, data: { status: "stopping" } }), { status: 200 }),
    );
    const { section, onChanged } = renderRunning({ limit: 1, running: [RUNNING] });
    const user = userEvent.setup();
    await user.click(within(section).getByRole("button", { name: "End the execution on Studio Mac" }));
    expect(fetchMock).not.toHaveBeenCalled();
    await user.click(within(section).getByRole("button", { name: "End execution" }));
    await vi.waitFor(() => expect(onChanged).toHaveBeenCalled());
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(String(url)).toBe(`/api/customer/licenses/${KEY}/executions/${RUNNING.id}`);
    expect(init?.method).toBe("DELETE");
  });

  it("keeps it running when the owner changes their mind", async () => {
    const { section } = renderRunning({ limit: 1, running: [RUNNING] });
    const user = userEvent.setup();
    await user.click(within(section).getByRole("button", { name: "End the execution on Studio Mac" }));
    await user.click(within(section).getByRole("button", { name: "Keep running" }));
    expect(within(section).getByRole("button", { name: "End the execution on Studio Mac" })).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("says an execution stopped elsewhere is stopping on its device, still holding its slot, with no End button", () => {
    const stopping = {
      ...RUNNING,
      status: "stopping" as const,
      stop_reason: "ended_by_owner" as const,
      stop_requested_at: "2026-11-26T14:05:10Z",
    };
    const { section } = renderRunning({ limit: 1, running: [stopping] });
    expect(within(section).getByTestId("running-count")).toHaveTextContent("1 of 1");
    const row = within(section).getByRole("listitem");
    expect(within(row).getByRole("status")).toHaveTextContent("Stopping on Studio Mac…");
    expect(row.querySelector("time")).toHaveAttribute("datetime", stopping.expires_at);
    expect(within(section).queryByRole("button")).toBeNull();
    expect(section).toHaveTextContent("refused until the stopping one has stopped");
  });
});
