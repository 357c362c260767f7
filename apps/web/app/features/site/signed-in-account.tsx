import { MESSAGES } from "@flotilla/contracts/messages";
import { LayoutDashboard, LogOut, MonitorX } from "lucide-react";
import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { buttonClass } from "../../components/button";
import type { AuthUser } from "../../lib/auth";
import { UserAvatar } from "./user-avatar";
import { UserMenu } from "./user-menu";

/** The signed-in end of the top bar (user menu) or of the mobile menu (name, Dashboard, Logout). */
export default function SignedInAccount({
  user,
  logout,
  logoutEverywhere,
  variant,
  onNavigate,
}: {
  user: AuthUser;
  logout: () => Promise<void>;
  logoutEverywhere: () => Promise<void>;
  variant: "bar" | "panel";
  onNavigate?: () => void;
}) {
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);
  if (variant === "bar") return <UserMenu user={user} onLogout={logout} onLogoutEverywhere={logoutEverywhere} />;

  async function signOut() {
    onNavigate?.();
    await logout();
    navigate("/login");
  }

  async function signOutEverywhere() {
    setError(null);
    try {
      await logoutEverywhere();
    } catch {
      setError(MESSAGES.signOutEverywhereFailed);
      return;
    }
    onNavigate?.();
    navigate("/login");
  }
  return (
    <div className="space-y-2">
      <div className="flex items-center gap-3 px-1">
        <UserAvatar src={user.avatar_url} />
        <span className="min-w-0">
          <span className="block truncate text-sm font-medium">{user.name}</span>
          <span className="block truncate text-xs text-fg-muted">{user.email}</span>
        </span>
      </div>
      <Link to="/dashboard" onClick={onNavigate} className={buttonClass("secondary", "sm", "w-full")}>
        <LayoutDashboard className="size-4" aria-hidden="true" />
        Dashboard
      </Link>
      <button type="button" onClick={signOut} className={buttonClass("ghost", "sm", "w-full")}>
        <LogOut className="size-4" aria-hidden="true" />
        Logout
      </button>
      <button type="button" onClick={signOutEverywhere} className={buttonClass("ghost", "sm", "w-full")}>
        <MonitorX className="size-4" aria-hidden="true" />
        Sign out everywhere
      </button>
      {error && (
        <p role="alert" className="text-center text-xs text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
    </div>
  );
}
