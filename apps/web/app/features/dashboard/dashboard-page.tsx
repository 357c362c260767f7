import { Loader2, LogOut } from "lucide-react";
import { useEffect } from "react";
import { useNavigate } from "react-router";
import { buttonClass } from "../../components/button";
import { useAuth } from "../../lib/auth";
import { readStoredToken } from "../../lib/token-storage";
import { UserAvatar } from "../site/user-avatar";

export const DASHBOARD_LOADING = "Loading your dashboard...";

/** /dashboard: signed-in customers only; without a token the visitor goes to /login. */
export function DashboardPage() {
  const { user, loading, logout } = useAuth();
  const navigate = useNavigate();

  useEffect(() => {
    if (!readStoredToken() || (!loading && !user)) navigate("/login", { replace: true });
  }, [loading, user, navigate]);

  if (!user) {
    return (
      <div className="grid min-h-[60vh] place-items-center" role="status">
        <p className="flex items-center gap-3 text-fg-muted">
          <Loader2 className="size-5 animate-spin" aria-hidden="true" />
          {DASHBOARD_LOADING}
        </p>
      </div>
    );
  }

  async function signOut() {
    await logout();
    navigate("/login");
  }

  return (
    <div className="mx-auto max-w-7xl px-4 py-10 sm:px-6 lg:px-8">
      <header className="flex flex-wrap items-center justify-between gap-6 border-b border-border pb-6">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Customer Dashboard</h1>
          <p className="mt-1 text-sm text-fg-muted">Manage your licenses and account</p>
        </div>
        <div className="flex items-center gap-3">
          <UserAvatar src={user.avatar_url} size="lg" />
          <div className="min-w-0">
            <p className="truncate font-medium">{user.name}</p>
            <p className="truncate text-sm text-fg-muted">{user.email}</p>
          </div>
          <button type="button" onClick={signOut} className={buttonClass("secondary", "sm", "ml-2")}>
            <LogOut className="size-4" aria-hidden="true" />
            Logout
          </button>
        </div>
      </header>
    </div>
  );
}
