/**
 * The app-wide auth context (spec section 4): loading at start; a stored token is validated and removed
 * on failure; login stores token and user; logout clears both locally, then tells the server (best
 * effort, failure ignored); the user can be partially updated; using the context outside its provider
 * throws. Kept small and free of zod: it is on every page.
 */
import type { SignedInUser } from "@flotilla/contracts/auth";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { clearStoredToken, noteSignedOutEverywhere, readStoredToken, storeToken } from "./token-storage";

export type AuthUser = SignedInUser;

export interface AuthContextValue {
  user: AuthUser | null;
  /** True until the stored token (if any) has been checked. */
  loading: boolean;
  isAuthenticated: boolean;
  login(token: string, user: AuthUser): void;
  logout(): Promise<void>;
  /** Ends every session of this account (other browsers and devices too); throws when the server did not. */
  logoutEverywhere(): Promise<void>;
  /** True while this tab is signing out everywhere: the end the portal hears meanwhile is its own doing. */
  signingOutHere: boolean;
  updateUser(changes: Partial<AuthUser>): void;
  /**
   * The server ended the session of `token` (a 401): forget it here, without asking the server to end it again. A
   * newer sign-in (another tab stored another token meanwhile) is kept.
   */
  forgetEndedSession(token: string | null): void;
}

const AuthContext = createContext<AuthContextValue | null>(null);

interface ValidateResponse {
  success: boolean;
  user?: AuthUser;
}

/** Asks the server whether a token is good; resolves to its user, or null when it is not. */
export async function validateToken(token: string): Promise<AuthUser | null> {
  // Loaded on demand: a visitor who never signed in downloads no HTTP client with the page.
  const { get } = await import("./http");
  const response = await get<ValidateResponse>("/api/auth/validate", { token });
  return response?.success && response.user ? response.user : null;
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<AuthUser | null>(null);
  const [loading, setLoading] = useState(true);

  useEffect(() => {
    const token = readStoredToken();
    if (!token) {
      setLoading(false);
      return;
    }
    let cancelled = false;
    validateToken(token)
      .then((validUser) => {
        if (cancelled) return;
        if (!validUser) throw new Error("Token validation failed");
        setUser(validUser);
      })
      .catch((error: unknown) => {
        if (cancelled) return;
        console.warn("Stored sign-in is no longer valid; signing out.", error);
        // Only drop the token we checked: a sign-in in another tab may have replaced it meanwhile.
        if (readStoredToken() === token) clearStoredToken();
        setUser(null);
      })
      .finally(() => {
        if (!cancelled) setLoading(false);
      });
    return () => {
      cancelled = true;
    };
  }, []);

  const login = useCallback((token: string, nextUser: AuthUser) => {
    storeToken(token);
    setUser(nextUser);
    setLoading(false);
  }, []);

  const logout = useCallback(async () => {
    const token = readStoredToken();
    clearStoredToken();
    setUser(null);
    if (!token) return;
    try {
      const { post } = await import("./http");
      await post("/api/auth/logout", undefined, { token });
    } catch (error) {
      console.warn("Logout request failed (ignored).", error);
    }
  }, []);

  const [signingOutHere, setSigningOutHere] = useState(false);
  const logoutEverywhere = useCallback(async () => {
    const token = readStoredToken();
    if (token) {
      const { post } = await import("./http");
      setSigningOutHere(true);
      try {
        // Unlike logout, this one must reach the server: other sessions only end there.
        await post("/api/auth/logout-all", undefined, { token });
      } finally {
        setSigningOutHere(false);
      }
    }
    noteSignedOutEverywhere();
    clearStoredToken();
    setUser(null);
  }, []);

  const forgetEndedSession = useCallback((token: string | null) => {
    if (readStoredToken() !== token) return;
    clearStoredToken();
    setUser(null);
  }, []);

  const updateUser = useCallback((changes: Partial<AuthUser>) => {
    setUser((current) => (current ? { ...current, ...changes } : current));
  }, []);

  const value = useMemo<AuthContextValue>(
    () => ({
      user,
      loading,
      isAuthenticated: user !== null,
      login,
      logout,
      logoutEverywhere,
      updateUser,
      forgetEndedSession,
      signingOutHere,
    }),
    [user, loading, login, logout, logoutEverywhere, updateUser, forgetEndedSession, signingOutHere],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthContextValue {
  const value = useContext(AuthContext);
  if (!value) throw new Error("useAuth must be used within an AuthProvider");
  return value;
}
