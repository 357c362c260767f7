/**
 * The machine calls of one license (spec section 7): list, 30-day analytics, removal, revocation and restore. Each needs a
 * stored token ('Authentication required' otherwise); the shared client adds it as a bearer header.
 */
import type { MachineAnalytics, MachineList } from "@flotilla/contracts/licensing";
import { MESSAGES } from "@flotilla/contracts/messages";
import { ANALYTICS_WINDOW_DAYS } from "@flotilla/contracts/timings";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { del, get, HttpError, OfflineError, post, serverErrorMessage } from "../../lib/http";
import { readStoredToken } from "../../lib/token-storage";
import { usePortalMutation } from "../portal/use-portal-mutation";

interface Answer<T> {
  success: boolean;
  data?: T | null;
  message?: string;
  error?: string;
}

/** A failure whose message is meant for people (no token, or the server's own `error` in a 2xx body). */
export class DeviceRequestError extends Error {
  override readonly name = "DeviceRequestError";
}

function requireToken(): void {
  if (!readStoredToken()) throw new DeviceRequestError(MESSAGES.noTokenForMachine);
}

const machinesPath = (licenseKey: string) => `/api/license/machines/${encodeURIComponent(licenseKey)}`;

export const machineKeys = {
  all: (licenseKey: string) => ["license", licenseKey, "machines"] as const,
  list: (licenseKey: string) => [...machineKeys.all(licenseKey), "list"] as const,
  analytics: (licenseKey: string) => [...machineKeys.all(licenseKey), "analytics", ANALYTICS_WINDOW_DAYS] as const,
};

export async function fetchMachines(licenseKey: string, signal?: AbortSignal): Promise<MachineList> {
  requireToken();
  const answer = await get<Answer<MachineList> | undefined>(machinesPath(licenseKey), { signal });
  if (!answer?.success || !answer.data) throw new DeviceRequestError(answer?.error || MESSAGES.machineLoadFailed);
  return answer.data;
}

export async function fetchMachineAnalytics(licenseKey: string, signal?: AbortSignal): Promise<MachineAnalytics> {
  try {
    requireToken();
    const path = `${machinesPath(licenseKey)}/analytics?days=${ANALYTICS_WINDOW_DAYS}`;
    const answer = await get<Answer<MachineAnalytics> | undefined>(path, { signal });
    if (!answer?.success || !answer.data) throw new DeviceRequestError(answer?.error || "No analytics data");
    return answer.data;
  } catch (error) {
    // Spec section 8: an analytics failure is only logged; the panel stays as it is.
    if (!signal?.aborted) console.error("Failed to load device analytics", error);
    throw error;
  }
}

/** DELETE one machine by its raw machine_id; resolves to the server's message. */
export async function removeMachine(licenseKey: string, machineId: string): Promise<string | undefined> {
  requireToken();
  const answer = await del<Answer<never> | undefined>(`${machinesPath(licenseKey)}/${encodeURIComponent(machineId)}`);
  if (answer?.success === false) throw new DeviceRequestError(answer.error || MESSAGES.machineRemoveFailed);
  return answer?.message;
}

/** Lets a removed device bind again on its next validation; resolves to the server's message. */
export async function restoreMachine(licenseKey: string, machineId: string): Promise<string | undefined> {
  requireToken();
  const answer = await post<Answer<never> | undefined>(
    `${machinesPath(licenseKey)}/${encodeURIComponent(machineId)}/restore`,
    undefined,
  );
  if (answer?.success === false) throw new DeviceRequestError(answer.error || MESSAGES.machineRestoreFailed);
  return answer?.message;
}

/**
 * Frees a device's slot even while its license file works, and bars it (the leak remedy); resolves to until when its
 * file may still run offline (null without one).
 */
export async function revokeMachine(licenseKey: string, machineId: string): Promise<{ fileValidUntil: string | null }> {
  requireToken();
  const answer = await post<(Answer<never> & { license_file_valid_until?: string | null }) | undefined>(
    `${machinesPath(licenseKey)}/${encodeURIComponent(machineId)}/revoke`,
    undefined,
  );
  if (answer?.success === false) throw new DeviceRequestError(answer.error || MESSAGES.machineRevokeFailed);
  return { fileValidUntil: answer?.license_file_valid_until ?? null };
}

export const machinesQuery = (licenseKey: string) =>
  queryOptions({
    queryKey: machineKeys.list(licenseKey),
    queryFn: ({ signal }) => fetchMachines(licenseKey, signal),
  });

export const machineAnalyticsQuery = (licenseKey: string) =>
  queryOptions({
    queryKey: machineKeys.analytics(licenseKey),
    queryFn: ({ signal }) => fetchMachineAnalytics(licenseKey, signal),
  });

export function useMachines(licenseKey: string) {
  return useQuery(machinesQuery(licenseKey));
}

/** Fetched only while the analytics panel is shown. */
export function useMachineAnalytics(licenseKey: string, enabled: boolean) {
  return useQuery({ ...machineAnalyticsQuery(licenseKey), enabled });
}

export function useRemoveMachine(licenseKey: string) {
  return usePortalMutation({ mutationFn: (machineId: string) => removeMachine(licenseKey, machineId) });
}

export function useRevokeMachine(licenseKey: string) {
  return usePortalMutation({ mutationFn: (machineId: string) => revokeMachine(licenseKey, machineId) });
}

export function useRestoreMachine(licenseKey: string) {
  return usePortalMutation({ mutationFn: (machineId: string) => restoreMachine(licenseKey, machineId) });
}

/** The server's `error`, our own message, or the fallback; transport wording is never shown. */
export function deviceErrorMessage(error: unknown, fallback: string): string {
  if (error instanceof HttpError || error instanceof OfflineError) return serverErrorMessage(error, fallback);
  if (error instanceof DeviceRequestError) return error.message;
  return fallback;
}
