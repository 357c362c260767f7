/** Test helpers for the console: a fake API answering by "METHOD /path" (query ignored), and the page in a router. */
import { render } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createMemoryRouter, RouterProvider } from "react-router";
import { vi } from "vitest";
import { AuthProvider } from "../../lib/auth";
import { AdminPage } from "./admin-page";

export type Handler = (url: URL, init: RequestInit | undefined) => Response | Promise<Response>;

export const ADMIN_USER = { id: "c-admin", email: "ops@example.com", name: "Ops", avatar_url: null, is_admin: true };

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

export function fakeApi(routes: Record<string, Handler>) {
  const fetchMock = vi.fn<typeof fetch>(async (input, init) => {
    const url = new URL(String(input), "http://localhost");
    const method = init?.method ?? "GET";
    const handler = routes[`${method} ${url.pathname}`];
    if (!handler) throw new Error(`unexpected request ${method} ${url.pathname}${url.search}`);
    return handler(url, init);
  });
  vi.stubGlobal("fetch", fetchMock);
  /** The requests made to one route, as URLs, with their bodies. */
  const calls = (method: string, path: string) =>
    fetchMock.mock.calls
      .map(([input, init]) => ({ url: new URL(String(input), "http://localhost"), init }))
      .filter(({ url, init }) => url.pathname === path && (init?.method ?? "GET") === method)
      .map(({ url, init }) => ({ url, body: init?.body ? JSON.parse(String(init.body)) : undefined, init }));
  return { fetchMock, calls };
}

/** The routes every console page needs: a valid session of an admin. */
export function signedInAdmin(): Record<string, Handler> {
  localStorage.setItem("auth_token", "admin-token");
  return {
    "GET /api/auth/validate": () => json(200, { success: true, user: ADMIN_USER }),
    "GET /api/admin/me": () => json(200, { success: true, data: { email: ADMIN_USER.email, source: "config" } }),
  };
}

export const emptyPage = () => json(200, { success: true, data: [], next_cursor: null });

export function renderAdmin(entry = "/admin") {
  const router = createMemoryRouter(
    [
      { path: "/admin", element: <AdminPage /> },
      { path: "/login", element: <h1>Sign in page</h1> },
      { path: "/dashboard", element: <h1>Dashboard page</h1> },
    ],
    { initialEntries: [entry] },
  );
  render(
    <AuthProvider>
      <RouterProvider router={router} />
    </AuthProvider>,
  );
  return { router, user: userEvent.setup() };
}
