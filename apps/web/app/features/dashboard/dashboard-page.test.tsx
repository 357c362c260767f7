import type { DashboardData, License } from "@flotilla/contracts/licensing";
import { MESSAGES } from "@flotilla/contracts/messages";
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AuthProvider } from "../../lib/auth";
import { DashboardPage } from "./dashboard-page";

const fetchMock = vi.fn<typeof fetch>();
type Handler = (init: RequestInit | undefined) => Response | Promise<Response>;
let routes: Record<string, Handler> = {};

const ADA = { id: "c1", email: "ada@example.com", name: "Ada Lovelace", avatar_url: null, is_admin: false };

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

const LICENSE: License = {
  id: "lic-1",
  license_key: "FLOT-ABCDE-FGHJK-MNPQR-STVWX-YZ012",
  tier: "free",
  status: "active",
  machine_id: "ada-laptop",
  expires_at: null,
  last_seen: "2025-06-12T12:00:00Z",
  max_machines: 3,
  created_at: "2025-06-01T12:00:00Z",
  features: { maxConcurrentExecutions: 1, sharedMemory: false, backups: false, embeddingModels: false },
  refused_activations: [],
  previous_key_valid_until: null,
  offline_files_allowed: false,
  executions: { limit: 1, running: [] },
};

function dashboardData(overrides: Partial<DashboardData> = {}): DashboardData {
  return {
    customer: { name: "Ada Lovelace", email: "ada@example.com", avatar_url: "https://example.com/ada.png" },
    licenses: [LICENSE, { ...LICENSE, id: "lic-2", license_key: "FLOT-OLD", status: "expired" }],
    usage_analytics: {
      total_executions: 12345,
      current_month_executions: 678,
      license_utilization: 67.8,
      most_used_features: ["shared-memory", "code-review-agent"],
    },
    ...overrides,
  };
}

const MACHINES = {
  success: true,
  data: {
    current_count: 1,
    max_machines: 3,
    machines: [
      {
        machine_id: "ada-laptop",
        display_id: "LAPT-1111",
        machine_name: null,
        platform: null,
        is_primary: true,
        bound_at: "2025-06-01T12:00:00Z",
        last_seen: null,
      },
    ],
  },
};

function calls(url: string, method = "GET") {
  return fetchMock.mock.calls.filter(([input, init]) => String(input) === url && (init?.method ?? "GET") === method);
}

function renderDashboard() {
  const router = createMemoryRouter(
    [
      { path: "/dashboard", element: <DashboardPage /> },
      { path: "/login", element: <h1>Sign in page</h1> },
    ],
    { initialEntries: ["/dashboard"] },
  );
  render(
    <AuthProvider>
      <RouterProvider router={router} />
    </AuthProvider>,
  );
  return { router, user: userEvent.setup() };
}

