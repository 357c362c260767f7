import type { SignedInUser } from "@flotilla/contracts/auth";
import { MESSAGES } from "@flotilla/contracts/messages";
import type { AuthUser } from "../../lib/auth";
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
  data?: { token: string; customer: SignedInUser; redirectTo?: string };
}

/** Exchanges the provider's code (with the state and issuer from the address) for a session. */
export async function exchangeCode(input: { code: string; state?: string; iss?: string }) {
  const response = await post<CallbackResponse>("/api/auth/google/callback", input, { token: null });
  if (!response?.success || !response.data?.token) throw new Error(response?.error || MESSAGES.authFailed);
  return response.data;
}

interface AdoptResponse {
  success: boolean;
  user?: AuthUser;
}

/**
 * A token that arrived in the address (/auth/callback?token=…): the server accepts it only if this browser
 * started the sign-in that created it (its HttpOnly sign-in cookie), so a link cannot sign anyone into
 * another person's account. Null when it is refused.
 */
export async function adoptAddressToken(token: string): Promise<AuthUser | null> {
  const response = await post<AdoptResponse>("/api/auth/adopt", undefined, { token });
  return response?.success && response.user ? response.user : null;
}
