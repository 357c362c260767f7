import { LayoutDashboard, LogOut } from "lucide-react";
import { Link, useNavigate } from "react-router";
import { buttonClass } from "../../components/button";
import type { AuthUser } from "../../lib/auth";
import { UserAvatar } from "./user-avatar";
import { UserMenu } from "./user-menu";

/** The signed-in end of the top bar (user menu) or of the mobile menu (name, Dashboard, Logout). */
export default function SignedInAccount({
  user,
  logout,
  variant,
  onNavigate,
}: {
  user: AuthUser;
  logout: () => Promise<void>;
  variant: "bar" | "panel";
  onNavigate?: () => void;
}) {
  const navigate = useNavigate();
  if (variant === "bar") return <UserMenu user={user} onLogout={logout} />;

  async function signOut() {
    onNavigate?.();
    await logout();
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
    </div>
  );
}
