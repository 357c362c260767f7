import { lazy, Suspense } from "react";
import { Link } from "react-router";
import { buttonClass } from "../../components/button";
import { useAuth } from "../../lib/auth";

// Only signed-in visitors need the user menu: it arrives in its own chunk.
const SignedInAccount = lazy(() => import("./signed-in-account"));

/**
 * The right end of the top bar (and the foot of the mobile menu): Get Started → /login when signed out,
 * the user menu with Dashboard and Logout when signed in.
 */
export function AccountArea({ onNavigate, variant = "bar" }: { onNavigate?: () => void; variant?: "bar" | "panel" }) {
  const { user, logout, logoutEverywhere } = useAuth();
  if (!user) {
    return (
      <Link
        to="/login"
        className={buttonClass("primary", "sm", variant === "panel" ? "w-full" : "")}
        onClick={onNavigate}
      >
        Get Started
      </Link>
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
