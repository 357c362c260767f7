/**
 * The dashboard's live updates (decision 0049): one event stream per tab from GET /api/customer/events. The stream
 * carries notices, never data: on each one the portal re-reads its queries through the usual authorised endpoints.
 * EventSource cannot send the bearer token, so this reads the stream with fetch. When the stream is unavailable the
 * dashboard is exactly what it was before: the refresh button re-reads on demand, and the stream is retried with a
 * growing pause — at least the Retry-After of an instance that is full (503) or a rate limit (429), spread by up to
 * half as much again so that the tabs it refused at once do not all return in the same second (decision 0049).
 */
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { readStoredToken } from "../../lib/token-storage";
import { confirmSessionEnded, probeServer, usePortalSession } from "../portal/portal-root";

export const LIVE_EVENTS_PATH = "/api/customer/events";
/** First pause before reconnecting; doubled after each failure, up to the maximum. */
export const RECONNECT_BASE_MS = 2_000;
export const RECONNECT_MAX_MS = 60_000;
/** A stream silent longer than this (the server pings every 15 s) is treated as lost: a frozen proxy looks like this. */
export const SILENCE_LIMIT_MS = 45_000;
/** A server's Retry-After is stretched by up to this fraction, at random. */
const RETRY_AFTER_SPREAD = 0.5;

export type LiveState = "connecting" | "live" | "paused";

export interface LiveHandlers {
  /** Re-read: a license changed, the stream (re)connected, or the server's channel had a gap. */
  refresh(): void;
  state(state: LiveState): void;
  /** The session has ended elsewhere: stop, and let the app find out. */
  signedOut(): void;
  /** Whether the server answered the stream's request (any status), or did not answer at all. */
  reached?(outcome: "answered" | "unreachable"): void;
}

type Outcome = "stop" | "failed" | "dropped-after-ready" | { retryAfterMs: number };

/** Retry-After in seconds (the service sends seconds), within the longest pause; null when absent or not a number. */
function retryAfterMs(response: Response): number | null {
  const seconds = Number(response.headers.get("retry-after") ?? Number.NaN);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, RECONNECT_MAX_MS) : null;
}

interface ServerEvent {
  event: string;
  data: string;
}

/** Splits an event-stream into events (comments and fields other than event/data are skipped). */
export function parseEvents(buffer: string): { events: ServerEvent[]; rest: string } {
  const events: ServerEvent[] = [];
  const normalised = buffer.replace(/\r\n?/g, "\n");
  const blocks = normalised.split("\n\n");
  const rest = blocks.pop() ?? "";
  for (const block of blocks) {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith(":") || line === "") continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    events.push({ event, data: data.join("\n") });
  }
  return { events, rest };
}

/**
 * Keeps a stream open while `signal` is not aborted, reconnecting with backoff. Resolves when stopped (aborted,
 * signed out, or replaced by the customer's newer tabs).
 */
export async function followLiveEvents(handlers: LiveHandlers, signal: AbortSignal, fetcher: typeof fetch = fetch) {
  let failures = 0;
  while (!signal.aborted) {
    handlers.state(failures === 0 ? "connecting" : "paused");
    const outcome = await readOnce(handlers, signal, fetcher);
    if (outcome === "stop" || signal.aborted) return;
    failures = outcome === "dropped-after-ready" ? 1 : failures + 1;
    handlers.state("paused");
    const backoff = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** (failures - 1));
    const asked = typeof outcome === "object" ? outcome.retryAfterMs * (1 + Math.random() * RETRY_AFTER_SPREAD) : 0;
    const pause = Math.max(backoff, asked);
    await pauseBeforeReconnect(offline() ? Number.POSITIVE_INFINITY : pause, signal);
  }
}

function offline(): boolean {
  return typeof navigator !== "undefined" && navigator.onLine === false;
}

