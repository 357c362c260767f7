/**
 * What the portal (the customer dashboard and the operator console) knows about its link to the service, in one
 * place (decision 0055): whether the network is there, whether the server answers, and whether the session still
 * holds. Every screen reads it from here; nothing keeps its own copy.
 */
import { SESSION_END_REASONS, type SessionEndReason } from "@flotilla/contracts/session-end";
import { HttpError, OfflineError } from "../../lib/http";

/** online: answers arrive; offline: the browser has no network; unreachable: the network is up, the server is not. */
export type Reachability = "online" | "offline" | "unreachable";

export interface PortalSessionState {
  reachability: Reachability;
  /** Set once the session stopped answering (a 401, or the live stream's signed-out); null while it holds. */
  ended: { reason: SessionEndReason | null } | null;
}

export interface PortalSession {
  get(): PortalSessionState;
  subscribe(listener: () => void): () => void;
  /** The session is over; the first reason known wins (a later, vaguer 401 does not overwrite it). */
  end(reason: SessionEndReason | null): void;
  /** The browser's online/offline events. */
  setNetwork(online: boolean): void;
  /** What a request or the live stream just found: an answer came back (any status), or nothing did. */
  noteOutcome(outcome: "answered" | "unreachable"): void;
}

export function createPortalSession(initiallyOnline = true): PortalSession {
  let state: PortalSessionState = { reachability: initiallyOnline ? "online" : "offline", ended: null };
  const listeners = new Set<() => void>();
  const set = (next: PortalSessionState) => {
    if (next.reachability === state.reachability && next.ended === state.ended) return;
    state = next;
    for (const listener of listeners) listener();
  };
  return {
    get: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    end(reason) {
      if (state.ended && (state.ended.reason !== null || reason === null)) return;
      set({ ...state, ended: { reason } });
    },
    setNetwork(online) {
      set({ ...state, reachability: online ? "online" : "offline" });
    },
    noteOutcome(outcome) {
      // Offline is the browser's word: only its "online" event ends it.
      if (state.reachability === "offline") return;
      set({ ...state, reachability: outcome === "answered" ? "online" : "unreachable" });
    },
  };
}

/** A 401 from the service: the session is over. Its reason, when the body names a known one. */
export function sessionEndOf(error: unknown): { reason: SessionEndReason | null } | null {
  if (!(error instanceof HttpError) || error.status !== 401) return null;
  const reason = (error.body as { reason?: unknown } | null)?.reason;
  return { reason: SESSION_END_REASONS.find((known) => known === reason) ?? null };
}

/** Whether a failure means no answer came back at all (as opposed to an answer that said no). */
export function isUnreachable(error: unknown): boolean {
  if (error instanceof OfflineError) return false;
  if (error instanceof HttpError) return error.status === 502 || error.status === 503 || error.status === 504;
  if (error instanceof DOMException && error.name === "AbortError") return false;
  return error instanceof Error; // fetch's TypeError, or the client's timeout
}
