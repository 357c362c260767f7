/**
 * An answer given before the request's body has all arrived (413 over BODY_LIMIT, 415, a refused Content-Encoding)
 * must reach a client that is still writing that body.
 *
 * Fastify refuses an oversized body at once — from its Content-Length, or as soon as the count passes the limit — and
 * marks the answer `Connection: close`; Node then destroys the socket the moment the answer is written. The rest of
 * the body arrives at a closed socket, the kernel answers it with a reset, and the client's next write fails (EPIPE,
 * ECONNRESET): a client that reads the answer only after writing its request, or whose failed write is noticed first,
 * never sees the 413. Without `Connection: close` (a 415), Node reads and discards the rest instead, without any
 * bound: a body that never ends is read for ever.
 *
 * Here, the answer is written at once (a client reading while it writes sees it straight away), but it is ended —
 * which is when Node closes the connection, or makes it ready for the next request — only once the rest of the body
 * has been read and discarded: up to `maxBytes`, with no pause longer than `idleMs` and for `totalMs` at most. Past
 * any bound the connection is cut: a client that never stops sending has had its answer for that long. What is read
 * is only counted: never buffered, never decompressed (a compressed body stops feeding its decompressor here).
 */
import type { IncomingMessage, ServerResponse } from "node:http";

export interface RefusedBodyBounds {
  /** Bytes of the rest of the body read and discarded at most. */
  maxBytes: number;
  /** The longest silence from a client still sending its body. */
  idleMs: number;
  /** The longest the rest of the body is read for. */
  totalMs: number;
}

/** Well above any body a client would send by mistake (10 MB is tested); nginx lingers 30 s with 5 s pauses, too. */
export const REFUSED_BODY_DRAIN: RefusedBodyBounds = { maxBytes: 16 * 1024 * 1024, idleMs: 5_000, totalMs: 30_000 };

const draining = new WeakSet<IncomingMessage>();

type End = ServerResponse["end"];

/**
 * Call before answering: when the request's body is still arriving, the answer's end waits for the rest of it (read
 * and discarded within `bounds`). A request whose body has all arrived (or one made by `app.inject`, which has no
 * `complete`) is left alone.
 */
export function answerBeforeBody(
  request: IncomingMessage,
  response: ServerResponse,
  bounds: RefusedBodyBounds = REFUSED_BODY_DRAIN,
): void {
  if (request.complete !== false || request.destroyed || draining.has(request)) return;
  draining.add(request);
  const socket = request.socket;
  const originalEnd = response.end;
  let arrived = false;
  let finish: (() => void) | null = null;
  let read = 0;

  const settle = () => {
    clearTimeout(idle);
    clearTimeout(total);
    request.off("data", count);
    request.off("end", onEnd);
    request.off("close", onClose);
  };
  const cut = () => {
    settle();
    socket.destroy();
    finish?.();
  };
  function count(chunk: Buffer) {
    read += chunk.length;
    if (read > bounds.maxBytes) cut();
    else idle.refresh();
  }
  function onEnd() {
    arrived = true;
    settle();
    finish?.();
  }
  /** The client went away (or the connection was cut): nothing more to wait for. */
  function onClose() {
    settle();
    finish?.();
  }
  const idle = setTimeout(cut, bounds.idleMs).unref();
  const total = setTimeout(cut, bounds.totalMs).unref();

  // @fastify/compress pipes the request into a decompressor: stop that, so the rest is counted, never inflated.
  request.unpipe();
  request.on("data", count);
  request.once("end", onEnd);
  request.once("close", onClose);
  request.resume();

  response.end = function endOnceTheBodyIsIn(this: ServerResponse, ...args: unknown[]) {
    let [chunk, encoding, callback] = args;
    if (typeof chunk === "function") [chunk, callback] = [undefined, chunk];
    else if (typeof encoding === "function") [encoding, callback] = [undefined, encoding];
    // The answer goes out now, complete (Fastify gives it a Content-Length); only its end waits.
    if (chunk !== undefined && chunk !== null)
      response.write(chunk as string | Buffer, (encoding ?? "utf8") as BufferEncoding);
    else response.flushHeaders();
    response.end = originalEnd;
    finish = () => {
      finish = null;
      (originalEnd as (callback?: () => void) => ServerResponse).call(response, callback as (() => void) | undefined);
    };
    if (arrived || request.destroyed || socket.destroyed) finish();
    return response;
  } as End;
}
