import { WEBHOOK_EVENT_TYPES } from "@flotilla/contracts/events";
import { screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeApi, json, renderAdmin, signedInAdmin } from "./test-helpers";

const ENDPOINT_ID = "33333333-3333-4333-8333-333333333333";
const ENDPOINT = {
  id: ENDPOINT_ID,
  url: "https://hooks.example.com/flotilla",
  description: "CRM",
  events: ["signup.created"],
  enabled: true,
  disabled_reason: null,
  created_at: "2026-01-02T10:00:00.000Z",
  updated_at: "2026-01-02T10:00:00.000Z",
};
const DELIVERY = {
  id: "44444444-4444-4444-8444-444444444444",
  event_id: "evt-1",
  event_type: "signup.created",
  attempt: 1,
  status_code: 500,
  error: "HTTP 500",
  duration_ms: 42,
  created_at: "2026-01-02T10:05:00.000Z",
  next_attempt_at: "2026-01-02T10:06:00.000Z",
  gave_up: false,
};

beforeEach(() => {
  localStorage.clear();
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("Webhooks", () => {
  it("registers an endpoint with chosen events and shows its secret once", async () => {
    let endpoints: (typeof ENDPOINT)[] = [];
    const api = fakeApi({
      ...signedInAdmin(),
      "GET /api/admin/webhooks": () => json(200, { success: true, data: endpoints }),
      "POST /api/admin/webhooks": () => {
        endpoints = [ENDPOINT];
        return json(200, { success: true, data: ENDPOINT, secret: "whsec_once" });
      },
      [`GET /api/admin/webhooks/${ENDPOINT_ID}/deliveries`]: () =>
        json(200, { success: true, data: [], next_cursor: null }),
    });
    const { user } = renderAdmin("/admin?tab=webhooks");
    await user.click(await screen.findByRole("button", { name: "Register endpoint" }));
    const dialog = screen.getByRole("dialog", { name: "Register a webhook endpoint" });
    const boxes = within(dialog).getAllByRole("checkbox");
    expect(boxes.map((box) => box.getAttribute("value"))).toEqual([...WEBHOOK_EVENT_TYPES]);

    await user.type(within(dialog).getByLabelText("URL"), "https://hooks.example.com/flotilla");
    await user.click(within(dialog).getByRole("button", { name: "Register" }));
    expect(within(dialog).getByRole("alert")).toHaveTextContent("Choose at least one event.");

    await user.click(within(dialog).getByRole("checkbox", { name: /signup\.created/ }));
    await user.click(within(dialog).getByRole("button", { name: "Register" }));
    await vi.waitFor(() =>
      expect(api.calls("POST", "/api/admin/webhooks")[0]?.body).toEqual({
        url: "https://hooks.example.com/flotilla",
        events: ["signup.created"],
        description: "",
      }),
    );
    const secret = await screen.findByRole("dialog", { name: "Signing secret" });
    expect(within(secret).getByText("whsec_once")).toBeInTheDocument();
    expect(within(secret).getByRole("button", { name: "Copy secret" })).toBeInTheDocument();
    expect(within(secret).getByText(/won't be shown again/)).toBeInTheDocument();
    await user.click(within(secret).getByRole("button", { name: "I've stored it" }));
    expect(screen.queryByText("whsec_once")).not.toBeInTheDocument();
    expect(await screen.findByText("https://hooks.example.com/flotilla")).toBeInTheDocument();
  });

  it("disables, rotates (secret shown once), sends a test event, lists deliveries and resends one", async () => {
    let endpoint = { ...ENDPOINT };
    const base = `/api/admin/webhooks/${ENDPOINT_ID}`;
    const api = fakeApi({
      ...signedInAdmin(),
      "GET /api/admin/webhooks": () => json(200, { success: true, data: [endpoint] }),
      [`PATCH ${base}`]: (_url, init) => {
        endpoint = { ...endpoint, ...JSON.parse(String(init?.body)) };
        return json(200, { success: true, data: endpoint });
      },
      [`POST ${base}/rotate-secret`]: () => json(200, { success: true, data: endpoint, secret: "whsec_rotated" }),
      [`POST ${base}/test`]: () => json(200, { success: true, event_id: "evt-test", message: "Test event queued." }),
      [`GET ${base}/deliveries`]: () => json(200, { success: true, data: [DELIVERY], next_cursor: null }),
      [`POST ${base}/deliveries/${DELIVERY.id}/resend`]: () =>
        json(200, { success: true, event_id: "evt-1", message: "Delivery queued again." }),
    });
    const { user } = renderAdmin("/admin?tab=webhooks");
    const card = await screen.findByRole("region", { name: /hooks\.example\.com/ });

    await user.click(within(card).getByRole("button", { name: "Disable" }));
    await vi.waitFor(() => expect(api.calls("PATCH", base)[0]?.body).toEqual({ enabled: false }));
    expect(await within(card).findByText("Disabled")).toBeInTheDocument();

    await user.click(within(card).getByRole("button", { name: "Send test event" }));
    expect(await within(card).findByText("Test event queued.")).toBeInTheDocument();

    // Deleting is destructive and looks it; rotating is not.
    await user.click(within(card).getByRole("button", { name: "Delete" }));
    const deleting = await screen.findByRole("dialog", { name: "Delete this endpoint?" });
    expect(within(deleting).getByRole("button", { name: "Delete endpoint" }).className).toContain("bg-red-");
    await user.click(within(deleting).getByRole("button", { name: "Cancel" }));
    expect(api.calls("DELETE", base)).toHaveLength(0);

    await user.click(within(card).getByRole("button", { name: "Rotate secret" }));
    const confirm = screen.getByRole("dialog", { name: "Rotate the signing secret?" });
    await user.click(within(confirm).getByRole("button", { name: "Rotate secret" }));
    const secret = await screen.findByRole("dialog", { name: "Signing secret" });
    expect(within(secret).getByText("whsec_rotated")).toBeInTheDocument();
    await user.click(within(secret).getByRole("button", { name: "I've stored it" }));

    await user.click(within(card).getByRole("button", { name: "Show deliveries" }));
    const log = await within(card).findByRole("table", { name: "Deliveries" });
    expect(within(log).getByText("500")).toBeInTheDocument();
    // A failed delivery says when it is tried again, in the console's one format (with its zone).
    expect(within(log).getByText(/^Next retry Jan 2, 2026, \d\d:06 [AP]M [A-Z]{2,5}/)).toBeInTheDocument();
    await user.click(within(log).getByRole("button", { name: "Resend" }));
    await vi.waitFor(() => expect(api.calls("POST", `${base}/deliveries/${DELIVERY.id}/resend`)).toHaveLength(1));
    expect(await within(card).findByText("Delivery queued again.")).toBeInTheDocument();
  });
});
