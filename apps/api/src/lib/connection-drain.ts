/**
 * Draining an HTTP server without dropping a request it accepted.
 *
 * Node's `server.close()` also closes every connection that is idle at that instant — including one accepted a
 * moment ago whose request has not arrived yet, and a keep-alive connection a client is writing its next request
 * on. Those clients see a reset for a request the server accepted. Draining instead:
 *   1. stops listening (new connections are refused: a load balancer tries another instance);
 *   2. answers every request on an open connection with `Connection: close` (the caller sets that header);
 *   3. closes a connection once it has been idle for `idleGraceMs` — long enough for a request already on the
 *      wire to arrive — and waits for the rest, up to `timeoutMs`, after which what is left is cut.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";
import net from "node:net";

interface Tracked {
  active: number;
  idleSince: number;
}

export interface ConnectionDrain {
  /** Resolves when no connection is left (or the timeout cut the rest). */
  drain(options: { idleGraceMs: number; timeoutMs: number; pollMs?: number }): Promise<{ cut: number }>;
  readonly open: number;
}

export function trackConnections(server: Server): ConnectionDrain {
  const sockets = new Map<Socket, Tracked>();
  server.on("connection", (socket: Socket) => {
    sockets.set(socket, { active: 0, idleSince: Date.now() });
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("request", (request, response) => {
    const tracked = sockets.get(request.socket);
    if (!tracked) return;
    tracked.active += 1;
    response.once("close", () => {
      tracked.active -= 1;
      tracked.idleSince = Date.now();
    });
  });

  return {
    get open() {
      return sockets.size;
    },
    async drain({ idleGraceMs, timeoutMs, pollMs = 50 }) {
      // Stop listening only: net's close, not http's (which would also close "idle" connections at once).
      if (server.listening) net.Server.prototype.close.call(server);
      const deadline = Date.now() + timeoutMs;
      while (sockets.size > 0 && Date.now() < deadline) {
        const now = Date.now();
        for (const [socket, tracked] of sockets) {
          // Idle that long: nothing is on its way. Destroy, not end: a client may never close its side.
          if (tracked.active === 0 && now - tracked.idleSince >= idleGraceMs) socket.destroy();
        }
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
      const cut = sockets.size;
      for (const socket of sockets.keys()) socket.destroy();
      return { cut };
    },
  };
}
