import { NEWSLETTER_MESSAGES } from "@flotilla/contracts/newsletter";
import { CircleAlert, CircleCheck, Loader2, MailCheck } from "lucide-react";
import { useState } from "react";
import { Link } from "react-router";
import { buttonClass } from "../../components/button";
import { confirmNewsletter } from "./api";

type State =
  | { kind: "ready" }
  | { kind: "working" }
  | { kind: "done"; message: string }
  | { kind: "error"; message: string; retryable: boolean };

/**
 * The page behind the newsletter confirmation mail's link. Confirming takes a press of the button (a POST):
 * a mail scanner that opens the link, even with a browser, confirms nothing (decision 0032).
 */
export function NewsletterConfirm({ token }: { token: string | null }) {
  const [state, setState] = useState<State>(() =>
    token ? { kind: "ready" } : { kind: "error", message: NEWSLETTER_MESSAGES.invalidConfirmation, retryable: false },
  );

  async function confirm() {
    if (!token) return;
    setState({ kind: "working" });
    const result = await confirmNewsletter(token);
    setState(result.ok ? { kind: "done", message: result.message } : { kind: "error", ...result });
  }

  return (
    <div className="mx-auto flex max-w-xl flex-col items-center px-6 py-24 text-center" aria-live="polite">
      {(state.kind === "ready" || state.kind === "working") && (
        <>
          <span className="inline-flex size-14 items-center justify-center rounded-full bg-sky-500/15 text-sky-700 dark:text-sky-300">
            <MailCheck className="size-8" aria-hidden="true" />
          </span>
          <h1 className="mt-6 text-3xl font-semibold tracking-tight">Confirm your subscription</h1>
          <p className="mt-4 text-fg-muted">
            One click and the newsletter starts coming to this address. Didn't ask for it? Close this page: nothing is
            sent until you confirm.
          </p>
          <button
            type="button"
            className={buttonClass("primary", "md", "mt-8")}
            onClick={confirm}
            disabled={state.kind === "working"}
          >
            {state.kind === "working" && <Loader2 className="size-4 animate-spin" aria-hidden="true" />}
            Confirm subscription
          </button>
        </>
      )}
      {state.kind === "done" && (
        <>
          <span className="inline-flex size-14 items-center justify-center rounded-full bg-emerald-500/15 text-emerald-600 dark:text-emerald-400">
            <CircleCheck className="size-8" aria-hidden="true" />
          </span>
          <h1 className="mt-6 text-3xl font-semibold tracking-tight">{state.message}</h1>
          <p className="mt-4 text-fg-muted">
            Thanks for confirming. Every mail has a link to unsubscribe whenever you like.
          </p>
        </>
      )}
      {state.kind === "error" && (
        <>
          <span className="inline-flex size-14 items-center justify-center rounded-full bg-red-500/10 text-red-600 dark:text-red-400">
            <CircleAlert className="size-8" aria-hidden="true" />
          </span>
          <h1 className="mt-6 text-3xl font-semibold tracking-tight">We couldn't confirm your subscription</h1>
          <p className="mt-4 text-red-600 dark:text-red-400" role="alert">
            {state.message}
          </p>
          {state.retryable ? (
            <button type="button" className={buttonClass("primary", "md", "mt-6")} onClick={confirm}>
              Try again
            </button>
          ) : (
            <p className="mt-4 text-sm text-fg-muted">Subscribe again from the blog to get a new link.</p>
          )}
        </>
      )}
      <Link to="/blog" className={buttonClass("secondary", "md", "mt-8")}>
        Back to the blog
      </Link>
    </div>
  );
}
