import { MESSAGES } from "@flotilla/contracts/messages";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { subscribeToNewsletter, UNSUBSCRIBE_INVALID_LINK } from "./api";
import { NewsletterUnsubscribe } from "./newsletter-unsubscribe";
import { StayUpdated } from "./stay-updated";

const fetchMock = vi.fn<typeof fetch>();

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

beforeEach(() => {
  fetchMock.mockReset();
  vi.stubGlobal("fetch", fetchMock);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("Stay Updated with the real newsletter call", () => {
  it("posts {email, source: 'blog'} to /api/newsletter and shows the success state", async () => {
    fetchMock.mockResolvedValue(jsonResponse(201, { success: true, message: "Subscribed" }));
    render(<StayUpdated subscribe={subscribeToNewsletter} />);
    await userEvent.type(screen.getByLabelText("Email address"), " ada@example.com ");
    await userEvent.click(screen.getByRole("button", { name: "Subscribe" }));

    expect(await screen.findByRole("status")).toHaveTextContent("check your inbox and confirm");
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/newsletter");
    expect(init?.method).toBe("POST");
    expect(JSON.parse(String(init?.body))).toEqual({ email: "ada@example.com", source: "blog" });
  });

  it("shows the server's error field", async () => {
    fetchMock.mockResolvedValue(jsonResponse(400, { success: false, error: "Please enter a valid email address" }));
    render(<StayUpdated subscribe={subscribeToNewsletter} />);
    await userEvent.type(screen.getByLabelText("Email address"), "ada@example.com");
    await userEvent.click(screen.getByRole("button", { name: "Subscribe" }));

    expect(await screen.findByRole("alert")).toHaveTextContent("Please enter a valid email address");
    expect(fetchMock).toHaveBeenCalledOnce();
  });

  it("says what is wrong with the address inline, like every other form, and sends nothing", async () => {
    render(<StayUpdated subscribe={subscribeToNewsletter} />);
    const field = screen.getByLabelText("Email address");
    // No browser validation bubble: the form does its own checking.
    expect(field.closest("form")).toHaveAttribute("novalidate");
    await userEvent.click(screen.getByRole("button", { name: "Subscribe" }));
    expect(screen.getByRole("alert")).toHaveTextContent("Email is required");
    await userEvent.type(field, "ada@example");
    await userEvent.click(screen.getByRole("button", { name: "Subscribe" }));
    expect(screen.getByRole("alert")).toHaveTextContent("Please enter a valid email address");
    expect(field).toHaveAttribute("aria-invalid", "true");
    expect(field).toHaveAccessibleDescription("Please enter a valid email address");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("falls back to the generic message when the server gives none", async () => {
    fetchMock.mockResolvedValue(new Response("", { status: 404 }));
    await expect(subscribeToNewsletter("ada@example.com")).rejects.toThrow(MESSAGES.genericFailure);
  });
});

describe("NewsletterUnsubscribe", () => {
  function renderPage(token: string | null) {
    return render(
      <MemoryRouter>
        <NewsletterUnsubscribe token={token} />
      </MemoryRouter>,
    );
  }

  it("says Unsubscribing… while the call runs, then You're unsubscribed", async () => {
    let answer!: (response: Response) => void;
    fetchMock.mockImplementation(() => new Promise<Response>((resolve) => (answer = resolve)));
    renderPage("tok_1234567890");

    expect(screen.getByRole("heading", { name: "Unsubscribing…" })).toBeInTheDocument();
    expect(fetchMock.mock.calls[0]![0]).toBe("/api/newsletter/unsubscribe?token=tok_1234567890");
    expect(fetchMock.mock.calls[0]![1]?.method).toBe("GET");

    answer(jsonResponse(200, { success: true, message: "Unsubscribed" }));
    expect(await screen.findByRole("heading", { name: "You're unsubscribed" })).toBeInTheDocument();
  });

  it("explains an invalid or expired link on a 4xx", async () => {
    fetchMock.mockResolvedValue(jsonResponse(400, { success: false, error: "Invalid token" }));
    renderPage("bad-token-123");

    expect(await screen.findByRole("alert")).toHaveTextContent(UNSUBSCRIBE_INVALID_LINK);
    expect(screen.queryByRole("button", { name: "Try again" })).not.toBeInTheDocument();
  });

  it("explains an invalid link without calling the server when there is no token", () => {
    renderPage(null);
    expect(screen.getByRole("alert")).toHaveTextContent(UNSUBSCRIBE_INVALID_LINK);
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
