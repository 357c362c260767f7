import type { Customer } from "@flotilla/contracts/auth";
import { MESSAGES } from "@flotilla/contracts/messages";
import { post } from "../../lib/http";

interface AuthUrlResponse {
  success: boolean;
  authUrl?: string;
  error?: string;
}

/**
 * Asks the server where to send the browser to sign in. `returnPath` travels as `state`; the server keeps
 * it in the sign-in transaction (sanitised) and picks the redirect URI itself.
 */
export async function requestSignInUrl(returnPath: string): Promise<string> {
  const response = await post<AuthUrlResponse>("/api/auth/google/url", {
    redirectUrl: `${window.location.origin}/auth/callback`,
    state: returnPath,
  });
  if (!response?.success || !response.authUrl) throw new Error(response?.error || MESSAGES.noAuthUrl);
  return response.authUrl;
}

interface CallbackResponse {
  success: boolean;
  error?: string;
  data?: { token: string; customer: Customer; redirectTo?: string };
}

/** Exchanges the provider's code (with the state and issuer from the address) for a session. */
export async function exchangeCode(input: { code: string; state?: string; iss?: string }) {
  const response = await post<CallbackResponse>("/api/auth/google/callback", input, { token: null });
  if (!response?.success || !response.data?.token) throw new Error(response?.error || MESSAGES.authFailed);
  return response.data;
}
