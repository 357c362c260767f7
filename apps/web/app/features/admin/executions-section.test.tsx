import type { AdminExecution, AdminLicenseExecutions, CustomerDetail } from "@flotilla/contracts/admin";
import { screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeApi, json, renderAdmin, signedInAdmin } from "./test-helpers";
import { formatDateTime } from "./ui";

const CUSTOMER_ID = "11111111-1111-4111-8111-111111111111";
const LICENSE_KEY = "FLOT-ABCDE-FGHJK-MNPQR-STVWX-YZ012";
const DETAIL_PATH = `GET /api/admin/customers/${CUSTOMER_ID}`;
const RUNNING_ID = "33333333-3333-4333-8333-333333333333";
const END_PATH = `/api/admin/licenses/${LICENSE_KEY}/executions/${RUNNING_ID}/end`;

const RUNNING: AdminExecution = {
  id: RUNNING_ID,
  display_id: "LAPT-1111",
  machine_name: "Grace's laptop",
  feature: "code-review",
  started_at: "2026-01-05T09:00:00.000Z",
  last_heartbeat_at: "2026-01-05T09:30:00.000Z",
  expires_at: "2026-01-05T09:31:30.000Z",
  ended_at: null,
  end_reason: null,
  status: "running",
};
const SILENT: AdminExecution = {
  ...RUNNING,
  id: "44444444-4444-4444-8444-444444444444",
  display_id: "DESK-2222",
  machine_name: null,
  feature: "",
  started_at: "2026-01-04T09:00:00.000Z",
  status: "expired",
};
const ENDED: AdminExecution = {
  ...RUNNING,
  id: "55555555-5555-4555-8555-555555555555",
  started_at: "2026-01-03T09:00:00.000Z",
  ended_at: "2026-01-03T10:00:00.000Z",
  end_reason: "ended_by_owner",
  status: "ended",
};

function detail(executions: AdminLicenseExecutions): { success: true; data: CustomerDetail } {
  return {
    success: true,
    data: {
      customer: {
        id: CUSTOMER_ID,
        email: "grace@example.com",
        name: "Grace Hopper",
        created_at: "2026-01-02T10:00:00.000Z",
        last_sign_in_at: null,
      },
      is_admin: false,
      licenses: [
        {
          id: "22222222-2222-4222-8222-222222222222",
          license_key: LICENSE_KEY,
          tier: "free",
          status: "active",
          max_machines: 3,
          expires_at: null,
          last_seen: null,
          created_at: "2026-01-02T10:00:00.000Z",
          offline_files_allowed: false,
          machines: [],
          executions,
        },
      ],
      sessions: [],
    },
  };
}

const withRunning = (): AdminLicenseExecutions => ({ limit: 1, running: 1, list: [RUNNING, SILENT, ENDED] });
const afterEnd = (): AdminLicenseExecutions => ({
  limit: 1,
  running: 0,
  list: [
    { ...RUNNING, status: "ended", ended_at: "2026-01-05T09:40:00.000Z", end_reason: "ended_by_admin" },
    SILENT,
    ENDED,
  ],
});

async function executionsOfLicense() {
  const license = await screen.findByRole("region", { name: /License FLOT-ABCDE/ });
  return { license, table: within(license).getByRole("table", { name: "Executions" }) };
}

