import { MESSAGES } from "@flotilla/contracts";
import { emailProblem } from "@flotilla/contracts/email";
import { Mail } from "lucide-react";
import { type FormEvent, useState } from "react";
import { buttonClass } from "../../components/button";

type State =
  | { kind: "idle" }
  | { kind: "invalid"; message: string }
  | { kind: "sending" }
  | { kind: "done" }
  | { kind: "error"; message: string };

/**
 * The blog's Stay Updated box: subscribes the address to the newsletter. One per page, with fixed ids rather than
 * useId: on a prerendered page the newsletter island hydrates this markup on its own (app/islands/react), where
 * useId would not give the ids the whole page was rendered with.
 */
export function StayUpdated({
  subscribe,
  initialEmail = "",
}: {
  subscribe: (email: string) => Promise<void>;
  /** What was typed before the island hydrated the box. */
  initialEmail?: string;
}) {
  const [email, setEmail] = useState(initialEmail);
  const [state, setState] = useState<State>({ kind: "idle" });
  const inputId = "stay-updated-email";

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    // Checked here and said inline, as every other form does (no browser validation bubble).
    const problem = emailProblem(email);
    if (problem) {
      setState({ kind: "invalid", message: problem });
      return;
    }
    setState({ kind: "sending" });
    try {
      await subscribe(email.trim());
      setState({ kind: "done" });
    } catch (error) {
      setState({
        kind: "error",
        message: error instanceof Error && error.message ? error.message : MESSAGES.genericFailure,
      });
    }
  }

  return (
    <section aria-labelledby={`${inputId}-title`} className="rounded-2xl border border-border bg-bg-elevated p-6">
      <span className="inline-flex size-9 items-center justify-center rounded-lg bg-brand text-white">
        <Mail className="size-4" aria-hidden="true" />
      </span>
      <h2 id={`${inputId}-title`} className="mt-4 font-semibold">
        Stay Updated
      </h2>
      <p className="mt-1 text-sm text-fg-muted">
        New posts, release notes and beta invitations. No spam, unsubscribe anytime.
      </p>
      {state.kind === "done" ? (
        <p className="mt-4 text-sm font-medium text-emerald-700 dark:text-emerald-400" role="status">
          Almost there: check your inbox and confirm your subscription.
        </p>
      ) : (
        <form className="mt-4 space-y-2" onSubmit={onSubmit} noValidate>
          <label htmlFor={inputId} className="sr-only">
            Email address
          </label>
          <input
            id={inputId}
            type="email"
            required
            aria-invalid={state.kind === "invalid" || undefined}
            aria-describedby={state.kind === "invalid" ? `${inputId}-error` : undefined}
            autoComplete="email"
            placeholder="you@company.com"
            value={email}
            onChange={(event) => {
              setEmail(event.target.value);
              if (state.kind === "invalid") setState({ kind: "idle" });
            }}
            className="h-10 w-full rounded-lg border border-border bg-bg px-3 text-sm outline-none focus:border-sky-500"
          />
          <button type="submit" className={buttonClass("primary", "md", "w-full")} disabled={state.kind === "sending"}>
            {state.kind === "sending" ? "Subscribing..." : "Subscribe"}
          </button>
          {state.kind === "invalid" && (
            <p id={`${inputId}-error`} className="text-sm text-red-600 dark:text-red-400" role="alert">
              {state.message}
            </p>
          )}
          {state.kind === "error" && (
            <p className="text-sm text-red-600 dark:text-red-400" role="alert">
              {state.message}
            </p>
          )}
        </form>
      )}
    </section>
  );
}
