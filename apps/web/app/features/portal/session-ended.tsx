/**
 * What a person sees once their session has ended (decision 0055): what happened, in words that fit the reason the
 * server gave, and one way on — "Sign in again", back to the page they were on.
 */
import type { SessionEndReason } from "@flotilla/contracts/session-end";
import { LogIn, UserX } from "lucide-react";
import { useEffect, useRef } from "react";
import { Link, useLocation } from "react-router";
import { buttonClass } from "../../components/button";

const WORDS: Record<SessionEndReason | "unknown", { title: string; body: string }> = {
  expired: {
    title: "Your session has expired",
    body: "For your security, a session ends after a while. Sign in again to pick up where you left off.",
  },
  signed_out: {
    title: "You've been signed out",
    body: "This session was signed out, here or with “Sign out everywhere” on another device. Sign in again to continue.",
  },
  account_erased: {
    title: "Your account was erased",
    body:
      "At your request, we erased your Flotilla account with its licenses, devices and usage, and sent a confirmation " +
      "to your address. Signing in again with Google creates a new, empty account: nothing from before comes back.",
  },
  unknown: {
    title: "Your session has ended",
    body: "You're no longer signed in on this page. Sign in again to continue.",
  },
};

export function SessionEnded({ reason }: { reason: SessionEndReason | null }) {
  const location = useLocation();
  const heading = useRef<HTMLHeadingElement>(null);
  const words = WORDS[reason ?? "unknown"];
  const back = `${location.pathname}${location.search}`;
  const erased = reason === "account_erased";

  // The page changed under the person: move focus to what happened, so a screen reader reads it.
  useEffect(() => heading.current?.focus(), []);

  return (
    <div
      className="mx-auto flex max-w-xl flex-col items-center px-6 py-24 text-center"
      data-session-ended={reason ?? "unknown"}
    >
      <span className="inline-flex size-14 items-center justify-center rounded-full bg-bg-subtle text-fg-muted">
        {erased ? <UserX className="size-7" aria-hidden="true" /> : <LogIn className="size-7" aria-hidden="true" />}
      </span>
      <h1 ref={heading} tabIndex={-1} className="mt-6 text-3xl font-semibold tracking-tight outline-none">
        {words.title}
      </h1>
      <p className="mt-4 text-fg-muted">{words.body}</p>
      <div className="mt-8 flex flex-wrap justify-center gap-3">
        <Link to={`/login?redirect=${encodeURIComponent(back)}`} className={buttonClass("primary", "md")}>
          {erased ? "Sign in with a new account" : "Sign in again"}
        </Link>
        {erased && (
          <Link to="/privacy" className={buttonClass("secondary", "md")}>
            Privacy policy
          </Link>
        )}
      </div>
    </div>
  );
}
