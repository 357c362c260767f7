import { NEWSLETTER_MESSAGES } from "@flotilla/contracts/newsletter";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { NewsletterConfirm } from "./newsletter-confirm";

const fetchMock = vi.fn<typeof fetch>();

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

function renderConfirm(token: string | null) {
  render(
    <MemoryRouter>
      <NewsletterConfirm token={token} />
    </MemoryRouter>,
  );
  return userEvent.setup();
}

beforeEach(() => {
  fetchMock.mockReset();
  vi.stubGlobal("fetch", fetchMock);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("/newsletter/confirm", () => {
  it("confirms nothing on load (a mail scanner opening the link): the visitor presses the button", async () => {
    fetchMock.mockResolvedValue(jsonResponse(200, { success: true, message: NEWSLETTER_MESSAGES.confirmed }));
    const user = renderConfirm("sub-1.1700000000000.mac");
    expect(screen.getByRole("heading", { level: 1, name: "Confirm your subscription" })).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();

    await user.click(screen.getByRole("button", { name: "Confirm subscription" }));
    expect(await screen.findByRole("heading", { level: 1, name: NEWSLETTER_MESSAGES.confirmed })).toBeInTheDocument();
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/newsletter/confirm");
    expect(init?.method).toBe("POST");
    expect(JSON.parse(String(init?.body))).toEqual({ token: "sub-1.1700000000000.mac" });
  });

  it("says when the address was already confirmed", async () => {
    fetchMock.mockResolvedValue(jsonResponse(200, { success: true, message: NEWSLETTER_MESSAGES.alreadyConfirmed }));
    const user = renderConfirm("sub-1.1700000000000.mac");
    await user.click(screen.getByRole("button", { name: "Confirm subscription" }));
    expect(
      await screen.findByRole("heading", { level: 1, name: NEWSLETTER_MESSAGES.alreadyConfirmed }),
    ).toBeInTheDocument();
  });

  it("shows the server's message for a bad or old link, without a retry", async () => {
    fetchMock.mockResolvedValue(
      jsonResponse(400, { success: false, error: NEWSLETTER_MESSAGES.invalidConfirmation, code: "INVALID_TOKEN" }),
    );
    const user = renderConfirm("sub-1.1700000000000.forged");
    await user.click(screen.getByRole("button", { name: "Confirm subscription" }));
    expect(await screen.findByRole("alert")).toHaveTextContent(NEWSLETTER_MESSAGES.invalidConfirmation);
    expect(screen.queryByRole("button", { name: /Confirm subscription|Try again/ })).not.toBeInTheDocument();
  });

  it("explains a link without a token, and calls nothing", () => {
    renderConfirm(null);
    expect(screen.getByRole("alert")).toHaveTextContent(NEWSLETTER_MESSAGES.invalidConfirmation);
    expect(screen.queryByRole("button", { name: "Confirm subscription" })).not.toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("offers another try when the service could not be reached", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      fetchMock.mockResolvedValue(jsonResponse(503, { success: false, error: "Service unavailable" }));
      const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
      render(
        <MemoryRouter>
          <NewsletterConfirm token="sub-1.1700000000000.mac" />
        </MemoryRouter>,
      );
      await user.click(screen.getByRole("button", { name: "Confirm subscription" }));
      await vi.advanceTimersByTimeAsync(10_000);
      expect(await screen.findByRole("button", { name: "Try again" })).toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });
});
