import { act, render, renderHook, screen, waitFor } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AuthProvider, useAuth } from "./auth";

const fetchMock = vi.fn<typeof fetch>();
const ADA = { id: "c1", email: "ada@example.com", name: "Ada", avatar_url: null, is_admin: false };

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}
const wrapper = ({ children }: { children: ReactNode }) => <AuthProvider>{children}</AuthProvider>;

beforeEach(() => {
  localStorage.clear();
  fetchMock.mockReset();
  vi.stubGlobal("fetch", fetchMock);
  vi.spyOn(console, "warn").mockImplementation(() => {});
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("auth context", () => {
  it("throws when used outside its provider", () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    expect(() => renderHook(() => useAuth())).toThrow(/AuthProvider/);
  });

  it("without a stored token: stops loading, no user, no request", async () => {
    const { result } = renderHook(() => useAuth(), { wrapper });
    await waitFor(() => expect(result.current.loading).toBe(false));
    expect(result.current.user).toBeNull();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("validates a stored token at start and loads its user", async () => {
    localStorage.setItem("auth_token", "good-token");
    fetchMock.mockResolvedValueOnce(json(200, { success: true, user: ADA }));
    const { result } = renderHook(() => useAuth(), { wrapper });
    expect(result.current.loading).toBe(true);
    await waitFor(() => expect(result.current.loading).toBe(false));
    expect(result.current.user).toEqual(ADA);
    expect(result.current.isAuthenticated).toBe(true);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/auth/validate");
    expect((init!.headers as Record<string, string>).Authorization).toBe("Bearer good-token");
  });

  it("removes a stored token that fails validation and clears the user", async () => {
    localStorage.setItem("auth_token", "bad-token");
    fetchMock.mockResolvedValueOnce(json(401, { success: false, error: "invalid" }));
    const { result } = renderHook(() => useAuth(), { wrapper });
    await waitFor(() => expect(result.current.loading).toBe(false));
    expect(result.current.user).toBeNull();
    expect(localStorage.getItem("auth_token")).toBeNull();
    expect(console.warn).toHaveBeenCalled();
  });

  it("treats a validation answer without success as a failure", async () => {
    localStorage.setItem("auth_token", "odd-token");
    fetchMock.mockResolvedValueOnce(json(200, { success: false }));
    const { result } = renderHook(() => useAuth(), { wrapper });
    await waitFor(() => expect(result.current.loading).toBe(false));
    expect(localStorage.getItem("auth_token")).toBeNull();
  });

  it("login stores token and user; updateUser merges fields", async () => {
    const { result } = renderHook(() => useAuth(), { wrapper });
    await waitFor(() => expect(result.current.loading).toBe(false));
    act(() => result.current.login("new-token", ADA));
    expect(localStorage.getItem("auth_token")).toBe("new-token");
    expect(result.current.user).toEqual(ADA);
    act(() => result.current.updateUser({ name: "Ada Lovelace" }));
    expect(result.current.user).toEqual({ ...ADA, name: "Ada Lovelace" });
  });

  it("logout clears locally first, then calls the server with the old token; a failure is ignored", async () => {
    const { result } = renderHook(() => useAuth(), { wrapper });
    await waitFor(() => expect(result.current.loading).toBe(false));
    act(() => result.current.login("tok-1", ADA));
    fetchMock.mockRejectedValue(new TypeError("network down"));
    vi.useFakeTimers();
    let done = false;
    act(() => {
      void result.current.logout().then(() => {
        done = true;
      });
    });
    expect(localStorage.getItem("auth_token")).toBeNull();
    expect(result.current.user).toBeNull();
    await act(async () => {
      await vi.runAllTimersAsync();
    });
    vi.useRealTimers();
    expect(done).toBe(true);
    const [url, init] = fetchMock.mock.calls[0]!;
    expect(url).toBe("/api/auth/logout");
    expect(init?.method).toBe("POST");
    expect((init!.headers as Record<string, string>).Authorization).toBe("Bearer tok-1");
  });

  it("sign out everywhere: asks the server first, then clears; if the server refuses, stays signed in", async () => {
    const { result } = renderHook(() => useAuth(), { wrapper });
    await waitFor(() => expect(result.current.loading).toBe(false));
    act(() => result.current.login("tok-2", ADA));
    fetchMock.mockResolvedValueOnce(json(401, { success: false, error: "expired" }));
    await act(async () => {
      await expect(result.current.logoutEverywhere()).rejects.toThrow();
    });
    expect(localStorage.getItem("auth_token")).toBe("tok-2");
    expect(result.current.user).toEqual(ADA);

    fetchMock.mockResolvedValueOnce(json(200, { success: true, message: "Signed out of 2 sessions", revoked: 2 }));
    await act(async () => {
      await result.current.logoutEverywhere();
    });
    expect(localStorage.getItem("auth_token")).toBeNull();
    expect(result.current.user).toBeNull();
    const [url, init] = fetchMock.mock.calls.at(-1)!;
    expect(url).toBe("/api/auth/logout-all");
    expect((init!.headers as Record<string, string>).Authorization).toBe("Bearer tok-2");
  });

  it("renders children", () => {
    render(
      <AuthProvider>
        <p>inside</p>
      </AuthProvider>,
    );
    expect(screen.getByText("inside")).toBeInTheDocument();
  });
});
