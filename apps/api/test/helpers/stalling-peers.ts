/**
 * Peers that accept connections and then stop answering — what a failover, a frozen process or a stalled link
 * looks like from the service's side — on loopback ports 18000–18999:
 *   - `fakeRedis()`: speaks just enough RESP for the service (handshake, the rate-limit scripts, PUBLISH,
 *     SUBSCRIBE, PING); `silence()` freezes it like SIGSTOP (commands read, answers held), `resume()` thaws it;
 *   - `freezableProxy()`: a TCP proxy in front of a real server (PostgreSQL) whose `freeze()` stops every byte in
 *     both directions while keeping the connections open, and `thaw()` lets them through again;
 *   - `silentServer()`: accepts and never says a word (an SMTP server without a greeting, a webhook receiver
 *     that never answers).
 */
import net from "node:net";

const PORT_RANGE = { from: 18_000, to: 18_999 };

/** Listens on a free loopback port of the tests' range (random, retried when taken). */
export async function listenOnLoopback(server: net.Server): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from + 1));
    const listening = await new Promise<boolean>((resolve) => {
      const onError = () => resolve(false);
      server.once("error", onError);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", onError);
        resolve(true);
      });
    });
    if (listening) return port;
  }
  throw new Error("no free loopback port in 18000–18999");
}

/** Closes a server and every connection it holds. */
function closer(server: net.Server, sockets: Set<net.Socket>) {
  return () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
}

function tracked(server: net.Server): Set<net.Socket> {
  const sockets = new Set<net.Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
  });
  return sockets;
}

/** RESP arrays of bulk strings (what clients send); returns the complete commands and the unparsed rest. */
function parseCommands(buffer: Buffer): [string[][], Buffer] {
  const commands: string[][] = [];
  let at = 0;
  while (at < buffer.length) {
    const header = buffer.indexOf("\r\n", at);
    if (header < 0 || buffer[at] !== 0x2a) break;
    const count = Number(buffer.subarray(at + 1, header));
    let next = header + 2;
    const args: string[] = [];
    for (let i = 0; i < count; i++) {
      const end = buffer.indexOf("\r\n", next);
      if (end < 0) break;
      const length = Number(buffer.subarray(next + 1, end));
      if (end + 2 + length + 2 > buffer.length) break;
      args.push(buffer.subarray(end + 2, end + 2 + length).toString());
      next = end + 2 + length + 2;
    }
    if (args.length < count) break;
    commands.push(args);
    at = next;
  }
  return [commands, buffer.subarray(at)];
}

const bulk = (text: string) => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;

export interface FakeRedis {
  url: string;
  /** Every command received, answered yet or not (name in upper case first). */
  commands: string[][];
  /**
   * From now on, read every command and hold its answer — a frozen Redis (SIGSTOP): connections stay open, new ones
   * are accepted, nothing comes back.
   */
  silence(): void;
  /** Answer again, the held answers first and in order (SIGCONT). */
  resume(): void;
  close(): Promise<void>;
}

/**
 * A Redis that counts every rate-limit call as the first in its window (answers `[1, window]`), acknowledges
 * PUBLISH and SUBSCRIBE, and answers PING — until it is silenced.
 */
export async function fakeRedis(): Promise<FakeRedis> {
  let silent = false;
  const commands: string[][] = [];
  const held = new Map<net.Socket, string[]>();
  const answer = (args: string[]): string => {
    const name = (args[0] ?? "").toUpperCase();
    if (name === "INFO") return bulk("# Server\r\nloading:0\r\n");
    if (name === "PING") return "+PONG\r\n";
    if (name === "EVALSHA") return "-NOSCRIPT No matching script.\r\n";
    if (name === "EVAL") return `*2\r\n:1\r\n:${Number(args[4]) || 60_000}\r\n`;
    if (name === "PUBLISH") return ":0\r\n";
    if (name === "SUBSCRIBE") return `*3\r\n${bulk("subscribe")}${bulk(args[1] ?? "")}:1\r\n`;
    return "+OK\r\n";
  };
  const server = net.createServer((socket) => {
    let pending: Buffer = Buffer.alloc(0);
    held.set(socket, []);
    socket.on("close", () => held.delete(socket));
    socket.on("data", (chunk) => {
      const [parsed, rest] = parseCommands(Buffer.concat([pending, chunk]));
      pending = rest;
      for (const args of parsed) {
        commands.push([(args[0] ?? "").toUpperCase(), ...args.slice(1)]);
        if (silent) held.get(socket)?.push(answer(args));
        else socket.write(answer(args));
      }
    });
  });
  const sockets = tracked(server);
  const port = await listenOnLoopback(server);
  return {
    url: `redis://127.0.0.1:${port}`,
    commands,
    silence: () => {
      silent = true;
    },
    resume: () => {
      silent = false;
      for (const [socket, answers] of held) socket.write(answers.splice(0).join(""));
    },
    close: closer(server, sockets),
  };
}

export interface FreezableProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  through(url: string): string;
  /** Hold every byte, both ways, on every connection (open ones and new ones) until `thaw()`. */
  freeze(): void;
  thaw(): void;
  /** Connections currently open through the proxy. */
  readonly connections: number;
  close(): Promise<void>;
}

export async function freezableProxy(target: { host: string; port: number }): Promise<FreezableProxy> {
  let frozen = false;
  const held: Array<() => void> = [];
  /** Forwards `from` → `to`, holding chunks while frozen (in order). */
  const forward = (from: net.Socket, to: net.Socket) => {
    from.on("data", (chunk) => {
      if (frozen || held.length > 0) held.push(() => to.write(chunk));
      else to.write(chunk);
    });
    from.on("close", () => {
      if (frozen) held.push(() => to.destroy());
      else to.destroy();
    });
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    upstream.on("error", () => client.destroy());
    forward(client, upstream);
    forward(upstream, client);
  });
  const sockets = tracked(server);
  const port = await listenOnLoopback(server);
  return {
    port,
    through(url) {
      const parsed = new URL(url);
      parsed.hostname = "127.0.0.1";
      parsed.port = String(port);
      return parsed.toString();
    },
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const release of held.splice(0)) release();
    },
    get connections() {
      return sockets.size;
    },
    close: closer(server, sockets),
  };
}

/** Accepts connections and never writes a byte. */
export async function silentServer(): Promise<{ port: number; accepted: () => number; close(): Promise<void> }> {
  let accepted = 0;
  const server = net.createServer(() => {
    accepted += 1;
  });
  const sockets = tracked(server);
  const port = await listenOnLoopback(server);
  return { port, accepted: () => accepted, close: closer(server, sockets) };
}

/** Resolves with `work`'s result, or with "no answer" when it takes longer than `ms` (the test then fails on it). */
export async function within<T>(ms: number, work: Promise<T>): Promise<T | "no answer"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"no answer">((resolve) => {
    timer = setTimeout(() => resolve("no answer"), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
