import { AUTH_TOKEN_STORAGE_KEY } from "@flotilla/contracts/timings";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { del, get, HttpError, post, request, retryDelay, serverErrorMessage, TimeoutError } from "./http";

function jsonResponse(status: number, body: unknown, statusText = ""): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    statusText,
    headers: { "Content-Type": "application/json" },
  });
}

/** Records how a promise settles without leaving a rejection unhandled while timers are faked. */
function settle<T>(promise: Promise<T>) {
  const state: { value?: T; error?: unknown; done: boolean } = { done: false };
  promise.then(
    (value) => Object.assign(state, { value, done: true }),
    (error) => Object.assign(state, { error, done: true }),
  );
  return state;
}

const fetchMock = vi.fn<typeof fetch>();

beforeEach(() => {
  vi.useFakeTimers();
  fetchMock.mockReset();
  vi.stubGlobal("fetch", fetchMock);
  localStorage.clear();
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function sentInit(call = 0): RequestInit {
  return fetchMock.mock.calls[call]![1]!;
}

describe("http client", () => {
  it("sends JSON with a bearer token when one is stored, and parses the JSON answer", async () => {
    localStorage.setItem(AUTH_TOKEN_STORAGE_KEY, "tok-123");
    fetchMock.mockResolvedValueOnce(jsonResponse(200, { success: true, id: 7 }));

    await expect(post("/api/things", { name: "x" })).resolves.toEqual({ success: true, id: 7 });

    expect(fetchMock).toHaveBeenCalledOnce();
    expect(fetchMock.mock.calls[0]![0]).toBe("/api/things");
    const init = sentInit();
    expect(init.method).toBe("POST");
    expect(init.body).toBe(JSON.stringify({ name: "x" }));
    expect(init.headers).toMatchObject({
      "Content-Type": "application/json",
      Accept: "application/json",
      Authorization: "Bearer tok-123",
    });
  });

  it("sends no Authorization header without a stored token, and no Content-Type without a body", async () => {
    fetchMock.mockResolvedValueOnce(jsonResponse(200, { ok: 1 }));
    fetchMock.mockResolvedValueOnce(new Response(null, { status: 204 }));

    await expect(get("/api/a")).resolves.toEqual({ ok: 1 });
    await expect(del("/api/b")).resolves.toBeUndefined();

    expect(sentInit(0).method).toBe("GET");
    expect(sentInit(0).headers).not.toHaveProperty("Authorization");
    expect(sentInit(0).headers).not.toHaveProperty("Content-Type");
    expect(sentInit(1).method).toBe("DELETE");
  });

  it("raises a non-ok response as 'HTTP {status}: {statusText}' carrying status and parsed body", async () => {
    fetchMock.mockResolvedValueOnce(jsonResponse(409, { success: false, error: "Already there" }, "Conflict"));

    const error = await request("/api/x").catch((e: unknown) => e);

    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).message).toBe("HTTP 409: Conflict");
    expect((error as HttpError).status).toBe(409);
    expect((error as HttpError).body).toEqual({ success: false, error: "Already there" });
    expect(serverErrorMessage(error, "fallback")).toBe("Already there");
    expect(serverErrorMessage(new HttpError(400, "Bad Request", null), "fallback")).toBe("fallback");
    expect(serverErrorMessage(new TypeError("Failed to fetch"), "fallback")).toBe("fallback");
  });

  it("does not retry a 4xx", async () => {
    fetchMock.mockResolvedValue(jsonResponse(400, { success: false, error: "Bad" }, "Bad Request"));

    const result = settle(post("/api/x", {}));
    await vi.advanceTimersByTimeAsync(20_000);

    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(result.done).toBe(true);
    expect((result.error as Error).message).toBe("HTTP 400: Bad Request");
  });

  it("retries a 5xx after 1000 ms, then after 2000 ms", async () => {
    fetchMock
      .mockResolvedValueOnce(jsonResponse(503, null, "Service Unavailable"))
      .mockResolvedValueOnce(jsonResponse(502, null, "Bad Gateway"))
      .mockResolvedValueOnce(jsonResponse(200, { success: true }));

    const result = settle(get("/api/x"));
    await vi.advanceTimersByTimeAsync(0);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1999);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetchMock).toHaveBeenCalledTimes(3);
    expect(result).toMatchObject({ done: true, value: { success: true } });
  });

  it("retries a network error with the same 1000 ms then 2000 ms backoff", async () => {
    fetchMock
      .mockRejectedValueOnce(new TypeError("Failed to fetch"))
      .mockRejectedValueOnce(new TypeError("Failed to fetch"))
      .mockResolvedValueOnce(jsonResponse(201, { created: true }));

    const result = settle(post("/api/x", { a: 1 }));
    await vi.advanceTimersByTimeAsync(999);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1999);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetchMock).toHaveBeenCalledTimes(3);
    expect(result).toMatchObject({ done: true, value: { created: true } });
    expect(sentInit(2).body).toBe(JSON.stringify({ a: 1 }));
  });

  it("doubles the backoff from 1000 ms and caps it at 5000 ms", () => {
    expect(retryDelay(1)).toBe(1000);
    expect(retryDelay(2)).toBe(2000);
    expect(retryDelay(3)).toBe(4000);
    expect(retryDelay(4)).toBe(5000);
    expect(retryDelay(10)).toBe(5000);
  });

  it("aborts an attempt after 30 000 ms and retries it", async () => {
    fetchMock.mockImplementationOnce(
      (_input, init) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
        }),
    );
    fetchMock.mockResolvedValueOnce(jsonResponse(200, { late: false }));

    const result = settle(get("/api/slow"));
    await vi.advanceTimersByTimeAsync(29_999);
    expect(sentInit(0).signal?.aborted).toBe(false);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sentInit(0).signal?.aborted).toBe(true);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(result).toMatchObject({ done: true, value: { late: false } });
  });

  it("throws the final error after 3 attempts", async () => {
    fetchMock.mockImplementation(async () =>
      jsonResponse(500, { success: false, error: "Boom" }, "Internal Server Error"),
    );

    const result = settle(post("/api/x", {}));
    await vi.advanceTimersByTimeAsync(1000 + 2000);
    expect(fetchMock).toHaveBeenCalledTimes(3);
    expect(result.done).toBe(true);
    expect(result.error).toBeInstanceOf(HttpError);
    expect((result.error as HttpError).message).toBe("HTTP 500: Internal Server Error");
    expect(serverErrorMessage(result.error, "fallback")).toBe("Boom");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetchMock).toHaveBeenCalledTimes(3);
  });

  it("throws a TimeoutError when every attempt times out", async () => {
    fetchMock.mockImplementation(
      (_input, init) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
        }),
    );

    const result = settle(get("/api/slow"));
    await vi.advanceTimersByTimeAsync(3 * 30_000 + 1000 + 2000);
    expect(fetchMock).toHaveBeenCalledTimes(3);
    expect(result.error).toBeInstanceOf(TimeoutError);
  });

  it("stops without retrying when the caller aborts", async () => {
    fetchMock.mockImplementation(
      (_input, init) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
        }),
    );
    const controller = new AbortController();

    const result = settle(get("/api/x", { signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(result.done).toBe(true);
    expect((result.error as Error).name).toBe("AbortError");
  });
});
