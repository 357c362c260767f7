import { MESSAGES } from "@flotilla/contracts/messages";
import { DEFAULT_RETURN_PATH, safeReturnPath } from "@flotilla/contracts/return-path";
import { ERROR_REDIRECT_MS, POST_AUTH_REDIRECT_MS } from "@flotilla/contracts/timings";
import { CheckCircle2, Loader2, XCircle } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { buttonClass } from "../../components/button";
import { useAuth } from "../../lib/auth";
import { serverErrorMessage } from "../../lib/http";
import { adoptAddressToken, exchangeCode } from "./api";
import { readCallbackInput } from "./callback-input";

type Outcome = { status: "loading" } | { status: "success"; target: string } | { status: "error"; message: string };

/** /auth/callback and everything beneath it (spec section 4). */
export function AuthCallbackPage() {
  const { pathname, search } = useLocation();
  const navigate = useNavigate();
  const { login } = useAuth();
  const [outcome, setOutcome] = useState<Outcome>({ status: "loading" });
  // A code and its state are single use: never exchange twice (React may run effects twice in development).
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const input = readCallbackInput(pathname, search);

    async function run(): Promise<Outcome> {
      switch (input.kind) {
        case "error":
          return { status: "error", message: MESSAGES.callbackError(input.error) };
        case "token": {
          try {
            const user = await adoptAddressToken(input.token);
            if (!user) return { status: "error", message: MESSAGES.tokenValidationFailed };
            login(input.token, user);
            return { status: "success", target: DEFAULT_RETURN_PATH };
          } catch {
            return { status: "error", message: MESSAGES.tokenValidationFailed };
          }
        }
        case "code": {
          try {
            const data = await exchangeCode(input);
            login(data.token, data.customer);
            return { status: "success", target: safeReturnPath(data.redirectTo) };
          } catch (error) {
            return { status: "error", message: serverErrorMessage(error, MESSAGES.authFailed) };
          }
        }
        case "path-state":
          // Spec: an encoded state in the path leads to the dashboard without signing in here.
          navigate(DEFAULT_RETURN_PATH, { replace: true });
          return { status: "loading" };
        case "none":
          return { status: "error", message: MESSAGES.noAuthData };
      }
    }
    void run().then(setOutcome);
  }, [pathname, search, login, navigate]);

  useEffect(() => {
    if (outcome.status === "loading") return;
    const timer = setTimeout(
      () =>
        outcome.status === "success"
          ? navigate(outcome.target, { replace: true })
          : navigate("/login", { replace: true }),
      outcome.status === "success" ? POST_AUTH_REDIRECT_MS : ERROR_REDIRECT_MS,
    );
    return () => clearTimeout(timer);
  }, [outcome, navigate]);

  return (
    <div className="grid min-h-[60vh] place-items-center px-6 py-16">
      <div
        className="w-full max-w-md rounded-2xl border border-border bg-bg-elevated p-8 text-center shadow-sm"
        role={outcome.status === "error" ? "alert" : "status"}
        aria-live="polite"
      >
        {outcome.status === "loading" && (
          <>
            <Loader2 className="mx-auto size-10 animate-spin text-brand" aria-hidden="true" />
            <h1 className="mt-4 text-xl font-semibold">Authenticating...</h1>
            <p className="mt-2 text-sm text-fg-muted">Completing your sign-in.</p>
          </>
        )}
        {outcome.status === "success" && (
          <>
            <CheckCircle2 className="mx-auto size-10 text-emerald-500" aria-hidden="true" />
            <h1 className="mt-4 text-xl font-semibold">Welcome!</h1>
            <p className="mt-2 text-sm text-fg-muted">You're signed in. Taking you to your dashboard…</p>
          </>
        )}
        {outcome.status === "error" && (
          <>
            <XCircle className="mx-auto size-10 text-red-500" aria-hidden="true" />
            <h1 className="mt-4 text-xl font-semibold">Authentication Failed</h1>
            <p className="mt-3 rounded-lg border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950/60 dark:text-red-200">
              {outcome.message}
            </p>
            <button
              type="button"
              onClick={() => navigate("/login", { replace: true })}
              className={buttonClass("primary", "md", "mt-6")}
            >
              Return to Login
            </button>
            <p className="mt-3 text-xs text-fg-muted">You will be redirected to the login page in a few seconds.</p>
          </>
        )}
      </div>
    </div>
  );
}
