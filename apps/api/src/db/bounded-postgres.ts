/**
 * PostgreSQL connections whose every wait is bounded (decision 0037):
 *   - acquiring a pool connection, or opening one, takes at most `connectTimeoutMs` (pg-pool
 *     `connectionTimeoutMillis`: the waiter gets an error, the half-open connection is destroyed);
 *   - the server ends a statement that runs longer than `statementTimeoutMs` (`statement_timeout`, error 57014, the
 *     connection stays usable) and a session idle inside a transaction that long
 *     (`idle_in_transaction_session_timeout`: so a transaction whose client vanished does not hold its locks);
 *   - a statement that gets no answer at all — a frozen server, a stalled link, where the server's own timeout
 *     cannot reach us — is abandoned ANSWER_GRACE_MS after that, and its connection destroyed.
 *
 * Why not pg's own `query_timeout`: on a timeout it fails the query but keeps the connection, still waiting for the
 * old answer, and returns it to the pool. Inside a transaction, the ROLLBACK then queues behind the stalled statement,
 * times out in turn, and drizzle releases the connection still inside the transaction: its next user would run,
 * and commit, in the middle of someone else's half-done transaction. Destroying the connection instead fails every
 * statement queued on it, the pool discards it, and the server rolls the transaction back when the connection
 * closes (or when `idle_in_transaction_session_timeout` fires, whichever comes first).
 */
import pg from "pg";
import { PeerTimeoutError } from "../lib/peer-waits";

/** How long after the server's statement timeout a statement with no answer at all is abandoned. */
export const ANSWER_GRACE_MS = 1_000;

export interface PostgresBounds {
  connectTimeoutMs: number;
  statementTimeoutMs: number;
}

/** The defaults of DATABASE_CONNECT_TIMEOUT_MS and DATABASE_STATEMENT_TIMEOUT_MS (config.ts). */
export const DEFAULT_POSTGRES_BOUNDS: PostgresBounds = { connectTimeoutMs: 2_000, statementTimeoutMs: 5_000 };

/** A pg Client class whose queries fail, and whose connection is closed, when no answer comes within `answerMs`. */
export function boundedClient(answerMs: number): typeof pg.Client {
  return class BoundedClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      // A connection that dies while checked out (a transaction holds it) reports to its queries; the 'error' event
      // would otherwise have no listener and end the process.
      this.on("error", () => undefined);
    }

    // biome-ignore lint/suspicious/noExplicitAny: forwards every overload of pg's query().
    override query(...args: any[]): any {
      const last = args.length - 1;
      if (typeof args[0]?.submit === "function" && typeof args[last] !== "function") {
        return (super.query as (...a: unknown[]) => unknown)(...args); // a stream: bounded by its reader
      }
      const timer = setTimeout(() => this.abandon(answerMs), answerMs);
      timer.unref();
      if (typeof args[last] === "function") {
        const callback = args[last] as (...results: unknown[]) => void;
        args[last] = (...results: unknown[]) => {
          clearTimeout(timer);
          callback(...results);
        };
        return (super.query as (...a: unknown[]) => unknown)(...args);
      }
      const result = (super.query as (...a: unknown[]) => unknown)(...args);
      if (result && typeof (result as Promise<unknown>).finally === "function") {
        return (result as Promise<unknown>).finally(() => clearTimeout(timer));
      }
      clearTimeout(timer);
      return result;
    }

    /** Fails every query on this connection with a timeout and closes it (the pool then discards it). */
    private abandon(ms: number) {
      const connection = (this as unknown as { connection?: { stream?: { destroy(error?: Error): void } } }).connection;
      connection?.stream?.destroy(new PeerTimeoutError("PostgreSQL", ms));
    }
  };
}

/** The pool every request uses, with the bounds above. */
export function boundedPool(url: string, max: number, bounds: PostgresBounds): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    connectionTimeoutMillis: bounds.connectTimeoutMs,
    statement_timeout: bounds.statementTimeoutMs,
    idle_in_transaction_session_timeout: bounds.statementTimeoutMs,
    // The kernel notices a peer that vanished without a word on idle connections too.
    keepAlive: true,
    Client: boundedClient(bounds.statementTimeoutMs + ANSWER_GRACE_MS),
  });
  pool.on("error", () => {
    // An idle client lost its connection; the pool replaces it on next use.
  });
  return pool;
}
