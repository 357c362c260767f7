/**
 * The console's calls for distribution (issue 36): releases with their download counts, yank and promote, operator
 * tokens (the secret shown once), and the download switch per platform. Shapes come from the contracts (types only:
 * no schema code reaches the console's chunk); every mutating button goes through usePortalMutation (decision 0055).
 */
import type { OperatorScope, Release, ReleaseChannel, ReleasePlatform } from "@flotilla/contracts/releases";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { del, get, post, put } from "../../lib/http";
import { usePortalMutation } from "../portal/use-portal-mutation";

export type { Release, ReleaseChannel, ReleasePlatform };

export interface ReleaseListItem extends Release {
  downloads: { total: number; by_platform: Record<ReleasePlatform, number> };
}

export interface OperatorToken {
  id: string;
  name: string;
  scopes: OperatorScope[];
  hint: string;
  created_at: string;
  created_by: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface PlatformSwitch {
  platform: ReleasePlatform;
  open: boolean;
  changed_at: string | null;
  changed_by: string | null;
}

export const releasesQueryKey = ["admin", "releases"] as const;
export const operatorTokensQueryKey = ["admin", "operator-tokens"] as const;
export const platformsQueryKey = ["admin", "download-platforms"] as const;

export function useReleases() {
  return useQuery({
    queryKey: releasesQueryKey,
    queryFn: ({ signal }) =>
      get<{ success: true; data: ReleaseListItem[] }>("/api/admin/releases?limit=100", { signal }),
    select: (answer) => answer.data,
  });
}

export function useOperatorTokens() {
  return useQuery({
    queryKey: operatorTokensQueryKey,
    queryFn: ({ signal }) => get<{ success: true; data: OperatorToken[] }>("/api/admin/operator-tokens", { signal }),
    select: (answer) => answer.data,
  });
}

export function usePlatformSwitches() {
  return useQuery({
    queryKey: platformsQueryKey,
    queryFn: ({ signal }) =>
      get<{ success: true; data: PlatformSwitch[] }>("/api/admin/downloads/platforms", { signal }),
    select: (answer) => answer.data,
  });
}

const releasePath = (id: string, action: "yank" | "promote") =>
  `/api/admin/releases/${encodeURIComponent(id)}/${action}`;

export function useReleaseMutations() {
  const queryClient = useQueryClient();
  const refreshReleases = () => queryClient.invalidateQueries({ queryKey: releasesQueryKey });
  const refreshTokens = () => queryClient.invalidateQueries({ queryKey: operatorTokensQueryKey });
  return {
    yank: usePortalMutation({
      mutationFn: ({ id, reason }: { id: string; reason: string }) =>
        post<{ success: true; data: Release }>(releasePath(id, "yank"), reason ? { reason } : {}),
      onSuccess: refreshReleases,
    }),
    promote: usePortalMutation({
      mutationFn: ({ id, channel }: { id: string; channel: ReleaseChannel }) =>
        post<{ success: true; data: Release }>(releasePath(id, "promote"), { channel }),
      onSuccess: refreshReleases,
    }),
    createToken: usePortalMutation({
      mutationFn: (name: string) =>
        post<{ success: true; data: OperatorToken & { token: string } }>("/api/admin/operator-tokens", { name }),
      onSuccess: refreshTokens,
    }),
    revokeToken: usePortalMutation({
      mutationFn: (id: string) => del(`/api/admin/operator-tokens/${encodeURIComponent(id)}`),
      onSuccess: refreshTokens,
    }),
    setPlatform: usePortalMutation({
      mutationFn: ({ platform, open }: { platform: ReleasePlatform; open: boolean }) =>
        put<{ success: true; data: PlatformSwitch[] }>(
          `/api/admin/downloads/platforms/${encodeURIComponent(platform)}`,
          { open },
        ),
      onSuccess: (answer) => queryClient.setQueryData(platformsQueryKey, answer),
    }),
  };
}
