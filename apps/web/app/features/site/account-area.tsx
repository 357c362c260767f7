import { lazy, Suspense } from "react";
import { Link } from "react-router";
import { buttonClass } from "../../components/button";
import { type AuthUser, useAuth } from "../../lib/auth";
import { SignedInPanel } from "./signed-in-panel";
import { UserMenu } from "./user-menu";

// Only signed-in visitors need the user menu: in the portal it arrives in its own chunk.
const SignedInAccount = lazy(() => import("./signed-in-account"));

/** True while React renders a page at build time (prerendering); never in a browser. */
const PRERENDERING = typeof document === "undefined";

/**
 * The signed-in markup a prerendered page's account island fills in (app/islands/account.ts). It carries every
 * item, the admin's Console link included; the island removes what the user may not see.
 */
const TEMPLATE_USER: AuthUser = { id: "", email: "", name: "", avatar_url: null, is_admin: true };
const noop = async () => undefined;

/**
 * The right end of the top bar (and the foot of the mobile menu): Get Started → /login when signed out,
 * the user menu with Dashboard (and Console, for an admin) and Logout when signed in. A prerendered page is built signed out; its slot also
 * carries the signed-in markup in a <template>, which the account island uses once the stored token checks out.
 */
export function AccountArea({ onNavigate, variant = "bar" }: { onNavigate?: () => void; variant?: "bar" | "panel" }) {
  const { user, logout, logoutEverywhere } = useAuth();
  if (!user) {
    return (
      <div data-account-slot={variant}>
        <Link
          to="/login"
          className={buttonClass("primary", "sm", variant === "panel" ? "w-full" : "")}
          onClick={onNavigate}
        >
          Get Started
        </Link>
        {PRERENDERING && (
          <template data-account-template>
            {variant === "bar" ? (
              <UserMenu user={TEMPLATE_USER} onLogout={noop} onLogoutEverywhere={noop} />
            ) : (
              <SignedInPanel user={TEMPLATE_USER} />
            )}
          </template>
        )}
      </div>
    );
  }
  return (
    <Suspense
      fallback={<span className="inline-block h-9 w-32 animate-pulse rounded-full bg-bg-subtle" aria-hidden="true" />}
    >
      <SignedInAccount
        user={user}
        logout={logout}
        logoutEverywhere={logoutEverywhere}
        variant={variant}
        onNavigate={onNavigate}
      />
    </Suspense>
  );
}
