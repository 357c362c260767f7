/**
 * The live dashboard's event stream (GET /api/customer/events) read over real HTTP, as the portal reads it (fetch, a
 * bearer token, `Accept: text/event-stream`; apps/web/app/features/dashboard/live-updates.ts), with the time each
 * event and each ping arrived, so that the cluster suite can tell a stream that delivers events one by one from one
 * that a proxy buffers, and a stream kept open by its pings from one a proxy cuts.
 */

export interface StreamEvent {
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: event data, read field by field.
  data: any;
  /** Date.now() when the chunk that completed it arrived. */
  at: number;
}

export interface EventStream {
  status: number;
  headers: Headers;
  openedAt: number;
  /** Every event so far, in order (comments excluded). */
  events: StreamEvent[];
  /** Arrival times of the comment pings. */
  pings: number[];
  /** Arrival times of every chunk read (events and pings). */
  chunks: number[];
  /** When the stream ended (the server or a proxy closed it, or it failed), else null. */
  endedAt: number | null;
  /** How it ended: "done" (a clean end of the body), an error message, or null while open. */
  endedHow: string | null;
  /** Skips every event received so far: `next` then waits for one that arrives after this call. */
  skip(): void;
  /** The first unread event named `name` (unread: after the last `skip` or `next`); throws after `timeoutMs`. */
  next(name: string, timeoutMs?: number): Promise<StreamEvent>;
  /** Resolves (true) once the stream has ended, or false after `timeoutMs`. */
  ended(timeoutMs: number): Promise<boolean>;
  close(): void;
}

/** Opens the stream at `base`; resolves once the response's headers are in (the events follow as they come). */
export async function openEventStream(base: string, token: string): Promise<EventStream> {
  const controller = new AbortController();
  const openedAt = Date.now();
  // The headers come at once from a stream that flows (a proxy that holds the body back may hold them too).
  const headersDue = setTimeout(() => controller.abort(new Error("no headers within 10 s")), 10_000);
  const response = await fetch(`${base}/api/customer/events`, {
    headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
    signal: controller.signal,
  }).finally(() => clearTimeout(headersDue));
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  let cursor = 0;
  const stream: EventStream = {
    status: response.status,
    headers: response.headers,
    openedAt,
    events: [],
    pings: [],
    chunks: [],
    endedAt: null,
    endedHow: null,
    skip() {
      cursor = stream.events.length;
    },
    async next(name, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = stream.events.findIndex((event, i) => i >= cursor && event.event === name);
        if (index !== -1) {
          cursor = index + 1;
          return stream.events[index]!;
        }
        const names = stream.events.slice(cursor).map((event) => event.event);
        if (stream.endedAt !== null) {
          throw new Error(`the stream ended (${stream.endedHow}) before "${name}" (unread: ${names.join(", ")})`);
        }
        if (Date.now() >= deadline)
          throw new Error(`no "${name}" within ${timeoutMs} ms (unread: ${names.join(", ")})`);
        await settle(waiters, deadline - Date.now());
      }
    },
    async ended(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (stream.endedAt === null && Date.now() < deadline) await settle(waiters, deadline - Date.now());
      return stream.endedAt !== null;
    },
    close: () => controller.abort(),
  };
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => undefined);
    stream.endedAt = Date.now();
    stream.endedHow = `status ${response.status}`;
    return stream;
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          stream.endedHow = "done";
          break;
        }
        const at = Date.now();
        stream.chunks.push(at);
        buffer += value;
        let boundary = buffer.indexOf("\n\n");
        while (boundary !== -1) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          boundary = buffer.indexOf("\n\n");
          if (block.startsWith(":")) {
            stream.pings.push(at);
            continue;
          }
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event) stream.events.push({ event, data: data ? JSON.parse(data) : null, at });
        }
        wake();
      }
    } catch (error) {
      stream.endedHow = controller.signal.aborted ? "closed by the client" : String((error as Error).cause ?? error);
    }
    stream.endedAt = Date.now();
    wake();
  })();
  return stream;
}

function settle(waiters: Set<() => void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      waiters.delete(done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    waiters.add(done);
  });
}

/** p50 and max of a list of figures (ms), for the suite's output. */
export function summarise(values: number[]): { p50: number; max: number; min: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    p50: sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
    min: sorted[0] ?? Number.NaN,
  };
}
