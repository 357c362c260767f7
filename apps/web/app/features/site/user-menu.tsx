import { MESSAGES } from "@flotilla/contracts/messages";
import { ChevronDown, LayoutDashboard, LogOut, ShieldCheck } from "lucide-react";
import { useCallback, useId, useRef, useState } from "react";
import { Link, useNavigate } from "react-router";
import type { AuthUser } from "../../lib/auth";
import { SIGNED_OUT_EVERYWHERE_PATH, SignOutEverywhere } from "./sign-out-everywhere";
import { useDismiss } from "./use-dismiss";
import { UserAvatar } from "./user-avatar";

/**
 * The signed-in user's menu in the top bar: avatar (or icon) and name, with Dashboard, Console (admins only),
 * Logout and Sign out everywhere (every session of the account, on every device).
 */
export function UserMenu({
  user,
  onLogout,
  onLogoutEverywhere,
}: {
  user: AuthUser;
  onLogout: () => Promise<void>;
  onLogoutEverywhere: () => Promise<void>;
}) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const panelId = useId();
  const container = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const close = useCallback(() => setOpen(false), []);
  const navigate = useNavigate();
  useDismiss(open, close, container, trigger);

  async function logout() {
    close();
    await onLogout();
    navigate("/login");
  }

  async function logoutEverywhere() {
    setError(null);
    try {
      await onLogoutEverywhere();
    } catch {
      setError(MESSAGES.signOutEverywhereFailed);
      return;
    }
    close();
    navigate(SIGNED_OUT_EVERYWHERE_PATH);
  }

  const itemClass =
    "flex w-full items-center gap-2 rounded-md px-2.5 py-2 text-left text-sm text-fg hover:bg-bg-subtle focus-visible:bg-bg-subtle";
  return (
    <div className="relative" ref={container} data-account-menu>
      <button
        ref={trigger}
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        aria-label={`Account menu for ${user.name}`}
        data-account-label="Account menu for"
        onClick={() => setOpen((value) => !value)}
        className="group inline-flex h-9 items-center gap-2 rounded-full border border-border bg-bg-elevated py-1 pl-1 pr-3 text-sm font-medium hover:bg-bg-subtle"
      >
        <UserAvatar src={user.avatar_url} />
        <span className="max-w-[10rem] truncate" data-account-field="name">
          {user.name}
        </span>
        <ChevronDown className="size-3.5 transition-transform group-aria-expanded:rotate-180" aria-hidden="true" />
      </button>
      <div
        id={panelId}
        hidden={!open}
        className="absolute right-0 top-full z-50 mt-2 w-60 rounded-xl border border-border bg-bg-elevated p-1.5 shadow-xl shadow-black/10"
      >
        <div className="border-b border-border px-2.5 pb-2 pt-1.5">
          <p className="truncate text-sm font-medium" data-account-field="name">
            {user.name}
          </p>
          <p className="truncate text-xs text-fg-muted" data-account-field="email">
            {user.email}
          </p>
        </div>
        <ul className="pt-1.5">
          <li>
            <Link to="/dashboard" onClick={close} className={itemClass}>
              <LayoutDashboard className="size-4 text-fg-muted" aria-hidden="true" />
              Dashboard
            </Link>
          </li>
          {user.is_admin && (
            <li data-account-admin>
              <Link to="/admin" onClick={close} className={itemClass}>
                <ShieldCheck className="size-4 text-fg-muted" aria-hidden="true" />
                Console
              </Link>
            </li>
          )}
          <li>
            <button type="button" onClick={logout} className={itemClass} data-account-action="logout">
              <LogOut className="size-4 text-fg-muted" aria-hidden="true" />
              Logout
            </button>
          </li>
          <li>
            <SignOutEverywhere itemClass={itemClass} onConfirm={logoutEverywhere} />
          </li>
        </ul>
        <p
          role="alert"
          className="px-2.5 pb-1.5 text-xs text-red-700 empty:hidden dark:text-red-300"
          data-account-error
          data-message={MESSAGES.signOutEverywhereFailed}
        >
          {error}
        </p>
      </div>
    </div>
  );
}
