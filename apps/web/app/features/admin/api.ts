/**
 * The console's calls to /api/admin/*. Lists are keyset pages: the API answers `next_cursor`, passed back as
 * `cursor` for the next page ("Load more"), never an offset. Every call carries the signed-in session; the
 * server decides who is an admin (403 otherwise).
 */
import type {
  AdminEntry,
  AdminLicense,
  CustomerDetail,
  EndExecutionAnswer,
  LicenseAction,
  PersonErasure,
  RevokeMachineAnswer,
} from "@flotilla/contracts/admin";
import { MESSAGES } from "@flotilla/contracts/messages";
import { personExportFileName } from "@flotilla/contracts/person-export";
import { type QueryKey, queryOptions, useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { del, get, HttpError, post, request, serverErrorMessage } from "../../lib/http";
import { readStoredToken } from "../../lib/token-storage";
import { usePortalMutation } from "../portal/use-portal-mutation";

export const PAGE_SIZE = 50;

export interface Page<T> {
  success: true;
  data: T[];
  next_cursor: string | null;
}

export interface AdminSignup {
  id: string;
  email: string;
  name: string;
  company: string;
  role: string;
  ai_experience: string;
  platform: string;
  interests: string;
  newsletter: boolean;
  created_at: string;
}

export interface AdminSubscriber {
  id: string;
  email: string;
  source: string;
  status: "pending" | "confirmed" | "unsubscribed";
  subscribed_at: string;
  confirmed_at: string | null;
  unsubscribed_at: string | null;
}

export interface AdminCustomer {
  id: string;
  email: string;
  name: string;
  created_at: string;
  last_sign_in_at: string | null;
}

export type {
  AdminExecution,
  AdminLicenseExecutions,
  AdminMachine,
  AuditEvent,
  WebhookDelivery,
} from "@flotilla/contracts/admin";
/** The console's shapes come from the contract (types only: no schema code reaches the console's chunk). */
export type { AdminEntry, AdminLicense, CustomerDetail };

export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string;
  events: string[];
  enabled: boolean;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

export type Filter = Record<string, string | undefined>;

/** `?a=1&b=2` of the filled-in values (empty ones left out), or "". */
export function queryString(values: Filter): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && value.trim() !== "") params.set(key, value.trim());
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}

/** What to show for a failed call: the server's `error` when it sent one. */
export function adminErrorMessage(error: unknown): string {
  return serverErrorMessage(error, MESSAGES.genericFailure);
}

export function isStatus(error: unknown, status: number): boolean {
  return error instanceof HttpError && error.status === status;
}

export const adminMeQuery = queryOptions({
  queryKey: ["admin", "me"],
  queryFn: ({ signal }) =>
    get<{ success: true; data: { email: string; source: "config" | "granted" } }>("/api/admin/me", { signal }),
  select: (answer) => answer.data,
});

/** A keyset-paginated list: pages are appended as the cursor is followed. */
export function usePagedList<T>(key: QueryKey, path: string, filter: Filter, enabled = true) {
  return useInfiniteQuery({
    queryKey: [...key, filter],
    enabled,
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }) =>
      get<Page<T>>(`${path}${queryString({ ...filter, cursor: pageParam, limit: String(PAGE_SIZE) })}`, { signal }),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

export interface SignupCounts {
  interval: "day" | "week" | "month";
  total: number;
  data: { period: string; count: number }[];
}

export function useSignupCounts(filter: Filter, interval: string) {
  return useQuery({
    queryKey: ["admin", "signups", "counts", filter, interval],
    queryFn: ({ signal }) =>
      get<SignupCounts & { success: true }>(`/api/admin/signups/counts${queryString({ ...filter, interval })}`, {
        signal,
      }),
  });
}

/**
 * Downloads the CSV of every row of a list matching the filter (signups, subscribers). The export needs the
 * session's bearer token, so it is fetched here and handed to the browser as a file (a plain link would carry no
 * credentials).
 */
export async function downloadCsv(list: "signups" | "subscribers", filter: Filter): Promise<void> {
  await download(
    `/api/admin/${list}/export${queryString(filter)}`,
    { headers: { Accept: "text/csv" } },
    `${list}-${new Date().toISOString().slice(0, 10)}.csv`,
  );
}

/** Fetches with the session's bearer token and hands the answer to the browser as a file. */
async function download(path: string, init: RequestInit, fallbackName: string): Promise<void> {
  const token = readStoredToken();
  const response = await fetch(path, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), ...(token ? { Authorization: `Bearer ${token}` } : {}) },
  });
  if (!response.ok) {
    const text = await response.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {}
    throw new HttpError(response.status, response.statusText, body);
  }
  const blob = await response.blob();
  const name = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "")?.[1] ?? fallbackName;
  const href = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = href;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

/**
 * A privacy request: everything held about the address, downloaded as one JSON file that opens with a summary a person
 * can read (POST: the address stays out of URLs).
 */
export function downloadPersonExport(email: string): Promise<void> {
  return download(
    "/api/admin/privacy/export",
    {
      method: "POST",
      headers: { Accept: "application/json", "Content-Type": "application/json" },
      body: JSON.stringify({ email }),
    },
    personExportFileName(new Date().toISOString()),
  );
}

/** A privacy request: erase the person (reason required); the answer says what went and what the audit log keeps. */
export function useErasePerson() {
  const queryClient = useQueryClient();
  return usePortalMutation({
    mutationFn: ({ email, reason }: { email: string; reason: string }) =>
      post<{ success: true; data: PersonErasure }>("/api/admin/privacy/erase", { email, reason }),
    // Lists and details may show the person: none of them is current any more.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["admin"] }),
  });
}

