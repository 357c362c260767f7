import { MESSAGES } from "@flotilla/contracts/messages";
import { NEWSLETTER_MESSAGES } from "@flotilla/contracts/newsletter";
import { get, HttpError, post, serverErrorMessage } from "../../lib/http";

/** POST /api/newsletter. Surfaces the server's error field, else the generic message. */
export async function subscribeToNewsletter(email: string): Promise<void> {
  try {
    await post("/api/newsletter", { email, source: "blog" });
  } catch (error) {
    throw new Error(serverErrorMessage(error, MESSAGES.genericFailure));
  }
}

export const UNSUBSCRIBE_INVALID_LINK = "This unsubscribe link is invalid or has expired.";

/**
 * GET /api/newsletter/unsubscribe?token=… (the link in every newsletter email). A 4xx means the link
 * is bad; anything else that fails (5xx, network, timeout) is worth another try.
 */
export async function unsubscribeFromNewsletter(
  token: string,
  signal?: AbortSignal,
): Promise<{ ok: true } | { ok: false; message: string; retryable: boolean }> {
  try {
    const answer = await get<{ success?: boolean } | undefined>(
      `/api/newsletter/unsubscribe?token=${encodeURIComponent(token)}`,
      { signal },
    );
    if (answer?.success === false) return { ok: false, message: UNSUBSCRIBE_INVALID_LINK, retryable: false };
    return { ok: true };
  } catch (error) {
    if (signal?.aborted) throw error;
    if (error instanceof HttpError && error.status === 429) {
      return { ok: false, message: serverErrorMessage(error, MESSAGES.genericFailure), retryable: true };
    }
    if (error instanceof HttpError && error.status >= 400 && error.status < 500) {
      return { ok: false, message: UNSUBSCRIBE_INVALID_LINK, retryable: false };
    }
    return { ok: false, message: MESSAGES.genericFailure, retryable: true };
  }
}

/**
 * POST /api/newsletter/confirm with the token from the confirmation mail (double opt-in, decision 0032).
 * A 4xx means the link is bad or replaced by a newer one; anything else that fails is worth another try.
 */
export async function confirmNewsletter(
  token: string,
): Promise<{ ok: true; message: string } | { ok: false; message: string; retryable: boolean }> {
  try {
    const answer = await post<{ success?: boolean; message?: string } | undefined>("/api/newsletter/confirm", {
      token,
    });
    if (answer?.success === false)
      return { ok: false, message: NEWSLETTER_MESSAGES.invalidConfirmation, retryable: false };
    return { ok: true, message: answer?.message || NEWSLETTER_MESSAGES.confirmed };
  } catch (error) {
    if (error instanceof HttpError && error.status === 429) {
      return { ok: false, message: serverErrorMessage(error, MESSAGES.genericFailure), retryable: true };
    }
    if (error instanceof HttpError && error.status >= 400 && error.status < 500) {
      return {
        ok: false,
        message: serverErrorMessage(error, NEWSLETTER_MESSAGES.invalidConfirmation),
        retryable: false,
      };
    }
    return { ok: false, message: MESSAGES.genericFailure, retryable: true };
  }
}