beforeEach(() => {
  localStorage.clear();
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("Executions of a customer's license", () => {
  it("says how many run against the limit and lists running and recent ones with device, feature, times and state", async () => {
    fakeApi({ ...signedInAdmin(), [DETAIL_PATH]: () => json(200, detail(withRunning())) });
    renderAdmin(`/admin?tab=customers&customer=${CUSTOMER_ID}`);
    const { license, table } = await executionsOfLicense();
    expect(within(license).getByText("Running now:").parentElement).toHaveTextContent("Running now: 1 of 1");

    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows).toHaveLength(3);
    const [running, silent, ended] = rows as [HTMLElement, HTMLElement, HTMLElement];
    expect(running).toHaveTextContent("Grace's laptop");
    expect(running).toHaveTextContent("LAPT-1111");
    expect(running).toHaveTextContent("code-review");
    // Dates name their time zone: an admin compares them with the app's logs.
    const started = formatDateTime(RUNNING.started_at);
    expect(started).toMatch(/\d{2}:\d{2}( [AP]M)? \S+$/);
    expect(running).toHaveTextContent(started);
    expect(running).toHaveTextContent(formatDateTime(RUNNING.last_heartbeat_at));
    expect(running).toHaveTextContent("Running");
    expect(silent).toHaveTextContent("DESK-2222");
    expect(silent).toHaveTextContent("Silent");
    expect(ended).toHaveTextContent("Ended by the owner");

    // The frame scrolls the table and clips its screen-reader-only header, so a 375 px page does not widen.
    expect(table.closest("section")).toHaveClass("relative", "overflow-x-auto");

    // "End" on running rows only, named for its row.
    expect(within(table).getAllByRole("button")).toHaveLength(1);
    expect(within(running).getByRole("button", { name: `End execution on Grace's laptop, started ${started}` })).toBe(
      within(table).getByRole("button"),
    );
  });

  it("an unlimited tier shows the running count alone; no executions yet says so", async () => {
    fakeApi({
      ...signedInAdmin(),
      [DETAIL_PATH]: () => json(200, detail({ limit: null, running: 2, list: [RUNNING, { ...RUNNING, id: "x" }] })),
    });
    renderAdmin(`/admin?tab=customers&customer=${CUSTOMER_ID}`);
    const { license } = await executionsOfLicense();
    expect(within(license).getByText("Running now:").parentElement).toHaveTextContent("Running now: 2 running");
    vi.unstubAllGlobals();

    fakeApi({ ...signedInAdmin(), [DETAIL_PATH]: () => json(200, detail({ limit: 1, running: 0, list: [] })) });
    renderAdmin(`/admin?tab=customers&customer=${CUSTOMER_ID}`);
    expect(await screen.findByText("No executions yet.")).toBeInTheDocument();
  });

  it("ends a running execution only with a reason, says it is stopping, refreshes the list and moves focus to its heading", async () => {
    let executions = withRunning();
    const api = fakeApi({
      ...signedInAdmin(),
      [DETAIL_PATH]: () => json(200, detail(executions)),
      [`POST ${END_PATH}`]: () => {
        executions = afterEnd();
        return json(200, {
          success: true,
          data: {
            status: "stopping",
            end_reason: "ended_by_admin",
            stop_requested_at: "2026-01-05T09:40:00.000Z",
            holds_slot_until: "2026-01-05T09:41:30.000Z",
            ended_at: null,
          },
        });
      },
    });
    const { user } = renderAdmin(`/admin?tab=customers&customer=${CUSTOMER_ID}`);
    const { license, table } = await executionsOfLicense();
    await user.click(within(table).getByRole("button", { name: /^End execution on Grace's laptop/ }));

    const dialog = screen.getByRole("dialog", { name: "End execution" });
    expect(dialog).toHaveTextContent("is told to stop");
    expect(dialog).toHaveTextContent("its slot stays taken until then");
    const reason = within(dialog).getByLabelText("Reason");
    expect(reason).toBeRequired();
    await vi.waitFor(() => expect(reason).toHaveFocus());
    await user.click(within(dialog).getByRole("button", { name: "End execution" }));
    expect(within(dialog).getByRole("alert")).toHaveTextContent("Give a reason for the change.");
    expect(api.calls("POST", END_PATH)).toHaveLength(0);

    await user.type(reason, "App hung; customer asked");
    await user.click(within(dialog).getByRole("button", { name: "End execution" }));
    await vi.waitFor(() =>
      expect(api.calls("POST", END_PATH)[0]?.body).toEqual({ reason: "App hung; customer asked" }),
    );

    expect(await screen.findByText(/Stopping on Grace's laptop…: its app has been told/)).toHaveAttribute(
      "role",
      "status",
    );
    expect(within(license).getByText("Running now:").parentElement).toHaveTextContent("Running now: 0 of 1");
    const refreshed = within(license).getByRole("table", { name: "Executions" });
    expect(within(refreshed).queryAllByRole("button")).toHaveLength(0);
    expect(within(refreshed).getAllByRole("row")[1]).toHaveTextContent("Ended by an admin");
    expect(screen.queryByRole("dialog")).toBeNull();
    await vi.waitFor(() => expect(within(license).getByRole("heading", { name: "Executions" })).toHaveFocus());
  });

  it("Cancel closes without a request and hands focus back to the End button", async () => {
    const api = fakeApi({ ...signedInAdmin(), [DETAIL_PATH]: () => json(200, detail(withRunning())) });
    const { user } = renderAdmin(`/admin?tab=customers&customer=${CUSTOMER_ID}`);
    const { table } = await executionsOfLicense();
    const opener = within(table).getByRole("button", { name: /^End execution on/ });
    await user.click(opener);
    const dialog = screen.getByRole("dialog", { name: "End execution" });
    await user.type(within(dialog).getByLabelText("Reason"), "Changed my mind");
    await user.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("dialog")).toBeNull();
    await vi.waitFor(() => expect(opener).toHaveFocus());
    expect(api.fetchMock.mock.calls.some(([, init]) => init?.method === "POST")).toBe(false);
  });

  it("shows the server's refusal in the dialog and keeps it open", async () => {
    fakeApi({
      ...signedInAdmin(),
      [DETAIL_PATH]: () => json(200, detail(withRunning())),
      [`POST ${END_PATH}`]: () =>
        json(404, { success: false, error: "No running execution with this id on this machine." }),
    });
    const { user } = renderAdmin(`/admin?tab=customers&customer=${CUSTOMER_ID}`);
    const { table } = await executionsOfLicense();
    await user.click(within(table).getByRole("button", { name: /^End execution on/ }));
    const dialog = screen.getByRole("dialog", { name: "End execution" });
    await user.type(within(dialog).getByLabelText("Reason"), "Stuck lease");
    await user.click(within(dialog).getByRole("button", { name: "End execution" }));
    expect(await within(dialog).findByText("No running execution with this id on this machine.")).toBeInTheDocument();
    expect(screen.getByRole("dialog", { name: "End execution" })).toBeInTheDocument();
  });
});
