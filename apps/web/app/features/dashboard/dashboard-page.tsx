/**
 * /dashboard (client-only route): signed-in customers only; without a token the visitor goes to /login.
 * The portal's TanStack Query client is created here, so it ships in this route's chunk and public
 * pages never load it.
 */
import { QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useNavigate } from "react-router";
import { useAuth } from "../../lib/auth";
import { createPortalQueryClient } from "../../lib/query-client";
import { readStoredToken } from "../../lib/token-storage";
import { DashboardContent } from "./dashboard-content";
import { DashboardLoading } from "./dashboard-states";

export function DashboardPage() {
  const { user, loading } = useAuth();
  const navigate = useNavigate();
  const [queryClient] = useState(createPortalQueryClient);
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
  return (
    <QueryClientProvider client={queryClient}>
      <DashboardContent />
    </QueryClientProvider>
  );
}
