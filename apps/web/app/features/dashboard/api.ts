/** GET /api/customer/dashboard: the customer, their licenses and usage figures (spec section 7). */
import type { DashboardData } from "@flotilla/contracts/licensing";
import { MESSAGES } from "@flotilla/contracts/messages";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { get, HttpError, OfflineError, serverErrorMessage } from "../../lib/http";

interface DashboardAnswer {
  success: boolean;
  data?: DashboardData | null;
  error?: string;
}

/** The server answered 2xx but said no (`{ success: false, error }`): its words are for people. */
export class DashboardRejected extends Error {
  override readonly name = "DashboardRejected";
}

export const dashboardQueryKey = ["customer", "dashboard"] as const;

/** Resolves to the dashboard data, or null when the server has none to give ("No data available"). */
export async function fetchDashboard(signal?: AbortSignal): Promise<DashboardData | null> {
  const answer = await get<DashboardAnswer | undefined>("/api/customer/dashboard", { signal });
  if (answer?.success === false) throw new DashboardRejected(answer.error || MESSAGES.dashboardLoadFailed);
  return answer?.data ?? null;
}

export const dashboardQuery = queryOptions({
  queryKey: dashboardQueryKey,
  queryFn: ({ signal }) => fetchDashboard(signal),
});

export function useDashboardQuery() {
  return useQuery(dashboardQuery);
}

/**
 * Spec section 8: the server's `error` field when it sent one, else 'Failed to load dashboard data'.
 * Transport wording ("HTTP 502: Bad Gateway", "Failed to fetch") is not meant for people.
 */
export function dashboardErrorMessage(error: unknown): string {
  if (error instanceof HttpError || error instanceof OfflineError)
    return serverErrorMessage(error, MESSAGES.dashboardLoadFailed);
  if (error instanceof DashboardRejected) return error.message;
  return MESSAGES.dashboardLoadFailed;
}
