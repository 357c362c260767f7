/**
 * /admin (client-only route, its own chunk): the operator's console. The server decides who is an admin
 * (GET /api/admin/me): signed-out visitors go to sign in and come back here; a signed-in customer who is not
 * an admin is told so. Nothing of this feature is imported by public pages or the customer dashboard.
 */
import { useQuery } from "@tanstack/react-query";
import { ShieldOff } from "lucide-react";
import { useEffect } from "react";
import { Link, useLocation, useNavigate } from "react-router";
import { buttonClass } from "../../components/button";
import { useAuth } from "../../lib/auth";
import { readStoredToken } from "../../lib/token-storage";
import { PortalRoot } from "../portal/portal-root";
import { AdminConsole } from "./admin-console";
import { adminErrorMessage, adminMeQuery, isStatus } from "./api";
import { ErrorNotice, Loading } from "./ui";

/** Sends the visitor to sign in, with this very address (a same-origin path) to come back to. */
function useSignInRedirect(active: boolean) {
  const navigate = useNavigate();
  const location = useLocation();
  const back = `${location.pathname}${location.search}`;
  useEffect(() => {
    if (active) navigate(`/login?redirect=${encodeURIComponent(back)}`, { replace: true });
  }, [active, back, navigate]);
}

export function AdminPage() {
  // The portal's root first: once a session ends on this page, it says so here instead of leaving for /login.
  return (
    <PortalRoot>
      <AdminAccountCheck />
    </PortalRoot>
  );
}

function AdminAccountCheck() {
  const { user, loading } = useAuth();
  const signedOut = !readStoredToken() || (!loading && !user);
  useSignInRedirect(signedOut);

  if (signedOut || loading) {
    return (
      <div className="mx-auto max-w-7xl px-4 py-10">
        <Loading label="Checking your account…" />
      </div>
    );
  }
  return <AdminGate email={user?.email ?? ""} />;
}

function AdminGate({ email }: { email: string }) {
  const me = useQuery(adminMeQuery);
  useSignInRedirect(me.isError && isStatus(me.error, 401));

  if (me.isPending || (me.isError && isStatus(me.error, 401))) {
    return (
      <div className="mx-auto max-w-7xl px-4 py-10">
        <Loading label="Checking your account…" />
      </div>
    );
  }
  if (me.isError && isStatus(me.error, 403)) return <NotAdmin email={email} />;
  if (me.isError) {
    return (
      <div className="mx-auto max-w-xl px-4 py-16">
        <h1 className="text-2xl font-semibold tracking-tight">Operator console</h1>
        <ErrorNotice message={adminErrorMessage(me.error)} onRetry={() => void me.refetch()} />
      </div>
    );
  }
  return <AdminConsole admin={me.data} />;
}

function NotAdmin({ email }: { email: string }) {
  return (
    <div className="mx-auto flex max-w-xl flex-col items-center px-6 py-24 text-center">
      <span className="inline-flex size-14 items-center justify-center rounded-full bg-amber-500/15 text-amber-700 dark:text-amber-300">
        <ShieldOff className="size-8" aria-hidden="true" />
      </span>
      <h1 className="mt-6 text-3xl font-semibold tracking-tight">Not an admin</h1>
      <p className="mt-4 text-fg-muted">
        You're signed in as <span className="font-medium text-fg">{email}</span>, which is not an admin account. The
        operator console is for the people who run the service; ask one of them to grant you the role.
      </p>
      <Link to="/dashboard" className={buttonClass("primary", "md", "mt-8")}>
        Go to your dashboard
      </Link>
    </div>
  );
}
