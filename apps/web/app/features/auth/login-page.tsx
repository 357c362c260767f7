import { BRAND } from "@flotilla/contracts/brand";
import { MESSAGES } from "@flotilla/contracts/messages";
import { safeReturnPath } from "@flotilla/contracts/return-path";
import { AlertCircle, Check, Loader2 } from "lucide-react";
import { useEffect, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { buttonClass } from "../../components/button";
import { useAuth } from "../../lib/auth";
import { serverErrorMessage } from "../../lib/http";
import { consumeSignedOutEverywhere } from "../../lib/token-storage";
import { requestSignInUrl } from "./api";

/** Spec section 2: what the dashboard offers, listed beside the sign-in button. */
export const DASHBOARD_BENEFITS = [
  "Manage licenses and subscriptions",
  "Usage analytics",
  "Download invoices and billing history",
  "Transfer licenses between machines",
  "Upgrade or downgrade your plan",
] as const;

export const CHECKING_MESSAGE = "Checking authentication status...";

export function LoginPage() {
  const [params] = useSearchParams();
  const redirectTo = safeReturnPath(params.get("redirect"));
  // Said once, however this tab got here (the address, or the note the sign-out left).
  const [signedOutEverywhere] = useState(
    () => consumeSignedOutEverywhere() || params.get("signed_out") === "everywhere",
  );
  const { user, loading } = useAuth();
  const navigate = useNavigate();
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!loading && user) navigate(redirectTo, { replace: true });
  }, [loading, user, navigate, redirectTo]);

  async function continueWithGoogle() {
    setStarting(true);
    setError(null);
    try {
      const authUrl = await requestSignInUrl(redirectTo);
      window.location.assign(authUrl);
    } catch (failure) {
      const fallback =
        failure instanceof Error && failure.message === MESSAGES.noAuthUrl ? MESSAGES.noAuthUrl : MESSAGES.authFailed;
      setError(serverErrorMessage(failure, fallback));
      setStarting(false);
    }
  }

  if (loading || user) {
    return (
      <div className="grid min-h-[60vh] place-items-center px-6" role="status" aria-live="polite">
        <p className="flex items-center gap-3 text-fg-muted">
          <Loader2 className="size-5 animate-spin" aria-hidden="true" />
          {CHECKING_MESSAGE}
        </p>
      </div>
    );
  }

  return (
    <div className="mx-auto grid max-w-5xl gap-10 px-4 py-16 sm:px-6 md:grid-cols-2 md:py-24 lg:px-8">
      <section aria-labelledby="login-title" className="rounded-2xl border border-border bg-bg-elevated p-8 shadow-sm">
        <h1 id="login-title" className="text-2xl font-semibold tracking-tight">
          Sign in to {BRAND.name}
        </h1>
        <p className="mt-2 text-sm text-fg-muted">
          Use your Google account to reach your customer dashboard. No password to remember.
        </p>
        {signedOutEverywhere && (
          <p
            role="status"
            className="mt-6 rounded-lg border border-border bg-bg-subtle px-3 py-2.5 text-sm text-fg"
            data-testid="signed-out-everywhere"
          >
            You were signed out everywhere: every browser and device this account was signed in on.
          </p>
        )}
        {error && (
          <div
            role="alert"
            className="mt-6 flex items-start gap-2 rounded-lg border border-red-300 bg-red-50 px-3 py-2.5 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/60 dark:text-red-200"
          >
            <AlertCircle className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
            <span>{error}</span>
          </div>
        )}
        <button
          type="button"
          onClick={continueWithGoogle}
          disabled={starting}
          aria-busy={starting}
          className={buttonClass("secondary", "lg", "mt-6 w-full")}
        >
          {starting ? <Loader2 className="size-5 animate-spin" aria-hidden="true" /> : <GoogleMark />}
          {starting ? "Redirecting to Google..." : "Continue with Google"}
        </button>
        <p className="mt-6 text-xs leading-relaxed text-fg-muted">
          By continuing you agree to our{" "}
          <Link to="/terms" className="font-medium text-fg underline underline-offset-2">
            Terms of Service
          </Link>{" "}
          and{" "}
          <Link to="/privacy" className="font-medium text-fg underline underline-offset-2">
            Privacy Policy
          </Link>
          .
        </p>
      </section>
      <section aria-labelledby="benefits-title" className="self-center">
        <h2 id="benefits-title" className="text-lg font-semibold">
          Your dashboard lets you
        </h2>
        <ul className="mt-4 space-y-3">
          {DASHBOARD_BENEFITS.map((benefit) => (
            <li key={benefit} className="flex items-start gap-3 text-fg-muted">
              <span className="mt-0.5 grid size-5 shrink-0 place-items-center rounded-full bg-emerald-500/15 text-emerald-600 dark:text-emerald-400">
                <Check className="size-3.5" aria-hidden="true" />
              </span>
              {benefit}
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}

function GoogleMark() {
  return (
    <svg viewBox="0 0 24 24" className="size-5" aria-hidden="true">
      <path
        fill="#4285F4"
        d="M22.56 12.25c0-.78-.07-1.53-.2-2.25H12v4.26h5.92a5.06 5.06 0 0 1-2.2 3.32v2.77h3.57c2.08-1.92 3.27-4.74 3.27-8.1z"
      />
      <path
        fill="#34A853"
        d="M12 23c2.97 0 5.46-.98 7.28-2.66l-3.57-2.77c-.98.66-2.23 1.06-3.71 1.06-2.86 0-5.29-1.93-6.16-4.53H2.18v2.84A11 11 0 0 0 12 23z"
      />
      <path
        fill="#FBBC05"
        d="M5.84 14.1A6.6 6.6 0 0 1 5.5 12c0-.73.13-1.44.34-2.1V7.06H2.18A11 11 0 0 0 1 12c0 1.77.43 3.45 1.18 4.94l3.66-2.84z"
      />
      <path
        fill="#EA4335"
        d="M12 5.38c1.62 0 3.06.56 4.21 1.64l3.15-3.15C17.45 2.09 14.97 1 12 1A11 11 0 0 0 2.18 7.06l3.66 2.84C6.71 7.31 9.14 5.38 12 5.38z"
      />
    </svg>
  );
}
