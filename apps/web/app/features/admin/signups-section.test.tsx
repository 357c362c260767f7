import { screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeApi, json, renderAdmin, signedInAdmin } from "./test-helpers";

function signup(n: number) {
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    email: `person${n}@example.com`,
    name: `Person ${n}`,
    company: "Acme",
    role: "Tech Lead",
    ai_experience: "Advanced - Regularly use AI for complex tasks",
    platform: "Web Application - Use it from any browser",
    interests: "Task Automation",
    newsletter: true,
    created_at: `2026-01-0${(n % 9) + 1}T10:00:00.000Z`,
  };
}

beforeEach(() => {
  localStorage.clear();
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("Early access", () => {
  it("lists signups, pages with the API's cursor, and shows counts over time as a chart", async () => {
    const api = fakeApi({
      ...signedInAdmin(),
      "GET /api/admin/signups": (url) =>
        url.searchParams.get("cursor") === "CURSOR-2"
          ? json(200, { success: true, data: [signup(3)], next_cursor: null })
          : json(200, { success: true, data: [signup(1), signup(2)], next_cursor: "CURSOR-2" }),
      "GET /api/admin/signups/counts": () =>
        json(200, {
          success: true,
          interval: "day",
          total: 5,
          data: [
            { period: "2026-01-01", count: 2 },
            { period: "2026-01-02", count: 3 },
          ],
        }),
    });
    const { user } = renderAdmin();
    const table = await screen.findByRole("table", { name: "Signups" });
    expect(within(table).getByText("person1@example.com")).toBeInTheDocument();
    expect(within(table).getByText("person2@example.com")).toBeInTheDocument();

    const chart = screen.getByRole("img", { name: /Signups per day: 5 in all/ });
    expect(chart.querySelectorAll("rect[data-count]")).toHaveLength(2);

    await user.click(screen.getByRole("button", { name: "Load more" }));
    expect(await within(table).findByText("person3@example.com")).toBeInTheDocument();
    expect(api.calls("GET", "/api/admin/signups").at(-1)!.url.searchParams.get("cursor")).toBe("CURSOR-2");
    // The last page: nothing more to load.
    expect(screen.queryByRole("button", { name: "Load more" })).not.toBeInTheDocument();
  });

  it("sends the filters to the list, the counts and the export", async () => {
    const api = fakeApi({
      ...signedInAdmin(),
      "GET /api/admin/signups": () => json(200, { success: true, data: [signup(1)], next_cursor: null }),
      "GET /api/admin/signups/counts": () => json(200, { success: true, interval: "week", total: 1, data: [] }),
      "GET /api/admin/signups/export": () =>
        new Response("email,name\nperson1@example.com,Person 1\n", {
          status: 200,
          headers: { "Content-Type": "text/csv; charset=utf-8" },
        }),
    });
    const createObjectURL = vi.fn(() => "blob:signups");
    const revokeObjectURL = vi.fn();
    vi.stubGlobal("URL", Object.assign(URL, { createObjectURL, revokeObjectURL }));
    const clicked = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    const { user } = renderAdmin();
    await screen.findByRole("table", { name: "Signups" });

    await user.type(screen.getByLabelText("Search"), "acme");
    await user.selectOptions(screen.getByLabelText("Role"), "Tech Lead");
    await user.selectOptions(screen.getByLabelText("Platform"), "Web Application - Use it from any browser");
    await user.selectOptions(screen.getByLabelText("AI experience"), "Advanced - Regularly use AI for complex tasks");
    await user.selectOptions(screen.getByLabelText("Interest"), "Task Automation");
    await user.type(screen.getByLabelText("From"), "2026-01-01");
    await user.type(screen.getByLabelText("To"), "2026-01-31");
    await user.selectOptions(screen.getByLabelText("Chart by"), "week");
    await user.click(screen.getByRole("button", { name: "Apply filters" }));

    const expected = {
      q: "acme",
      role: "Tech Lead",
      platform: "Web Application - Use it from any browser",
      experience: "Advanced - Regularly use AI for complex tasks",
      interest: "Task Automation",
      from: "2026-01-01",
      to: "2026-01-31",
    };
    await vi.waitFor(() => {
      const list = api.calls("GET", "/api/admin/signups").at(-1)!.url.searchParams;
      expect(Object.fromEntries(list)).toMatchObject(expected);
      expect(list.get("cursor")).toBeNull();
    });
    const counts = api.calls("GET", "/api/admin/signups/counts").at(-1)!.url.searchParams;
    expect(Object.fromEntries(counts)).toEqual({ ...expected, interval: "week" });

    await user.click(screen.getByRole("button", { name: "Export CSV" }));
    await vi.waitFor(() => expect(clicked).toHaveBeenCalled());
    const exported = api.calls("GET", "/api/admin/signups/export")[0]!;
    expect(Object.fromEntries(exported.url.searchParams)).toEqual(expected);
    expect(new Headers(exported.init?.headers).get("Authorization")).toBe("Bearer admin-token");
    expect(createObjectURL).toHaveBeenCalled();
  });

  it("shows the server's message when a page fails", async () => {
    fakeApi({
      ...signedInAdmin(),
      "GET /api/admin/signups": () =>
        json(400, { success: false, error: "This page link is no longer valid; start from the first page." }),
      "GET /api/admin/signups/counts": () => json(200, { success: true, interval: "day", total: 0, data: [] }),
    });
    renderAdmin();
    expect(await screen.findByRole("alert")).toHaveTextContent("This page link is no longer valid");
  });
});
