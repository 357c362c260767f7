import { MESSAGES } from "@flotilla/contracts/messages";
import { LayoutDashboard, LogOut, ShieldCheck } from "lucide-react";
import { Link } from "react-router";
import { buttonClass } from "../../components/button";
import type { AuthUser } from "../../lib/auth";
import { SignOutEverywhere } from "./sign-out-everywhere";
import { UserAvatar } from "./user-avatar";

/**
 * The signed-in foot of the mobile menu: name, Dashboard, Console (admins only), Logout, Sign out everywhere. The data-account-*
 * attributes are where a prerendered page's account island fills in the user and wires the buttons.
 */
export function SignedInPanel({
  user,
  error = null,
  onNavigate,
  onLogout,
  onLogoutEverywhere,
}: {
  user: AuthUser;
  error?: string | null;
  onNavigate?: () => void;
  onLogout?: () => void;
  onLogoutEverywhere?: () => void;
}) {
  return (
    <div className="space-y-2">
      <div className="flex items-center gap-3 px-1">
        <UserAvatar src={user.avatar_url} />
        <span className="min-w-0">
          <span className="block truncate text-sm font-medium" data-account-field="name">
            {user.name}
          </span>
          <span className="block truncate text-xs text-fg-muted" data-account-field="email">
            {user.email}
          </span>
        </span>
      </div>
      <Link to="/dashboard" onClick={onNavigate} className={buttonClass("secondary", "sm", "w-full")}>
        <LayoutDashboard className="size-4" aria-hidden="true" />
        Dashboard
      </Link>
      {user.is_admin && (
        <Link to="/admin" onClick={onNavigate} className={buttonClass("secondary", "sm", "w-full")} data-account-admin>
          <ShieldCheck className="size-4" aria-hidden="true" />
          Console
        </Link>
      )}
      <button
        type="button"
        onClick={onLogout}
        className={buttonClass("ghost", "sm", "w-full")}
        data-account-action="logout"
      >
        <LogOut className="size-4" aria-hidden="true" />
        Logout
      </button>
      <SignOutEverywhere itemClass={buttonClass("ghost", "sm", "w-full")} onConfirm={onLogoutEverywhere} />
      <p
        role="alert"
        className="text-center text-xs text-red-700 empty:hidden dark:text-red-300"
        data-account-error
        data-message={MESSAGES.signOutEverywhereFailed}
      >
        {error}
      </p>
    </div>
  );
}
