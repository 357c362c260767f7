import { MESSAGES, SIGNUP_UI } from "@flotilla/contracts/messages";
import { SIGNUP_MESSAGES } from "@flotilla/contracts/signup";
import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LazySignupDialog } from "./lazy-signup-dialog";
import { SignupDialog } from "./signup-dialog";

const FIVE_MESSAGES = [
  SIGNUP_MESSAGES.emailRequired,
  SIGNUP_MESSAGES.nameRequired,
  SIGNUP_MESSAGES.roleRequired,
  SIGNUP_MESSAGES.aiExperienceRequired,
  SIGNUP_MESSAGES.platformRequired,
];
const SUBMIT = "Secure My Spot";

const fetchMock = vi.fn<typeof fetch>();

function jsonResponse(status: number, body: unknown, statusText = ""): Response {
  return new Response(JSON.stringify(body), { status, statusText, headers: { "Content-Type": "application/json" } });
}

function Harness() {
  const [open, setOpen] = useState(true);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Open signup
      </button>
      <SignupDialog open={open} onClose={() => setOpen(false)} />
    </>
  );
}

function setup() {
  const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
  render(<Harness />);
  return user;
}

/** Lets pending promises and timers up to `ms` run, inside act so React state updates are flushed. */
async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

async function fillValid(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText("Email"), "ada@example.com");
  await user.type(screen.getByLabelText("Name"), "Ada Lovelace");
  await user.selectOptions(screen.getByLabelText("Role"), "Tech Lead");
  await user.click(screen.getByRole("radio", { name: /^Advanced/ }));
  await user.click(screen.getByRole("radio", { name: /^macOS Desktop/ }));
}

function sentBody(call = 0): Record<string, unknown> {
  return JSON.parse(String(fetchMock.mock.calls[call]![1]!.body));
}

function dialog() {
  return screen.getByRole("dialog");
}

