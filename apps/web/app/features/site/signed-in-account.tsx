import { MESSAGES } from "@flotilla/contracts/messages";
import { useState } from "react";
import { useNavigate } from "react-router";
import type { AuthUser } from "../../lib/auth";
import { SIGNED_OUT_EVERYWHERE_PATH } from "./sign-out-everywhere";
import { SignedInPanel } from "./signed-in-panel";
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
    navigate(SIGNED_OUT_EVERYWHERE_PATH);
  }
  return (
    <SignedInPanel
      user={user}
      error={error}
      onNavigate={onNavigate}
      onLogout={signOut}
      onLogoutEverywhere={signOutEverywhere}
    />
  );
}
