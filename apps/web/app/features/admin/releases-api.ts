/**
 * The console's Releases tab (issue 36): releases with their artifacts and download counts, yank and promote, the
 * download switch per platform, and operator tokens (the secret is shown once). Every change goes through
 * usePortalMutation (decision 0055); the server audits each one.
 */
import {
  type OperatorTokenCreatedAnswerSchema,
  type OperatorTokenSchema,
  type PlatformSwitchSchema,
  RELEASE_PATHS,
  type ReleaseChannel,
  type ReleaseListItemSchema,
  type ReleasePlatform,
  releasePath,
} from "@flotilla/contracts/releases";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { del, get, post, put } from "../../lib/http";
import { usePortalMutation } from "../portal/use-portal-mutation";

export type ReleaseItem = z.infer<typeof ReleaseListItemSchema>;
export type OperatorToken = z.infer<typeof OperatorTokenSchema>;
export type CreatedOperatorToken = z.infer<typeof OperatorTokenCreatedAnswerSchema>["data"];
export type PlatformSwitch = z.infer<typeof PlatformSwitchSchema>;

export const releasesKeys = {
  all: ["admin", "releases"] as const,
  list: ["admin", "releases", "list"] as const,
  platforms: ["admin", "releases", "platforms"] as const,
  tokens: ["admin", "releases", "tokens"] as const,
};

export function useReleases() {
  return useQuery({
    queryKey: releasesKeys.list,
    queryFn: ({ signal }) =>
      get<{ success: true; data: ReleaseItem[] }>(`${RELEASE_PATHS.adminReleases}?limit=200`, { signal }),
    select: (answer) => answer.data,
  });
}

export function usePlatformSwitches() {
  return useQuery({
    queryKey: releasesKeys.platforms,
    queryFn: ({ signal }) => get<{ success: true; data: PlatformSwitch[] }>(RELEASE_PATHS.adminPlatforms, { signal }),
    select: (answer) => answer.data,
  });
}

export function useOperatorTokens() {
  return useQuery({
    queryKey: releasesKeys.tokens,
    queryFn: ({ signal }) =>
      get<{ success: true; data: OperatorToken[] }>(RELEASE_PATHS.adminOperatorTokens, { signal }),
    select: (answer) => answer.data,
  });
}

export function useReleaseMutations() {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: releasesKeys.all });
  return {
    yank: usePortalMutation({
      mutationFn: (input: { id: string; reason?: string }) =>
        post(
          releasePath(RELEASE_PATHS.adminYank, { releaseId: input.id }),
          input.reason ? { reason: input.reason } : {},
        ),
      onSuccess: refresh,
    }),
    promote: usePortalMutation({
      mutationFn: (input: { id: string; channel: ReleaseChannel }) =>
        post(releasePath(RELEASE_PATHS.adminPromote, { releaseId: input.id }), { channel: input.channel }),
      onSuccess: refresh,
    }),
    setPlatform: usePortalMutation({
      mutationFn: (input: { platform: ReleasePlatform; open: boolean }) =>
        put(releasePath(RELEASE_PATHS.adminPlatform, { platform: input.platform }), { open: input.open }),
      onSuccess: refresh,
    }),
    createToken: usePortalMutation({
      mutationFn: (input: { name: string }) =>
        post<{ success: true; data: CreatedOperatorToken }>(RELEASE_PATHS.adminOperatorTokens, {
          name: input.name,
          scopes: ["releases:write"],
        }),
      onSuccess: refresh,
    }),
    revokeToken: usePortalMutation({
      mutationFn: (input: { id: string }) => del(releasePath(RELEASE_PATHS.adminOperatorToken, { tokenId: input.id })),
      onSuccess: refresh,
    }),
  };
}
