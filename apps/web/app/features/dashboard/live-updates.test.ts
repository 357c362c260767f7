import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { followLiveEvents, type LiveState, parseEvents, RECONNECT_BASE_MS } from "./live-updates";

/** A streamed answer whose chunks the test pushes, as a server would. */
function streamed(status = 200) {
  let push!: (text: string) => void;
  let finish!: () => void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const encoder = new TextEncoder();
      push = (text) => controller.enqueue(encoder.encode(text));
      finish = () => controller.close();
    },
  });
  return { response: new Response(body, { status }), push, finish };
}

beforeEach(() => localStorage.setItem("auth_token", "good-token"));
afterEach(() => {
  localStorage.clear();
  vi.useRealTimers();
});

describe("parseEvents", () => {
  it("splits events, skips comments, keeps what is incomplete", () => {
    const { events, rest } = parseEvents(': ping\n\nid: 1\nevent: ready\ndata: {}\n\nevent: license\ndata: {"lic');
    expect(events).toEqual([
      { event: "message", data: "" },
      { event: "ready", data: "{}" },
    ]);
    expect(rest).toBe('event: license\ndata: {"lic');
  });
});

describe("followLiveEvents", () => {
  it("sends the bearer token, refreshes on ready and on each notice, and says it is live", async () => {
    const stream = streamed();
    const fetcher = vi.fn<typeof fetch>().mockResolvedValue(stream.response);
    const refresh = vi.fn();
    const states: LiveState[] = [];
    const stop = new AbortController();
    const done = followLiveEvents({ refresh, state: (s) => states.push(s), signedOut: vi.fn() }, stop.signal, fetcher);
    await vi.waitFor(() => expect(fetcher).toHaveBeenCalled());
    const init = fetcher.mock.calls[0]![1]!;
    expect(init.headers).toMatchObject({ authorization: "Bearer good-token", accept: "text/event-stream" });
    stream.push("retry: 2000\n\nevent: ready\ndata: {}\n\n");
    await vi.waitFor(() => expect(refresh).toHaveBeenCalledTimes(1));
    expect(states.at(-1)).toBe("live");
    stream.push('event: license\ndata: {"license_ids":["a"]}\n\n');
    await vi.waitFor(() => expect(refresh).toHaveBeenCalledTimes(2));
    stop.abort();
    await done;
  });

  it("pauses and reconnects after the stream drops, refreshing again on the new ready", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const first = streamed();
    const second = streamed();
    const fetcher = vi.fn<typeof fetch>().mockResolvedValueOnce(first.response).mockResolvedValueOnce(second.response);
    const refresh = vi.fn();
    const states: LiveState[] = [];
    const stop = new AbortController();
    const done = followLiveEvents({ refresh, state: (s) => states.push(s), signedOut: vi.fn() }, stop.signal, fetcher);
    await vi.waitFor(() => expect(fetcher).toHaveBeenCalledTimes(1));
    first.push("event: ready\ndata: {}\n\n");
    await vi.waitFor(() => expect(refresh).toHaveBeenCalledTimes(1));
    first.finish();
    await vi.waitFor(() => expect(states.at(-1)).toBe("paused"));
    await vi.advanceTimersByTimeAsync(RECONNECT_BASE_MS);
    await vi.waitFor(() => expect(fetcher).toHaveBeenCalledTimes(2));
    second.push("event: ready\ndata: {}\n\n");
    await vi.waitFor(() => expect(refresh).toHaveBeenCalledTimes(2));
    expect(states.at(-1)).toBe("live");
    stop.abort();
    await done;
  });

  it("stops on signed-out and on a 401, telling the app", async () => {
    const stream = streamed();
    const signedOut = vi.fn();
    const fetcher = vi.fn<typeof fetch>().mockResolvedValue(stream.response);
    const done = followLiveEvents(
      { refresh: vi.fn(), state: vi.fn(), signedOut },
      new AbortController().signal,
      fetcher,
    );
    stream.push("event: ready\ndata: {}\n\nevent: signed-out\ndata: {}\n\n");
    await done;
    expect(signedOut).toHaveBeenCalledTimes(1);

    const refused = vi.fn<typeof fetch>().mockResolvedValue(new Response("{}", { status: 401 }));
    const signedOutAgain = vi.fn();
    await followLiveEvents(
      { refresh: vi.fn(), state: vi.fn(), signedOut: signedOutAgain },
      new AbortController().signal,
      refused,
    );
    expect(signedOutAgain).toHaveBeenCalledTimes(1);
  });

  it("a busy instance's 503 (or a 429) waits its Retry-After, spread a little, before trying again", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const stream = streamed();
    const busy = new Response("{}", { status: 503, headers: { "retry-after": "5" } });
    const fetcher = vi.fn<typeof fetch>().mockResolvedValueOnce(busy).mockResolvedValueOnce(stream.response);
    const states: LiveState[] = [];
    const stop = new AbortController();
    const done = followLiveEvents(
      { refresh: vi.fn(), state: (s) => states.push(s), signedOut: vi.fn() },
      stop.signal,
      fetcher,
    );
    await vi.waitFor(() => expect(states.at(-1)).toBe("paused"));
    // Not after the usual first pause (2 s), nor before the 5 s the server asked for.
    await vi.advanceTimersByTimeAsync(4_900);
    expect(fetcher).toHaveBeenCalledTimes(1);
    // Within half as much again: thousands of tabs refused at once do not all come back in the same second.
    await vi.advanceTimersByTimeAsync(2_700);
    await vi.waitFor(() => expect(fetcher).toHaveBeenCalledTimes(2));
    stream.push("event: ready\ndata: {}\n\n");
    await vi.waitFor(() => expect(states.at(-1)).toBe("live"));
    stop.abort();
    await done;
  });

  it("does not connect without a stored token", async () => {
    localStorage.clear();
    const fetcher = vi.fn<typeof fetch>();
    await followLiveEvents(
      { refresh: vi.fn(), state: vi.fn(), signedOut: vi.fn() },
      new AbortController().signal,
      fetcher,
    );
    expect(fetcher).not.toHaveBeenCalled();
  });
});
