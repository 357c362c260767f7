/** The bearer token in local storage under `auth_token` (spec section 3). Storage may be blocked: act signed out. */
import { AUTH_TOKEN_STORAGE_KEY } from "@flotilla/contracts/timings";

export function readStoredToken(): string | null {
  try {
    return typeof localStorage === "undefined" ? null : localStorage.getItem(AUTH_TOKEN_STORAGE_KEY);
  } catch {
    return null;
  }
}

export function storeToken(token: string): void {
  try {
    localStorage.setItem(AUTH_TOKEN_STORAGE_KEY, token);
  } catch {
    // Blocked storage: the session lasts as long as the page.
  }
}

export function clearStoredToken(): void {
  try {
    localStorage.removeItem(AUTH_TOKEN_STORAGE_KEY);
  } catch {
    // nothing stored, nothing to clear
  }
}