/**
 * Waits `ms` before the next attempt; offline, waits for the network instead, and the network's return ends any
 * pause at once (the person is looking at a page that says it is reconnecting).
 */
function pauseBeforeReconnect(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      window.removeEventListener("online", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    window.addEventListener("online", done);
    signal.addEventListener("abort", done, { once: true });
  });
}

async function readOnce(handlers: LiveHandlers, signal: AbortSignal, fetcher: typeof fetch): Promise<Outcome> {
  const token = readStoredToken();
  if (!token) return "stop";
  const attempt = new AbortController();
  const stopAttempt = () => attempt.abort();
  signal.addEventListener("abort", stopAttempt, { once: true });
  // A stream over a network that is gone stays silent rather than failing: drop it the moment the browser knows.
  window.addEventListener("offline", stopAttempt);
  let silence: ReturnType<typeof setTimeout> | undefined;
  const heard = () => {
    clearTimeout(silence);
    silence = setTimeout(stopAttempt, SILENCE_LIMIT_MS);
  };
  let ready = false;
  try {
    heard();
    const response = await fetcher(LIVE_EVENTS_PATH, {
      headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
      signal: attempt.signal,
      cache: "no-store",
    }).catch((error: unknown) => {
      if (!attempt.signal.aborted) handlers.reached?.("unreachable");
      throw error;
    });
    // A gateway's 502-504 is an instance that is down, not an answer from the service.
    handlers.reached?.(response.status >= 502 && response.status <= 504 ? "unreachable" : "answered");
    if (response.status === 401) {
      handlers.signedOut();
      return "stop";
    }
    if (!response.ok || !response.body) {
      // A full instance (503) or a rate limit (429) says when to come back.
      const wait = response.status === 503 || response.status === 429 ? retryAfterMs(response) : null;
      return wait === null ? "failed" : { retryAfterMs: wait };
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    // Stopping (or silence) cancels the read itself: a body need not be tied to the request's signal.
    attempt.signal.addEventListener("abort", () => void reader.cancel().catch(() => undefined), { once: true });
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      heard();
      const parsed = parseEvents(buffer + value);
      buffer = parsed.rest;
      for (const { event } of parsed.events) {
        if (event === "ready") {
          ready = true;
          handlers.state("live");
          handlers.refresh();
        } else if (event === "license" || event === "resync") {
          handlers.refresh();
        } else if (event === "signed-out") {
          handlers.signedOut();
          return "stop";
        } else if (event === "replaced") {
          // The customer opened more tabs than the server keeps streams for: this one falls back to refresh.
          return "stop";
        }
      }
    }
  } catch {
    // A network failure, an abort, or silence past the limit: reconnect (unless stopped).
  } finally {
    clearTimeout(silence);
    signal.removeEventListener("abort", stopAttempt);
    window.removeEventListener("offline", stopAttempt);
  }
  return ready ? "dropped-after-ready" : "failed";
}

/**
 * Follows the stream while mounted, re-reading every portal query on each notice; returns the stream's state. What
 * it learns of the server and the session goes to the portal's session (decision 0055).
 */
export function useLiveUpdates(): LiveState {
  const queryClient = useQueryClient();
  const { session } = usePortalSession();
  const [state, setState] = useState<LiveState>("connecting");
  useEffect(() => {
    const stop = new AbortController();
    void followLiveEvents(
      {
        refresh: () => void queryClient.invalidateQueries(),
        state: setState,
        signedOut: () => void confirmSessionEnded(session),
        // The stream failing alone proves little (a proxy may refuse streams): the health probe decides.
        reached: (outcome) => (outcome === "answered" ? session.noteOutcome(outcome) : void probeServer(session)),
      },
      stop.signal,
    ).then(() => {
      // Stopped for good (signed out, or replaced by the customer's newer tabs): refresh on demand from here.
      if (!stop.signal.aborted) setState("paused");
    });
    return () => stop.abort();
  }, [queryClient, session]);
  return state;
}
