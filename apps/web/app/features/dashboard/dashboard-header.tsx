import { LogOut, RefreshCw } from "lucide-react";
import { buttonClass } from "../../components/button";
import { ConnectionBadge } from "../portal/connection-status";
import type { Reachability } from "../portal/portal-session";
import { UserAvatar } from "../site/user-avatar";
import type { LiveState } from "./live-updates";

interface HeaderCustomer {
  name: string;
  email: string;
  avatar_url: string | null;
}

interface DashboardHeaderProps {
  customer: HeaderCustomer | null;
  refreshing: boolean;
  /** Whether changes arrive by themselves (the event stream), or only on refresh. */
  live?: LiveState;
  /** No network, or no server: said instead of the live state (decision 0055). */
  connectionProblem?: Exclude<Reachability, "online"> | null;
  onRefresh: () => void;
  onLogout: () => void;
}

/** 'Customer Dashboard - Manage your licenses and account', refresh, the customer and logout. */
export function DashboardHeader({
  customer,
  refreshing,
  live,
  connectionProblem,
  onRefresh,
  onLogout,
}: DashboardHeaderProps) {
  return (
    <header className="flex flex-col gap-6 border-b border-border pb-6 md:flex-row md:items-center md:justify-between">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight sm:text-3xl">Customer Dashboard</h1>
        <p className="mt-1 text-sm text-fg-muted">Manage your licenses and account</p>
      </div>
      {/* Below md the person gets a row of their own (a 375 px screen has no room for a name beside Logout); from md
          up, one row: live state, refresh, the person, Logout. */}
      <div className="flex min-w-0 flex-wrap items-center gap-3 md:flex-nowrap">
        {customer && (
          <div className="flex w-full min-w-0 items-center gap-3 md:order-2 md:w-auto">
            <UserAvatar src={customer.avatar_url} size="lg" />
            <div className="min-w-0">
              <p className="truncate font-medium" title={customer.name}>
                {customer.name}
              </p>
              <p className="truncate text-sm text-fg-muted" title={customer.email}>
                {customer.email}
              </p>
            </div>
          </div>
        )}
        <div className="flex items-center gap-3 md:order-1">
          {connectionProblem ? <ConnectionBadge problem={connectionProblem} /> : live && <LiveIndicator state={live} />}
          <button
            type="button"
            onClick={onRefresh}
            disabled={refreshing}
            aria-label="Refresh dashboard"
            title="Refresh dashboard"
            className="inline-flex size-9 shrink-0 items-center justify-center rounded-lg border border-border bg-bg-elevated text-fg-muted transition-colors hover:bg-bg-subtle hover:text-fg disabled:cursor-not-allowed disabled:opacity-60"
          >
            <RefreshCw className={`size-4 ${refreshing ? "animate-spin" : ""}`} aria-hidden="true" />
          </button>
        </div>
        <button
          type="button"
          onClick={onLogout}
          className={buttonClass("secondary", "sm", "ml-auto shrink-0 md:order-3 md:ml-2")}
        >
          <LogOut className="size-4" aria-hidden="true" />
          Logout
        </button>
      </div>
    </header>
  );
}

const LIVE_TEXT: Record<LiveState, { label: string; title: string; dot: string }> = {
  live: { label: "Live", title: "Changes appear as they happen", dot: "bg-emerald-500" },
  connecting: { label: "Connecting…", title: "Connecting to live updates", dot: "bg-fg-muted" },
  paused: {
    label: "Live updates paused",
    title: "Changes appear when you refresh; live updates resume by themselves",
    dot: "bg-amber-500",
  },
};

/** Says whether the dashboard updates itself; a polite live region, so a pause is announced once. */
function LiveIndicator({ state }: { state: LiveState }) {
  const text = LIVE_TEXT[state];
  return (
    <p
      role="status"
      title={text.title}
      data-live-state={state}
      className="inline-flex shrink-0 items-center gap-1.5 text-xs font-medium text-fg-muted"
    >
      <span
        className={`size-2 rounded-full ${text.dot} ${state === "live" ? "animate-pulse" : ""}`}
        aria-hidden="true"
      />
      {text.label}
    </p>
  );
}
