/** POST /api/customer/licenses (spec section 7): creates the customer's one license. */
import type { DashboardData, License } from "@flotilla/contracts/licensing";
import { MESSAGES } from "@flotilla/contracts/messages";
import type { TierId } from "@flotilla/contracts/plans";
import { useQueryClient } from "@tanstack/react-query";
import { del, HttpError, OfflineError, post, put, serverErrorMessage } from "../../lib/http";
import { readStoredToken } from "../../lib/token-storage";
import { dashboardQueryKey } from "../dashboard/api";
import { usePortalMutation } from "../portal/use-portal-mutation";

interface CreateLicenseAnswer {
  success: boolean;
  data?: { license?: License } | null;
  error?: string;
}

/** A failure whose message is meant for people (no token, or the server's words in a 2xx body). */
export class LicenseRequestError extends Error {
  override readonly name = "LicenseRequestError";
}

export async function createLicense(tier: TierId): Promise<License> {
  if (!readStoredToken()) throw new LicenseRequestError(MESSAGES.noTokenForLicense);
  const answer = await post<CreateLicenseAnswer | undefined>("/api/customer/licenses", { tier });
  const license = answer?.data?.license;
  if (!answer?.success || !license) throw new LicenseRequestError(answer?.error || MESSAGES.licenseCreateFailed);
  return license;
}

export function useCreateLicense() {
  return usePortalMutation({ mutationFn: createLicense });
}

/** Spec section 8: the server's `error` (e.g. the duplicate-license message), else 'Failed to create license'. */
export function licenseErrorMessage(error: unknown): string {
  if (error instanceof HttpError || error instanceof OfflineError)
    return serverErrorMessage(error, MESSAGES.licenseCreateFailed);
  if (error instanceof LicenseRequestError) return error.message;
  return MESSAGES.licenseCreateFailed;
}

interface RotateAnswer {
  success: boolean;
  data?: { license?: License; previous_key_valid_until?: string } | null;
  error?: string;
}

export interface RotatedKey {
  license: License;
  previousKeyValidUntil: string;
}

const customerLicensePath = (licenseKey: string) => `/api/customer/licenses/${encodeURIComponent(licenseKey)}`;

/** POST …/rotate: a new key (shown once); the old one keeps working until `previousKeyValidUntil`. */
export async function rotateLicenseKey(licenseKey: string): Promise<RotatedKey> {
  if (!readStoredToken()) throw new LicenseRequestError(MESSAGES.noTokenForLicense);
  const answer = await post<RotateAnswer | undefined>(`${customerLicensePath(licenseKey)}/rotate`, undefined);
  const license = answer?.data?.license;
  const until = answer?.data?.previous_key_valid_until;
  if (!answer?.success || !license || !until)
    throw new LicenseRequestError(answer?.error || MESSAGES.licenseRotateFailed);
  return { license, previousKeyValidUntil: until };
}

/** DELETE …/refusals: the owner has seen the devices refused because the license was full. */
export async function dismissRefusals(licenseKey: string): Promise<void> {
  if (!readStoredToken()) throw new LicenseRequestError(MESSAGES.noTokenForLicense);
  const answer = await del<{ success: boolean; error?: string } | undefined>(
    `${customerLicensePath(licenseKey)}/refusals`,
  );
  if (answer?.success === false) throw new LicenseRequestError(answer.error || MESSAGES.refusalsDismissFailed);
}

/** PUT …/offline-files: the owner's consent to license files for offline machines; resolves to the server's message. */
export async function setOfflineFiles(licenseKey: string, allowed: boolean): Promise<string | undefined> {
  if (!readStoredToken()) throw new LicenseRequestError(MESSAGES.noTokenForLicense);
  const answer = await put<{ success: boolean; message?: string; error?: string } | undefined>(
    `${customerLicensePath(licenseKey)}/offline-files`,
    { allowed },
  );
  if (answer?.success === false) throw new LicenseRequestError(answer.error || MESSAGES.offlineFilesFailed);
  return answer?.message;
}

export function useSetOfflineFiles(licenseKey: string) {
  return usePortalMutation({ mutationFn: (allowed: boolean) => setOfflineFiles(licenseKey, allowed) });
}

/**
 * On success the cached dashboard moves to the new key at once, before any refresh: the card and its device panel
 * then ask by the new key, and nothing refetches by the old one (the live stream's refresh refetches active queries
 * only, and the old key's are no longer observed).
 */
export function useRotateLicenseKey() {
  const queryClient = useQueryClient();
  return usePortalMutation({
    mutationFn: rotateLicenseKey,
    onSuccess: (rotated) => {
      queryClient.setQueryData<DashboardData | null>(dashboardQueryKey, (data) =>
        data
          ? {
              ...data,
              // Only the key moves: the rotation's answer carries no running executions or refusals.
              licenses: data.licenses.map((license) =>
                license.id === rotated.license.id
                  ? {
                      ...license,
                      license_key: rotated.license.license_key,
                      previous_key_valid_until: rotated.previousKeyValidUntil,
                    }
                  : license,
              ),
            }
          : data,
      );
    },
  });
}

export function useDismissRefusals() {
  return usePortalMutation({ mutationFn: dismissRefusals });
}

/** The server's `error`, our own message, or `fallback`; transport wording is never shown. */
export function licenseActionErrorMessage(error: unknown, fallback: string): string {
  if (error instanceof HttpError || error instanceof OfflineError) return serverErrorMessage(error, fallback);
  if (error instanceof LicenseRequestError) return error.message;
  return fallback;
}
