/** POST /api/customer/licenses (spec section 7): creates the customer's one license. */
import type { License } from "@flotilla/contracts/licensing";
import { MESSAGES } from "@flotilla/contracts/messages";
import type { TierId } from "@flotilla/contracts/plans";
import { useMutation } from "@tanstack/react-query";
import { HttpError, post, serverErrorMessage } from "../../lib/http";
import { readStoredToken } from "../../lib/token-storage";

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
  return useMutation({ mutationFn: createLicense });
}

/** Spec section 8: the server's `error` (e.g. the duplicate-license message), else 'Failed to create license'. */
export function licenseErrorMessage(error: unknown): string {
  if (error instanceof HttpError) return serverErrorMessage(error, MESSAGES.licenseCreateFailed);
  if (error instanceof LicenseRequestError) return error.message;
  return MESSAGES.licenseCreateFailed;
}
