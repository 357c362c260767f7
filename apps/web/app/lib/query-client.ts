/**
 * The portal's TanStack Query client. Imported only by the portal routes (dashboard, admin console):
 * public pages never load it.
 * The shared HTTP client already retries (3 attempts, backoff, never on a 4xx), so Query does not retry
 * on top of it, and data is refreshed on demand (Refresh button, after a change) rather than on focus.
 * Every answer tells the portal's session what it learned (decision 0055): a 401 ends the session on every screen
 * at once, a failure with no answer marks the server unreachable, any answer marks it reachable.
 */
import { MutationCache, QueryCache, QueryClient } from "@tanstack/react-query";
import { isUnreachable, type PortalSession, sessionEndOf } from "../features/portal/portal-session";

export function createPortalQueryClient(session?: PortalSession): QueryClient {
  const failed = (error: unknown) => {
    if (!session) return;
    const ended = sessionEndOf(error);
    if (ended) session.end(ended.reason);
    else session.noteOutcome(isUnreachable(error) ? "unreachable" : "answered");
  };
  const answered = () => session?.noteOutcome("answered");
  return new QueryClient({
    queryCache: new QueryCache({ onError: failed, onSuccess: answered }),
    mutationCache: new MutationCache({ onError: failed, onSuccess: answered }),
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
      // "always": a change made offline fails at once (OfflineError) instead of waiting, paused, to apply itself
      // when the network returns — nothing is replayed without the person asking.
      mutations: { retry: false, networkMode: "always" },
    },
  });
}
