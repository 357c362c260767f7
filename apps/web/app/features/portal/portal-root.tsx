/**
 * The root of every portal page (the customer dashboard and the operator console; decision 0055). It owns the
 * portal's session (network, server, signed-in) and its query client, and it decides what a person may still see:
 * once the session has ended, nothing of the page behind stays on screen — the "session ended" page replaces it,
 * dialogs included, with "Sign in again" back to this very page.
 */
import { QueryClientProvider } from "@tanstack/react-query";
import { createContext, type ReactNode, useContext, useEffect, useState, useSyncExternalStore } from "react";
import { useAuth } from "../../lib/auth";
import { get } from "../../lib/http";
import { createPortalQueryClient } from "../../lib/query-client";
import { readStoredToken } from "../../lib/token-storage";
import { createPortalSession, type PortalSession, type PortalSessionState, sessionEndOf } from "./portal-session";
import { SessionEnded } from "./session-ended";

/** While the server cannot be reached, it is asked this often whether it is back (the console has no live stream). */
export const REACHABILITY_PROBE_MS = 5_000;
const PROBE_PATH = "/api/health";

const PortalContext = createContext<PortalSession | null>(null);

export function PortalRoot({ children }: { children: ReactNode }) {
  const [{ session, queryClient, token }] = useState(() => {
    const created = createPortalSession(typeof navigator === "undefined" || navigator.onLine !== false);
    return { session: created, queryClient: createPortalQueryClient(created), token: readStoredToken() };
  });
  const state = useSyncExternalStore(session.subscribe, session.get, session.get);
  const { user, forgetEndedSession, signingOutHere } = useAuth();
  // A session that ends before it was ever confirmed on this page is a stale sign-in (spec: the token is removed
  // and the visitor signs in): the page's own gate sends them to /login. Only one that held says "ended".
  const [confirmed, setConfirmed] = useState(false);
  if (user && !confirmed) setConfirmed(true);

  useEffect(() => {
    const online = () => session.setNetwork(true);
    const offline = () => session.setNetwork(false);
    window.addEventListener("online", online);
    window.addEventListener("offline", offline);
    return () => {
      window.removeEventListener("online", online);
      window.removeEventListener("offline", offline);
    };
  }, [session]);

  useEffect(() => {
    if (state.reachability !== "unreachable") return;
    const timer = setInterval(() => void probeServer(session), REACHABILITY_PROBE_MS);
    return () => clearInterval(timer);
  }, [state.reachability, session]);

  // Signing out everywhere from this tab ends this session too: that is the person's doing, not news to them.
  const [endedByThisTab, setEndedByThisTab] = useState(false);
  if (state.ended && signingOutHere && !endedByThisTab) setEndedByThisTab(true);
  const ended = state.ended !== null && confirmed && !signingOutHere && !endedByThisTab;
  useEffect(() => {
    if (ended) forgetEndedSession(token);
  }, [ended, forgetEndedSession, token]);

  if (state.ended && ended) return <SessionEnded reason={state.ended.reason} />;
  return (
    <PortalContext.Provider value={session}>
      <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
    </PortalContext.Provider>
  );
}

/** The portal's session, for screens that show it (the connection badge and notice) or report to it (the stream). */
export function usePortalSession(): { session: PortalSession; state: PortalSessionState } {
  const session = useContext(PortalContext);
  if (!session) throw new Error("usePortalSession must be used within a PortalRoot");
  const state = useSyncExternalStore(session.subscribe, session.get, session.get);
  return { session, state };
}

/**
 * Asks the server's health endpoint whether it answers, and tells the session. Used while it is unreachable, and when
 * the live stream alone fails: a stream a proxy refuses is not a server that is down.
 */
export async function probeServer(session: PortalSession): Promise<void> {
  try {
    const response = await fetch(PROBE_PATH, { cache: "no-store" });
    session.noteOutcome(response.status >= 502 && response.status <= 504 ? "unreachable" : "answered");
  } catch {
    session.noteOutcome("unreachable");
  }
}

/**
 * The live stream said the session ended: ask the server why (a 401 names its reason) and end it here. An answer
 * that the session is still good keeps it (the stream's notice was about another session of this browser).
 */
export async function confirmSessionEnded(session: PortalSession): Promise<void> {
  if (!readStoredToken()) return; // signed out in this tab: the page is already leaving
  try {
    await get("/api/auth/validate");
  } catch (error) {
    const ended = sessionEndOf(error);
    if (ended) session.end(ended.reason);
  }
}
