import { CircleAlert, CircleCheck, Loader2 } from "lucide-react";
import { useEffect, useState } from "react";
import { Link } from "react-router";
import { buttonClass } from "../../components/button";
import { UNSUBSCRIBE_INVALID_LINK, unsubscribeFromNewsletter } from "./api";

type State = { kind: "working" } | { kind: "done" } | { kind: "error"; message: string; retryable: boolean };

/** The page behind the newsletter's unsubscribe link: one call on load, then the outcome. */
export function NewsletterUnsubscribe({ token }: { token: string | null }) {
  const [state, setState] = useState<State>(() =>
    token ? { kind: "working" } : { kind: "error", message: UNSUBSCRIBE_INVALID_LINK, retryable: false },
  );
  const [attempt, setAttempt] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `attempt` re-runs the call on "Try again"
  useEffect(() => {
    if (!token) return;
    const controller = new AbortController();
    setState({ kind: "working" });
    unsubscribeFromNewsletter(token, controller.signal).then(
      (result) => {
        if (!controller.signal.aborted) setState(result.ok ? { kind: "done" } : { kind: "error", ...result });
      },
      () => {}, // aborted: the page went away or the call restarted
    );
    return () => controller.abort();
  }, [token, attempt]);

  return (
    <div className="mx-auto flex max-w-xl flex-col items-center px-6 py-24 text-center" aria-live="polite">
      {state.kind === "working" && (
        <>
          <Loader2 className="size-10 animate-spin text-fg-muted" aria-hidden="true" />
          <h1 className="mt-6 text-3xl font-semibold tracking-tight">Unsubscribing…</h1>
          <p className="mt-4 text-fg-muted">Removing your address from the newsletter.</p>
        </>
      )}
      {state.kind === "done" && (
        <>
          <span className="inline-flex size-14 items-center justify-center rounded-full bg-emerald-500/15 text-emerald-600 dark:text-emerald-400">
            <CircleCheck className="size-8" aria-hidden="true" />
          </span>
          <h1 className="mt-6 text-3xl font-semibold tracking-tight">You're unsubscribed</h1>
          <p className="mt-4 text-fg-muted">
            You won't get the newsletter any more. Changed your mind? Subscribe again from the blog.
          </p>
        </>
      )}
      {state.kind === "error" && (
        <>
          <span className="inline-flex size-14 items-center justify-center rounded-full bg-red-500/10 text-red-600 dark:text-red-400">
            <CircleAlert className="size-8" aria-hidden="true" />
          </span>
          <h1 className="mt-6 text-3xl font-semibold tracking-tight">We couldn't unsubscribe you</h1>
          <p className="mt-4 text-red-600 dark:text-red-400" role="alert">
            {state.message}
          </p>
          {state.retryable && (
            <button
              type="button"
              className={buttonClass("primary", "md", "mt-6")}
              onClick={() => setAttempt((n) => n + 1)}
            >
              Try again
            </button>
          )}
        </>
      )}
      <Link to="/blog" className={buttonClass("secondary", "md", "mt-8")}>
        Back to the blog
      </Link>
    </div>
  );
}
