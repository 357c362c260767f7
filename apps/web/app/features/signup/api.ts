import { MESSAGES } from "@flotilla/contracts/messages";
import type { SignupRequest } from "@flotilla/contracts/signup";
import { HttpError, post, serverErrorMessage } from "../../lib/http";

interface SignupAnswer {
  success: boolean;
  message?: string;
  error?: string;
}

/** The server said no in a 2xx body (`{ success: false, error }`): show its words. */
class SignupRejected extends Error {
  override readonly name = "SignupRejected";
}

/** POST /api/signup through the shared client (timeout, retries, bearer, `HTTP {status}: {statusText}`). */
export async function submitSignup(values: SignupRequest, signal?: AbortSignal): Promise<{ message?: string }> {
  const answer = await post<SignupAnswer | undefined>("/api/signup", values, { signal });
  if (answer && answer.success === false) throw new SignupRejected(answer.error || MESSAGES.signupFailed);
  return { message: answer?.message };
}

/**
 * Spec section 8: a non-ok response shows the server's `error` field, else 'Form submission failed';
 * any other failure (network, timeout) shows 'Something went wrong. Please try again.' — browser
 * network messages such as "Failed to fetch" are not meant for people.
 */
export function signupErrorMessage(error: unknown): string {
  if (error instanceof HttpError) return serverErrorMessage(error, MESSAGES.signupFailed);
  if (error instanceof SignupRejected) return error.message;
  return MESSAGES.genericFailure;
}
