import { AlertCircle, Inbox, Loader2, RotateCw } from "lucide-react";
import { buttonClass } from "../../components/button";

export const DASHBOARD_LOADING = "Loading your dashboard...";

/** Spec section 2: 'Loading your dashboard...'. */
export function DashboardLoading() {
  return (
    <div className="grid min-h-[40vh] place-items-center" role="status">
      <p className="flex items-center gap-3 text-fg-muted">
        <Loader2 className="size-5 animate-spin" aria-hidden="true" />
        {DASHBOARD_LOADING}
      </p>
    </div>
  );
}

/** Spec section 2: 'Something went wrong', the reason, and 'Try Again'. */
export function DashboardError({
  message,
  retrying,
  onRetry,
}: {
  message: string;
  retrying: boolean;
  onRetry: () => void;
}) {
  return (
    <div className="mx-auto max-w-md py-16 text-center" role="alert">
      <span className="mx-auto grid size-12 place-items-center rounded-full bg-red-100 text-red-700 dark:bg-red-950/60 dark:text-red-300">
        <AlertCircle className="size-6" aria-hidden="true" />
      </span>
      <h2 className="mt-4 text-lg font-semibold">Something went wrong</h2>
      <p className="mt-2 text-sm text-fg-muted">{message}</p>
      <button type="button" onClick={onRetry} disabled={retrying} className={buttonClass("primary", "md", "mt-6")}>
        <RotateCw className={`size-4 ${retrying ? "animate-spin" : ""}`} aria-hidden="true" />
        Try Again
      </button>
    </div>
  );
}

/** Spec section 2: the server answered without data. */
export function DashboardEmpty() {
  return (
    <div className="py-16 text-center">
      <Inbox className="mx-auto size-10 text-fg-muted" aria-hidden="true" />
      <p className="mt-4 font-medium">No data available</p>
    </div>
  );
}
