import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createMemoryRouter, Link, RouterProvider, useRouteError } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AuthProvider } from "../lib/auth";
import SiteLayout, { ErrorBoundary } from "./site-layout";

/** The layout as the framework mounts it: its error boundary receives the route error as a prop. */
function renderAt(path: string) {
  const router = createMemoryRouter(
    [
      {
        path: "/",
        Component: SiteLayout,
        ErrorBoundary: () => <ErrorBoundary error={useRouteError()} params={{}} loaderData={undefined} />,
        children: [
          { index: true, Component: () => <Link to="/gone">a stale link</Link> },
          {
            path: "gone",
            loader: () => {
              throw new Response("Not Found", { status: 404 });
            },
            Component: () => null,
          },
          {
            path: "broken",
            Component: () => {
              throw new Error("render failed");
            },
          },
        ],
      },
    ],
    { initialEntries: [path] },
  );
  render(
    <AuthProvider>
      <RouterProvider router={router} />
    </AuthProvider>,
  );
}

afterEach(() => vi.restoreAllMocks());

describe("the site layout's error boundary", () => {
  it("shows the designed 404 page inside the header and footer when a page answers 404", async () => {
    renderAt("/");
    await userEvent.click(await screen.findByRole("link", { name: "a stale link" }));
    expect(await screen.findByRole("heading", { level: 1, name: "This page drifted off course" })).toBeInTheDocument();
    expect(screen.getByRole("navigation", { name: "Main" })).toBeInTheDocument();
    expect(screen.getByRole("contentinfo")).toBeInTheDocument();
  });

  it("shows 'Something went wrong' with Reload, still inside the site, for any other failure", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    renderAt("/broken");
    expect(await screen.findByRole("heading", { level: 1, name: "Something went wrong" })).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Reload the page" })).toBeInTheDocument();
    expect(screen.getByRole("navigation", { name: "Main" })).toBeInTheDocument();
  });
});