beforeEach(() => {
  vi.useFakeTimers();
  // Testing Library drains its async work with a setTimeout(0) that it only advances for Jest's fake
  // timers; this shim lets it drive Vitest's, so userEvent works while time is faked.
  vi.stubGlobal("jest", { advanceTimersByTime: (ms: number) => vi.advanceTimersByTime(ms) });
  fetchMock.mockReset();
  vi.stubGlobal("fetch", fetchMock);
  localStorage.clear();
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("SignupDialog", () => {
  it("labels every control", () => {
    setup();
    for (const label of ["Email", "Name", "Company (optional)", "Role"]) {
      expect(screen.getByLabelText(label)).toBeInTheDocument();
    }
    expect(screen.getByRole("radiogroup", { name: "AI experience" })).toBeInTheDocument();
    expect(screen.getByRole("radiogroup", { name: "Preferred platform" })).toBeInTheDocument();
    expect(screen.getByRole("group", { name: "Interests (optional)" })).toBeInTheDocument();
    expect(screen.getAllByRole("checkbox")).toHaveLength(9);
    expect(screen.getByRole("radio", { name: "Beginner Just getting started with AI tools" })).toBeInTheDocument();
  });

  it("on an empty submit shows the five messages next to the fields and in red above the button, and sends nothing", async () => {
    const user = setup();
    await user.click(screen.getByRole("button", { name: SUBMIT }));
    await advance(0); // the schema is loaded on the first submit

    const summary = screen.getByRole("alert");
    for (const message of FIVE_MESSAGES) {
      expect(screen.getAllByText(message)).toHaveLength(2);
      expect(within(summary).getByText(message)).toBeInTheDocument();
    }
    expect(summary.className).toContain("text-red-");
    expect(summary.compareDocumentPosition(screen.getByRole("button", { name: SUBMIT }))).toBe(
      Node.DOCUMENT_POSITION_FOLLOWING,
    );

    const email = screen.getByLabelText("Email");
    expect(email).toHaveAttribute("aria-invalid", "true");
    expect(email).toHaveAccessibleDescription(SIGNUP_MESSAGES.emailRequired);
    expect(screen.getByRole("radiogroup", { name: "AI experience" })).toHaveAccessibleDescription(
      SIGNUP_MESSAGES.aiExperienceRequired,
    );
    expect(email).toHaveFocus();

    await advance(10_000);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("clears a field's error when that field is edited, and only that one", async () => {
    const user = setup();
    await user.click(screen.getByRole("button", { name: SUBMIT }));
    await advance(0); // the schema is loaded on the first submit

    await user.type(screen.getByLabelText("Name"), "A");
    expect(screen.queryByText(SIGNUP_MESSAGES.nameRequired)).not.toBeInTheDocument();
    expect(screen.getByLabelText("Name")).not.toHaveAttribute("aria-invalid");
    expect(screen.getAllByText(SIGNUP_MESSAGES.emailRequired)).toHaveLength(2);

    await user.click(screen.getByRole("radio", { name: /^Expert/ }));
    expect(screen.queryByText(SIGNUP_MESSAGES.aiExperienceRequired)).not.toBeInTheDocument();
    expect(screen.getAllByText(SIGNUP_MESSAGES.platformRequired)).toHaveLength(2);
  });

  it("rejects an invalid email with the spec's message", async () => {
    const user = setup();
    await fillValid(user);
    await user.clear(screen.getByLabelText("Email"));
    await user.type(screen.getByLabelText("Email"), "ada@example");
    await user.click(screen.getByRole("button", { name: SUBMIT }));
    await advance(0); // the schema is loaded on the first submit

    expect(screen.getAllByText(SIGNUP_MESSAGES.emailInvalid)).toHaveLength(2);
    expect(screen.getByLabelText("Email")).toHaveAttribute("aria-invalid", "true");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("while submitting, the button reads 'Securing Your Spot...' and is disabled, and X, backdrop and Escape do not close", async () => {
    let answer!: (response: Response) => void;
    fetchMock.mockImplementation(() => new Promise<Response>((resolve) => (answer = resolve)));
    const user = setup();
    await fillValid(user);
    await user.click(screen.getByRole("button", { name: SUBMIT }));
    await advance(0); // the schema is loaded on the first submit

    const button = screen.getByRole("button", { name: SIGNUP_UI.submitting });
    expect(button).toHaveTextContent(/^Securing Your Spot\.\.\.$/);
    expect(button).toBeDisabled();

    await user.keyboard("{Escape}");
    await user.click(dialog()); // the backdrop: a click on the <dialog> element itself
    expect(screen.getByRole("button", { name: "Close" })).toBeDisabled();
    expect(dialog()).toHaveAttribute("open");
    expect(screen.getByRole("button", { name: SIGNUP_UI.submitting })).toBeInTheDocument();

    answer(jsonResponse(200, { success: true, message: "ok" }));
    await advance(2000);
    expect(screen.getByRole("heading", { name: SIGNUP_UI.successTitle })).toBeInTheDocument();
  });

  it("closes by Escape, backdrop and X when not submitting", async () => {
    const user = setup();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Open signup" }));
    await user.click(dialog());
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Open signup" }));
    await user.click(screen.getByRole("button", { name: "Close" }));
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });

  it("shows the 'You're In' view 1500 ms after the response, not before", async () => {
    fetchMock.mockResolvedValue(jsonResponse(200, { success: true, message: "You're on the list" }));
    const user = setup();
    await fillValid(user);
    await user.click(screen.getByRole("button", { name: SUBMIT }));
    await advance(0);
    expect(fetchMock).toHaveBeenCalledOnce();

    await advance(1499);
    expect(screen.queryByRole("heading", { name: SIGNUP_UI.successTitle })).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: SIGNUP_UI.submitting })).toBeDisabled();

    await advance(1);
    expect(screen.getByRole("heading", { name: SIGNUP_UI.successTitle })).toBeInTheDocument();
    const success = screen.getByTestId("signup-success");
    expect(success).toHaveTextContent("Thanks, Ada!");
    expect(success).toHaveTextContent("ada@example.com");
    // The newsletter waits for the confirmation mail: the success screen must not say it has started.
    expect(success).toHaveTextContent(/confirm your subscription/);
    expect(success).not.toHaveTextContent(/You'll also get our newsletter/);
    const close = within(success).getByRole("button", { name: "Close" });
    expect(close).toHaveFocus();
    await user.click(close);
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });

  it("shows the server's error field in red above the button on a 4xx, without retrying", async () => {
    fetchMock.mockResolvedValue(
      jsonResponse(429, { success: false, error: "Too many signups. Try again in a minute.", code: "RATE_LIMITED" }),
    );
    const user = setup();
    await fillValid(user);
    await user.click(screen.getByRole("button", { name: SUBMIT }));
    await advance(10_000);

    const alert = screen.getByRole("alert");
    expect(alert).toHaveTextContent("Too many signups. Try again in a minute.");
    expect(alert.className).toContain("text-red-");
    expect(fetchMock).toHaveBeenCalledOnce();
    expect(screen.getByRole("button", { name: SUBMIT })).toBeEnabled();
    expect(screen.getByLabelText("Email")).toHaveValue("ada@example.com");
  });

  it("shows 'Form submission failed' when a non-ok response has no error field", async () => {
    fetchMock.mockResolvedValue(jsonResponse(400, { success: false }, "Bad Request"));
    const user = setup();
    await fillValid(user);
    await user.click(screen.getByRole("button", { name: SUBMIT }));
    await advance(0);

    expect(screen.getByRole("alert")).toHaveTextContent(MESSAGES.signupFailed);
  });

  it("shows 'Form submission failed' after three 5xx answers without an error field", async () => {
    fetchMock.mockImplementation(async () => new Response("<html>oops</html>", { status: 502 }));
    const user = setup();
    await fillValid(user);
    await user.click(screen.getByRole("button", { name: SUBMIT }));
    await advance(1000 + 2000);

    expect(fetchMock).toHaveBeenCalledTimes(3);
    expect(screen.getByRole("alert")).toHaveTextContent(MESSAGES.signupFailed);
  });

  it("shows the generic message when the network fails", async () => {
    fetchMock.mockRejectedValue(new TypeError("Failed to fetch"));
    const user = setup();
    await fillValid(user);
    await user.click(screen.getByRole("button", { name: SUBMIT }));
    await advance(1000 + 2000);

    expect(fetchMock).toHaveBeenCalledTimes(3);
    expect(screen.getByRole("alert")).toHaveTextContent(MESSAGES.genericFailure);
    expect(screen.queryByText("Failed to fetch")).not.toBeInTheDocument();
  });

  it("sends the spec's body: interests comma-joined, ai_experience and platform as 'Label - description', newsletter true by default", async () => {
    fetchMock.mockResolvedValue(jsonResponse(200, { success: true, message: "ok" }));
    const user = setup();
    expect(screen.getByRole("checkbox", { name: /newsletter/i })).toBeChecked();
    await fillValid(user);
    await user.type(screen.getByLabelText("Company (optional)"), "  Analytical Engines ");
    await user.click(screen.getByRole("checkbox", { name: "Git Integration" }));
    await user.click(screen.getByRole("checkbox", { name: "AI Agent Coordination" }));
    await user.click(screen.getByRole("button", { name: SUBMIT }));
    await advance(0);

    expect(fetchMock).toHaveBeenCalledOnce();
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/signup");
    expect(init?.method).toBe("POST");
    expect(init?.headers).toMatchObject({ "Content-Type": "application/json" });
    const body = sentBody();
    expect(Object.keys(body)).toEqual([
      "email",
      "name",
      "company",
      "role",
      "ai_experience",
      "platform",
      "interests",
      "newsletter",
    ]);
    expect(body).toEqual({
      email: "ada@example.com",
      name: "Ada Lovelace",
      company: "Analytical Engines",
      role: "Tech Lead",
      ai_experience: "Advanced - Regularly use AI for complex tasks",
      platform: "macOS Desktop - Native app for macOS (beta now)",
      interests: "AI Agent Coordination, Git Integration",
      newsletter: true,
    });
  });

  it("sends newsletter false when unticked and empty interests when none are chosen", async () => {
    fetchMock.mockResolvedValue(jsonResponse(200, { success: true, message: "ok" }));
    const user = setup();
    await fillValid(user);
    await user.click(screen.getByRole("checkbox", { name: /newsletter/i }));
    await user.click(screen.getByRole("button", { name: SUBMIT }));
    await advance(0);

    expect(sentBody()).toMatchObject({ newsletter: false, interests: "", company: "" });
  });

  it("resets to defaults 300 ms after closing", async () => {
    const user = setup();
    await user.type(screen.getByLabelText("Email"), "ada@example.com");
    await user.click(screen.getByRole("checkbox", { name: /newsletter/i }));
    await user.click(screen.getByRole("button", { name: SUBMIT }));
    await advance(0); // the schema is loaded on the first submit
    expect(screen.getAllByText(SIGNUP_MESSAGES.nameRequired)).toHaveLength(2);

    // Closed and reopened within 300 ms: nothing was reset yet.
    await user.click(screen.getByRole("button", { name: "Close" }));
    await advance(299);
    await user.click(screen.getByRole("button", { name: "Open signup" }));
    expect(screen.getByLabelText("Email")).toHaveValue("ada@example.com");

    // Closed for 300 ms: the reopened form is back to its defaults.
    await user.click(screen.getByRole("button", { name: "Close" }));
    await advance(300);
    await user.click(screen.getByRole("button", { name: "Open signup" }));
    expect(screen.getByLabelText("Email")).toHaveValue("");
    expect(screen.getByLabelText("Role")).toHaveValue("");
    expect(screen.getByRole("checkbox", { name: /newsletter/i })).toBeChecked();
    expect(screen.queryByText(SIGNUP_MESSAGES.nameRequired)).not.toBeInTheDocument();
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  it("shows the form again, empty, when reopened after a success", async () => {
    fetchMock.mockResolvedValue(jsonResponse(200, { success: true, message: "ok" }));
    const user = setup();
    await fillValid(user);
    await user.click(screen.getByRole("button", { name: SUBMIT }));
    await advance(1500);
    await user.click(within(screen.getByTestId("signup-success")).getByRole("button", { name: "Close" }));
    await advance(300);
    await user.click(screen.getByRole("button", { name: "Open signup" }));

    expect(screen.getByRole("heading", { name: "Get Early Access" })).toBeInTheDocument();
    expect(screen.getByLabelText("Name")).toHaveValue("");
  });
});

describe("LazySignupDialog", () => {
  it("renders nothing until first opened, then loads the form", async () => {
    vi.useRealTimers();
    const { rerender } = render(<LazySignupDialog open={false} onClose={() => {}} />);
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();

    rerender(<LazySignupDialog open onClose={() => {}} />);
    // The form is committed before the dialog's effect calls showModal(): wait for the open dialog.
    await waitFor(
      () => {
        const dialog = screen.getByRole("dialog", { name: "Get Early Access" });
        expect(within(dialog).getByLabelText("Email")).toBeInTheDocument();
      },
      { timeout: 5000 },
    );
  });
});
