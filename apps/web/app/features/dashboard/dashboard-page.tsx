/**
 * /dashboard (client-only route): signed-in customers only; without a token the visitor goes to /login.
 * The portal's root (its session and TanStack Query client) is created here, so it ships in this route's chunk
 * and public pages never load it.
 */
import { useEffect } from "react";
import { useNavigate } from "react-router";
import { useAuth } from "../../lib/auth";
import { readStoredToken } from "../../lib/token-storage";
import { PortalRoot } from "../portal/portal-root";
import { DashboardContent } from "./dashboard-content";
import { DashboardLoading } from "./dashboard-states";

export function DashboardPage() {
  // The portal's root first: once a session ends on this page, it says so here instead of leaving for /login.
  return (
    <PortalRoot>
      <DashboardGate />
    </PortalRoot>
  );
}

function DashboardGate() {
  const { user, loading } = useAuth();
  const navigate = useNavigate();
  const signedOut = !readStoredToken() || (!loading && !user);

  useEffect(() => {
    if (signedOut) navigate("/login", { replace: true });
  }, [signedOut, navigate]);

  // The dashboard loads while the stored token is being validated; a bad token sends the visitor to /login.
  if (signedOut) {
    return (
      <div className="px-4 py-10">
        <DashboardLoading />
      </div>
    );
  }
  return <DashboardContent />;
}
