/**
 * The portal's TanStack Query client. Imported only by the portal routes (dashboard, admin console):
 * public pages never load it.
 * The shared HTTP client already retries (3 attempts, backoff, never on a 4xx), so Query does not retry
 * on top of it, and data is refreshed on demand (Refresh button, after a change) rather than on focus.
 */
import { QueryClient } from "@tanstack/react-query";

export function createPortalQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
      mutations: { retry: false },
    },
  });
}
