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

const SIGNED_OUT_EVERYWHERE_KEY = "flotilla:signed-out-everywhere";

/**
 * Remembers, for the next /login, that this tab just signed out everywhere: /login says so whichever navigation
 * gets there (the menu's, or the dashboard noticing it is signed out).
 */
export function noteSignedOutEverywhere(): void {
  try {
    sessionStorage.setItem(SIGNED_OUT_EVERYWHERE_KEY, "1");
  } catch {
    // Blocked storage: the address (?signed_out=everywhere) still says it.
  }
}

/** Whether this tab just signed out everywhere; reading it forgets it. */
export function consumeSignedOutEverywhere(): boolean {
  try {
    const noted = sessionStorage.getItem(SIGNED_OUT_EVERYWHERE_KEY) === "1";
    sessionStorage.removeItem(SIGNED_OUT_EVERYWHERE_KEY);
    return noted;
  } catch {
    return false;
  }
}