export const customerQueryKey = (id: string) => ["admin", "customer", id] as const;

export function useCustomerDetail(id: string) {
  return useQuery({
    queryKey: customerQueryKey(id),
    queryFn: ({ signal }) =>
      get<{ success: true; data: CustomerDetail }>(`/api/admin/customers/${encodeURIComponent(id)}`, { signal }),
    select: (answer) => answer.data,
  });
}

export function useLicenseAction(customerId: string) {
  const queryClient = useQueryClient();
  return usePortalMutation({
    mutationFn: ({ licenseKey, action }: { licenseKey: string; action: LicenseAction }) =>
      post<{ success: true; data: AdminLicense; visible_within_seconds: number }>(
        `/api/admin/licenses/${encodeURIComponent(licenseKey)}/actions`,
        action,
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: customerQueryKey(customerId) }),
  });
}

/** An admin revokes a machine: its slot is freed even while its license file works, with a reason. */
export function useRevokeMachine(customerId: string) {
  const queryClient = useQueryClient();
  return usePortalMutation({
    mutationFn: ({ licenseKey, machineId, reason }: { licenseKey: string; machineId: string; reason: string }) =>
      post<RevokeMachineAnswer>(
        `/api/admin/licenses/${encodeURIComponent(licenseKey)}/machines/${encodeURIComponent(machineId)}/revoke`,
        { reason },
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: customerQueryKey(customerId) }),
  });
}

/**
 * An admin ends a running execution, with a reason. The customer detail is fetched again before the mutation's own
 * callbacks run, so they see the list as it is now.
 */
export function useEndExecution(customerId: string) {
  const queryClient = useQueryClient();
  return usePortalMutation({
    mutationFn: ({ licenseKey, executionId, reason }: { licenseKey: string; executionId: string; reason: string }) =>
      post<EndExecutionAnswer>(
        `/api/admin/licenses/${encodeURIComponent(licenseKey)}/executions/${encodeURIComponent(executionId)}/end`,
        { reason },
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: customerQueryKey(customerId) }),
  });
}

export function useSignOutEverywhere(customerId: string) {
  const queryClient = useQueryClient();
  return usePortalMutation({
    mutationFn: () =>
      post<{ success: true; revoked: number }>(
        `/api/admin/customers/${encodeURIComponent(customerId)}/sign-out-everywhere`,
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: customerQueryKey(customerId) }),
  });
}

export const webhooksQueryKey = ["admin", "webhooks"] as const;

export function useWebhooks() {
  return useQuery({
    queryKey: webhooksQueryKey,
    queryFn: ({ signal }) => get<{ success: true; data: WebhookEndpoint[] }>("/api/admin/webhooks", { signal }),
    select: (answer) => answer.data,
  });
}

const endpointPath = (id: string) => `/api/admin/webhooks/${encodeURIComponent(id)}`;

export function useWebhookMutations() {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: webhooksQueryKey });
  return {
    create: usePortalMutation({
      mutationFn: (input: { url: string; events: string[]; description: string }) =>
        post<{ success: true; data: WebhookEndpoint; secret: string }>("/api/admin/webhooks", input),
      onSuccess: refresh,
    }),
    update: usePortalMutation({
      mutationFn: ({ id, changes }: { id: string; changes: { enabled?: boolean } }) =>
        request<{ success: true; data: WebhookEndpoint }>(endpointPath(id), { method: "PATCH", body: changes }),
      onSuccess: refresh,
    }),
    remove: usePortalMutation({
      mutationFn: (id: string) => del(endpointPath(id)),
      onSuccess: refresh,
    }),
    rotate: usePortalMutation({
      mutationFn: (id: string) =>
        post<{ success: true; data: WebhookEndpoint; secret: string }>(`${endpointPath(id)}/rotate-secret`),
    }),
    test: usePortalMutation({
      mutationFn: (id: string) =>
        post<{ success: true; event_id: string; message: string }>(`${endpointPath(id)}/test`),
    }),
  };
}

export function deliveriesPath(endpointId: string): string {
  return `${endpointPath(endpointId)}/deliveries`;
}

export function resendDelivery(endpointId: string, deliveryId: string) {
  return post<{ success: true; event_id: string; message: string }>(
    `${deliveriesPath(endpointId)}/${encodeURIComponent(deliveryId)}/resend`,
  );
}

export const adminsQueryKey = ["admin", "admins"] as const;

/** Who is an admin: configured addresses (ADMIN_EMAILS) first, then granted ones. */
export function useAdmins() {
  return useQuery({
    queryKey: adminsQueryKey,
    queryFn: ({ signal }) => get<{ success: true; data: AdminEntry[] }>("/api/admin/admins", { signal }),
    select: (answer) => answer.data,
  });
}

type RoleChangeAnswer = { success: true; changed: boolean; message: string };

/** Grant or revoke the admin role, with a reason (the audit log keeps both). */
export function useAdminRoleMutations() {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey: adminsQueryKey });
  return {
    grant: usePortalMutation({
      mutationFn: (input: { email: string; reason: string }) => post<RoleChangeAnswer>("/api/admin/admins", input),
      onSuccess: refresh,
    }),
    revoke: usePortalMutation({
      mutationFn: (input: { email: string; reason: string }) =>
        post<RoleChangeAnswer>("/api/admin/admins/revoke", input),
      onSuccess: refresh,
    }),
  };
}