beforeEach(() => {
  localStorage.clear();
  localStorage.setItem("auth_token", "good-token");
  routes = {
    "GET /api/auth/validate": () => json(200, { success: true, user: ADA }),
    "GET /api/customer/dashboard": () => json(200, { success: true, data: dashboardData() }),
    "POST /api/auth/logout": () => json(200, { success: true }),
  };
  fetchMock.mockReset();
  fetchMock.mockImplementation(async (input, init) => {
    const url = String(input);
    const method = init?.method ?? "GET";
    const handler =
      routes[`${method} ${url}`] ?? (url.startsWith("/api/license/machines/") ? () => json(200, MACHINES) : undefined);
    if (!handler) throw new Error(`unexpected request ${method} ${url}`);
    return handler(init);
  });
  vi.stubGlobal("fetch", fetchMock);
  vi.spyOn(console, "warn").mockImplementation(() => {});
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("DashboardPage", () => {
  it("sends a visitor without a token to /login", async () => {
    localStorage.clear();
    const { router } = renderDashboard();
    expect(await screen.findByRole("heading", { name: "Sign in page" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/login");
    expect(calls("/api/customer/dashboard")).toHaveLength(0);
  });

  it("sends a visitor whose token is refused to /login", async () => {
    localStorage.setItem("auth_token", "stale-token");
    routes["GET /api/auth/validate"] = () => json(401, { success: false, error: "Invalid token" });
    routes["GET /api/customer/dashboard"] = () => json(401, { success: false, error: "Invalid token" });
    const { router } = renderDashboard();
    expect(await screen.findByRole("heading", { name: "Sign in page" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/login");
  });

  it("shows 'Loading your dashboard...' until the data arrives", async () => {
    let answer!: (response: Response) => void;
    routes["GET /api/customer/dashboard"] = () => new Promise<Response>((resolve) => (answer = resolve));
    renderDashboard();
    expect(await screen.findByText("Loading your dashboard...")).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "Customer Dashboard" })).toBeInTheDocument();
    answer(json(200, { success: true, data: dashboardData() }));
    expect(await screen.findByRole("heading", { name: "Your Licenses" })).toBeInTheDocument();
    expect(screen.queryByText("Loading your dashboard...")).not.toBeInTheDocument();
  });

  it("shows the loaded dashboard: header, four figures, licenses and sidebar", async () => {
    renderDashboard();
    expect(await screen.findByRole("heading", { name: "Your Licenses" })).toBeInTheDocument();

    expect(screen.getByRole("heading", { name: "Customer Dashboard" })).toBeInTheDocument();
    expect(screen.getByText("Manage your licenses and account")).toBeInTheDocument();
    expect(screen.getByText("Ada Lovelace")).toBeInTheDocument();
    expect(screen.getByText("ada@example.com")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Refresh dashboard" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Logout" })).toBeInTheDocument();

    const figure = (label: string) => screen.getByText(label, { selector: "dt" }).nextElementSibling;
    expect(figure("Active Licenses")).toHaveTextContent("1");
    expect(figure("Total Executions")).toHaveTextContent("12,345");
    expect(figure("This Month")).toHaveTextContent("678");
    expect(figure("Utilization")).toHaveTextContent("68%");

    expect(screen.getAllByRole("article")).toHaveLength(2);
    expect(screen.getByRole("button", { name: "Create License" })).toBeInTheDocument();

    expect(screen.getByText("68% of license capacity used")).toBeInTheDocument();
    expect(screen.getByTestId("usage-bar")).toHaveStyle({ width: "67.8%" });

    const features = screen.getByRole("region", { name: "Most Used Features" });
    expect(
      within(features)
        .getAllByRole("listitem")
        .map((item) => item.textContent),
    ).toEqual(["1shared memory", "2code review agent"]);
    // Each license has its own device panel.
    await vi.waitFor(() => expect(screen.getAllByText("LAPT-1111")).toHaveLength(2));
    expect(calls(`/api/license/machines/${LICENSE.license_key}`)).toHaveLength(1);
    expect(calls("/api/license/machines/FLOT-OLD")).toHaveLength(1);
  });

  it("says what 100 % is: the executions a month the plan includes", async () => {
    routes["GET /api/customer/dashboard"] = () =>
      json(200, {
        success: true,
        data: dashboardData({
          usage_analytics: {
            total_executions: 40,
            current_month_executions: 20,
            license_utilization: 2,
            monthly_capacity: 1000,
            most_used_features: [],
          },
        }),
      });
    renderDashboard();
    expect(await screen.findByText("2% of license capacity used")).toBeInTheDocument();
    const utilization = screen.getByText("Utilization", { selector: "dt" });
    expect(utilization).toHaveTextContent("Utilization of 1,000 executions a month");
    expect(utilization.nextElementSibling).toHaveTextContent("2%");
    expect(screen.getByText("20 of the 1,000 executions your plan includes this month")).toBeInTheDocument();
  });

  it("caps the usage bar at 100 percent and hides an empty features list", async () => {
    routes["GET /api/customer/dashboard"] = () =>
      json(200, {
        success: true,
        data: dashboardData({
          usage_analytics: {
            total_executions: 5000,
            current_month_executions: 1500,
            license_utilization: 150,
            most_used_features: [],
          },
        }),
      });
    renderDashboard();
    expect(await screen.findByText("150% of license capacity used")).toBeInTheDocument();
    expect(screen.getByTestId("usage-bar")).toHaveStyle({ width: "100%" });
    expect(screen.getByRole("progressbar", { name: "Monthly Usage" })).toHaveAttribute("aria-valuenow", "100");
    expect(screen.queryByText("Most Used Features")).not.toBeInTheDocument();
  });

  it("on failure shows 'Something went wrong', the message and 'Try Again', which reloads", async () => {
    let failures = 1;
    routes["GET /api/customer/dashboard"] = () =>
      failures-- > 0 ? json(403, { success: false }) : json(200, { success: true, data: dashboardData() });
    const { user } = renderDashboard();

    const alert = await screen.findByRole("alert");
    expect(within(alert).getByRole("heading", { name: "Something went wrong" })).toBeInTheDocument();
    expect(alert).toHaveTextContent(MESSAGES.dashboardLoadFailed);
    await user.click(within(alert).getByRole("button", { name: "Try Again" }));
    expect(await screen.findByRole("heading", { name: "Your Licenses" })).toBeInTheDocument();
    expect(calls("/api/customer/dashboard")).toHaveLength(2);
  });

  it("shows the server's own error when it sends one", async () => {
    routes["GET /api/customer/dashboard"] = () => json(404, { success: false, error: "Customer not found" });
    renderDashboard();
    expect(await screen.findByRole("alert")).toHaveTextContent("Customer not found");
  });

  it("shows 'No data available' when the answer has no data", async () => {
    routes["GET /api/customer/dashboard"] = () => json(200, { success: true, data: null });
    renderDashboard();
    expect(await screen.findByText("No data available")).toBeInTheDocument();
  });

  it("without licenses invites a free one; the invitation opens the create dialog, and a new license reloads the dashboard", async () => {
    let licenses: License[] = [];
    routes["GET /api/customer/dashboard"] = () => json(200, { success: true, data: dashboardData({ licenses }) });
    routes["POST /api/customer/licenses"] = () => {
      licenses = [LICENSE];
      return json(201, { success: true, data: { license: LICENSE } });
    };
    const { user } = renderDashboard();

    expect(await screen.findByRole("heading", { name: "No licenses yet" })).toBeInTheDocument();
    expect(screen.getByText("Get started by purchasing your first license")).toBeInTheDocument();
    expect(screen.getByText("Active Licenses", { selector: "dt" }).nextElementSibling).toHaveTextContent("0");
    await user.click(screen.getByRole("button", { name: "Create Free License" }));

    const dialog = screen.getByRole("dialog", { name: "Create Your License" });
    await user.click(within(dialog).getByRole("button", { name: "Create Free License" }));

    const card = await screen.findByRole("article");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
    // The invitation went away with the empty state: focus moves to the new license, not to the page top.
    expect(within(card).getByRole("heading", { level: 3 })).toHaveFocus();
    expect(calls("/api/customer/dashboard")).toHaveLength(2);
    expect(screen.getByText("Active Licenses", { selector: "dt" }).nextElementSibling).toHaveTextContent("1");
  });

  it("Quick Actions: Create New License opens the dialog; the others are coming soon", async () => {
    const blocking = vi.spyOn(window, "alert").mockImplementation(() => {});
    routes["GET /api/customer/dashboard"] = () => json(200, { success: true, data: dashboardData({ licenses: [] }) });
    const { user } = renderDashboard();
    const actions = await screen.findByRole("region", { name: "Quick Actions" });

    const create = within(actions).getByRole("button", { name: "Create New License" });
    expect(create).toBeEnabled();
    expect(create).not.toHaveAccessibleDescription();
    await user.click(create);
    expect(screen.getByRole("dialog", { name: "Create Your License" })).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Maybe later" }));

    // The spec's words, on the page (role="alert"), never a blocking window.alert.
    for (const name of ["Download Invoices", "Billing Settings", "Account Settings"]) {
      await user.click(within(actions).getByRole("button", { name }));
      expect(within(actions).getByRole("alert")).toHaveTextContent(`${name} is coming soon!`);
    }
    expect(blocking).not.toHaveBeenCalled();
  });

  it("with the one license an account may hold, every create button is disabled and says why", async () => {
    const { user } = renderDashboard();
    const actions = await screen.findByRole("region", { name: "Quick Actions" });
    const buttons = [
      within(actions).getByRole("button", { name: "Create New License" }),
      screen.getByRole("button", { name: "Create License" }),
    ];
    for (const button of buttons) {
      expect(button).toBeDisabled();
      expect(button).toHaveAccessibleDescription(MESSAGES.oneLicensePerAccount);
      expect(button).toHaveAttribute("title", MESSAGES.oneLicensePerAccount);
      await user.click(button);
    }
    expect(screen.queryByRole("dialog", { name: "Create Your License" })).not.toBeInTheDocument();
    expect(calls("/api/customer/licenses", "POST")).toHaveLength(0);
  });

  it("Refresh reloads the dashboard", async () => {
    const { user } = renderDashboard();
    await screen.findByRole("heading", { name: "Your Licenses" });
    await user.click(screen.getByRole("button", { name: "Refresh dashboard" }));
    await vi.waitFor(() => expect(calls("/api/customer/dashboard")).toHaveLength(2));
  });

  it("Logout clears the token and goes to /login", async () => {
    const { user, router } = renderDashboard();
    await screen.findByRole("heading", { name: "Your Licenses" });
    await user.click(screen.getByRole("button", { name: "Logout" }));
    expect(await screen.findByRole("heading", { name: "Sign in page" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/login");
    expect(localStorage.getItem("auth_token")).toBeNull();
    await vi.waitFor(() => expect(calls("/api/auth/logout", "POST")).toHaveLength(1));
  });
});
