/**
 * The console's Beta testers tab (issue 36, decision 0062): waves with their funnel, the signups one may admit, and a
 * wave's invitations. Every change goes through usePortalMutation (decision 0055); the server audits each one.
 */
import type { BetaCandidateSchema, BetaInvitation, BetaWave } from "@flotilla/contracts/beta";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { get, post } from "../../lib/http";
import { usePortalMutation } from "../portal/use-portal-mutation";

export type BetaCandidate = z.infer<typeof BetaCandidateSchema>;

export const betaKeys = {
  all: ["admin", "beta"] as const,
  waves: ["admin", "beta", "waves"] as const,
  candidates: (filter: Record<string, string>) => ["admin", "beta", "candidates", filter] as const,
  invitations: (waveId: string) => ["admin", "beta", "invitations", waveId] as const,
};

export function useBetaWaves() {
  return useQuery({
    queryKey: betaKeys.waves,
    queryFn: ({ signal }) => get<{ success: true; data: BetaWave[] }>("/api/admin/beta/waves", { signal }),
    select: (answer) => answer.data,
  });
}

export function useBetaCandidates(filter: Record<string, string>) {
  const query = new URLSearchParams(Object.entries(filter).filter(([, value]) => value !== "")).toString();
  return useQuery({
    queryKey: betaKeys.candidates(filter),
    queryFn: ({ signal }) =>
      get<{ success: true; data: BetaCandidate[] }>(`/api/admin/beta/candidates${query ? `?${query}` : ""}`, {
        signal,
      }),
    select: (answer) => answer.data,
  });
}

export function useBetaInvitations(waveId: string | null) {
  return useQuery({
    queryKey: betaKeys.invitations(waveId ?? ""),
    enabled: waveId !== null,
    queryFn: ({ signal }) =>
      get<{ success: true; data: BetaInvitation[] }>(`/api/admin/beta/waves/${waveId}/invitations`, { signal }),
    select: (answer) => answer.data,
  });
}

export function useBetaMutations() {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: betaKeys.all });
  return {
    createWave: usePortalMutation({
      mutationFn: (wave: { name: string; date: string }) =>
        post<{ success: true; data: BetaWave }>("/api/admin/beta/waves", wave),
      onSuccess: refresh,
    }),
    admit: usePortalMutation({
      mutationFn: ({ waveId, signupIds }: { waveId: string; signupIds: string[] }) =>
        post<{ success: true; data: { admitted: number; already_invited: number; not_found: number } }>(
          `/api/admin/beta/waves/${waveId}/admit`,
          { signup_ids: signupIds },
        ),
      onSuccess: refresh,
    }),
    resend: usePortalMutation({
      mutationFn: (invitationId: string) => post(`/api/admin/beta/invitations/${invitationId}/resend`, undefined),
      onSuccess: refresh,
    }),
    withdraw: usePortalMutation({
      mutationFn: (invitationId: string) => post(`/api/admin/beta/invitations/${invitationId}/withdraw`, {}),
      onSuccess: refresh,
    }),
  };
}
