/**
 * How the portal says whether it is connected (decision 0055), the same on the dashboard and in the console: a badge
 * (beside the dashboard's live indicator, or in the console's bar) and a notice under the header while changes
 * cannot reach the server. Offline is the browser's word; unreachable is what the last request found.
 */
import { CloudOff, WifiOff } from "lucide-react";
import { Banner } from "../../components/banner";
import { usePortalSession } from "./portal-root";
import type { Reachability } from "./portal-session";

export const CONNECTION_WORDS: Record<
  Exclude<Reachability, "online">,
  { badge: string; title: string; notice: string }
> = {
  offline: {
    badge: "Offline",
    title: "You're offline",
    notice:
      "Changes are paused until your connection returns. Nothing you try now is sent, and nothing is sent later by itself.",
  },
  unreachable: {
    badge: "Can't reach Flotilla",
    title: "Flotilla can't be reached",
    notice:
      "Changes are paused while the service doesn't answer. This page reconnects by itself; what you see may be out of date.",
  },
};

/** The badge's words when the portal is not connected, or null when it is (the caller shows its own live state). */
export function useConnectionProblem(): Exclude<Reachability, "online"> | null {
  const { state } = usePortalSession();
  return state.reachability === "online" ? null : state.reachability;
}

export function ConnectionBadge({ problem }: { problem: Exclude<Reachability, "online"> }) {
  const words = CONNECTION_WORDS[problem];
  const Icon = problem === "offline" ? WifiOff : CloudOff;
  return (
    <p
      role="status"
      title={words.title}
      data-connection={problem}
      className="inline-flex shrink-0 items-center gap-1.5 text-xs font-medium text-amber-700 dark:text-amber-300"
    >
      <Icon className="size-3.5" aria-hidden="true" />
      {words.badge}
    </p>
  );
}

/** The notice under the header while the portal is not connected; nothing when it is. */
export function ConnectionNotice() {
  const problem = useConnectionProblem();
  // A persistent live region: the notice is announced when it appears, not only when the page loads.
  return (
    <div aria-live="polite" data-testid="connection-notice">
      {problem && (
        <div className="mt-4">
          <Banner tone="warning" title={CONNECTION_WORDS[problem].title}>
            {CONNECTION_WORDS[problem].notice}
          </Banner>
        </div>
      )}
    </div>
  );
}
