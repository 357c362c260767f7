import type { DashboardData } from "@flotilla/contracts/licensing";
import { act, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AuthProvider } from "../../lib/auth";
import { DashboardPage } from "../dashboard/dashboard-page";

const ADA = { id: "c1", email: "ada@example.com", name: "Ada Lovelace", avatar_url: null, is_admin: false };
const DATA: DashboardData = {
  customer: { name: "Ada Lovelace", email: "ada@example.com", avatar_url: null },
  licenses: [],
  usage_analytics: { total_executions: 0, current_month_executions: 0, license_utilization: 0, most_used_features: [] },
};

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

type Handler = () => Response | Promise<Response>;
let routes: Record<string, Handler>;
/** The live stream: held open until the test pushes an event into it. */
let pushEvent: (event: string) => void;

function liveStream(): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const encoder = new TextEncoder();
      pushEvent = (event) => controller.enqueue(encoder.encode(`event: ${event}\ndata: {}\n\n`));
      pushEvent("ready");
    },
  });
  return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } });
}

function renderAt(path = "/dashboard?tab=x") {
  const router = createMemoryRouter(
    [
      { path: "/dashboard", element: <DashboardPage /> },
      { path: "/login", element: <h1>Sign in page</h1> },
    ],
    { initialEntries: [path] },
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
    "GET /api/customer/dashboard": () => json(200, { success: true, data: DATA }),
    "GET /api/customer/events": liveStream,
  };
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const key = `${init?.method ?? "GET"} ${String(input)}`;
      const handler = routes[key];
      if (!handler) throw new TypeError(`unexpected request ${key}`);
      return handler();
    }),
  );
  vi.spyOn(console, "warn").mockImplementation(() => {});
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("the portal's root (decision 0055)", () => {
  it("a session that ends while open replaces the page with what happened and 'Sign in again' back to it", async () => {
    renderAt();
    expect(await screen.findByText("No licenses yet")).toBeInTheDocument();
    routes["GET /api/customer/dashboard"] = () =>
      json(401, {
        success: false,
        error: "Your session is invalid or has expired.",
        code: "INVALID_SESSION",
        reason: "expired",
      });
    await userEvent.setup().click(screen.getByRole("button", { name: "Refresh dashboard" }));

    expect(await screen.findByRole("heading", { name: "Your session has expired" })).toHaveFocus();
    expect(screen.queryByText("No licenses yet")).not.toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "Customer Dashboard" })).not.toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Sign in again" })).toHaveAttribute(
      "href",
      `/login?redirect=${encodeURIComponent("/dashboard?tab=x")}`,
    );
    expect(localStorage.getItem("auth_token")).toBeNull();
  });

  it("the live stream's signed-out asks why: an erased account is told so, and what signing in again does", async () => {
    renderAt("/dashboard");
    expect(await screen.findByText("Live")).toBeInTheDocument();
    routes["GET /api/auth/validate"] = () =>
      json(401, { success: false, error: "gone", code: "INVALID_SESSION", reason: "account_erased" });
    act(() => pushEvent("signed-out"));

    expect(await screen.findByRole("heading", { name: "Your account was erased" })).toBeInTheDocument();
    expect(screen.getByText(/creates a new, empty account/)).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Sign in with a new account" })).toHaveAttribute(
      "href",
      `/login?redirect=${encodeURIComponent("/dashboard")}`,
    );
  });

  it("a stale sign-in at load still goes to /login (spec: the token is removed, the visitor signs in)", async () => {
    routes["GET /api/auth/validate"] = () => json(401, { success: false, error: "x", code: "INVALID_SESSION" });
    routes["GET /api/customer/dashboard"] = () => json(401, { success: false, error: "x", code: "INVALID_SESSION" });
    const { router } = renderAt("/dashboard");
    await vi.waitFor(() => expect(router.state.location.pathname).toBe("/login"));
  });

  it("offline shows in the badge and a notice, instead of a green Live; both go when the network returns", async () => {
    renderAt("/dashboard");
    expect(await screen.findByText("Live")).toBeInTheDocument();
    const online = vi.spyOn(navigator, "onLine", "get").mockReturnValue(false);
    act(() => void window.dispatchEvent(new Event("offline")));

    expect(await screen.findByText("Offline")).toBeInTheDocument();
    expect(screen.queryByText("Live")).not.toBeInTheDocument();
    expect(screen.getByTestId("connection-notice")).toHaveTextContent(
      "Changes are paused until your connection returns",
    );

    online.mockReturnValue(true);
    act(() => void window.dispatchEvent(new Event("online")));
    expect(await screen.findByText("Live")).toBeInTheDocument();
    expect(screen.getByTestId("connection-notice")).toBeEmptyDOMElement();
  });

  it("a server that does not answer says so, and the badge returns to Live once it answers again", async () => {
    const down = () => Promise.reject(new TypeError("Failed to fetch"));
    const up = { ...routes };
    routes["GET /api/customer/events"] = down;
    routes["GET /api/customer/dashboard"] = down;
    renderAt("/dashboard");
    expect(await screen.findByText("Can't reach Flotilla")).toBeInTheDocument();
    expect(screen.queryByText("Live")).not.toBeInTheDocument();
    expect(screen.getByTestId("connection-notice")).toHaveTextContent(
      "Changes are paused while the service doesn't answer",
    );

    routes = up; // the stream reconnects by itself (after RECONNECT_BASE_MS)
    expect(await screen.findByText("Live")).toBeInTheDocument();
    expect(screen.getByTestId("connection-notice")).toBeEmptyDOMElement();
  });
});
