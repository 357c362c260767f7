/**
 * Opens the database: PostgreSQL through a pg pool when a URL is given, otherwise PGlite (embedded
 * PostgreSQL) in a data folder, or in memory for tests. Migrations are applied before the handle is returned.
 * A data folder is opened by one process at a time: its lock (db/folder-lock.ts, decision 0047) is taken before
 * PGlite touches it and released when the handle closes; a second process is refused with FolderInUseError.
 */
import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import { drizzle as drizzleNodePg } from "drizzle-orm/node-postgres";
import { migrate as migrateNodePg } from "drizzle-orm/node-postgres/migrator";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { withDeadline } from "../lib/peer-waits";
import { boundedPool, DEFAULT_POSTGRES_BOUNDS } from "./bounded-postgres";
import { type ChangeFeed, type FeedHandlers, listenForChanges } from "./change-feed";
import { type FolderLock, lockFolder } from "./folder-lock";
import { drizzleClient } from "./pglite-parsers";
import * as schema from "./schema";
import { grantServiceRole, roleOf } from "./service-role";

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
/** What `db.transaction` hands its callback: a Database whose statements run in that transaction. */
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;

export interface DatabaseHandle {
  db: Database;
  kind: "pglite" | "postgres";
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
  /** Connection pool figures (PostgreSQL), or null for the embedded database. */
  poolStats(): { total: number; idle: number; waiting: number } | null;
  /**
   * PostgreSQL: a change feed on `channel` (db/change-feed.ts), on a connection of its own. Null on the embedded
   * database: one process, nobody else to hear from.
   */
  listen(channel: string, handlers: FeedHandlers): ChangeFeed | null;
  /** Sends `payload` to every instance listening on `channel` (PostgreSQL NOTIFY); nothing on the embedded database. */
  notify(channel: string, payload: string): Promise<void>;
  /**
   * The embedded database: hears what its own triggers NOTIFY on `channel` (migration 0014); resolves to the
   * unsubscribe. Null on PostgreSQL, where `listen` hears them with everything else.
   */
  hear(channel: string, message: (payload: string) => void): Promise<() => Promise<void>> | null;
  /**
   * The embedded database: VACUUM (and ANALYZE with `analyze`), which PostgreSQL's autovacuum does on its own and
   * PGlite, one backend and no autovacuum, never does (jobs/embedded-vacuum.ts). Nothing on PostgreSQL.
   */
  vacuum(options: { analyze: boolean }): Promise<void>;
  /** Closes the pool; connections that do not close within a few seconds (a stalled server) are dropped. */
  close(): Promise<void>;
}

/** How long closing waits for the pool's connections to end politely. */
const CLOSE_TIMEOUT_MS = 2_000;

export type DatabaseOptions =
  | {
      kind: "postgres";
      url: string;
      /** The owner role: migrations run as it, then DATABASE_URL's role gets what it needs (db/service-role.ts). */
      migrationUrl?: string;
      poolSize?: number;
      /** Bounds on every wait (db/bounded-postgres.ts); DEFAULT_POSTGRES_BOUNDS when not given. */
      connectTimeoutMs?: number;
      statementTimeoutMs?: number;
    }
  | { kind: "pglite"; dataDir: string | null };

/** The SQL migrations, found beside the sources whether we run from src (tests) or from the bundle in dist. */
const MIGRATIONS_DIR = fileURLToPath(
  new URL(import.meta.url.includes("/dist/") ? "../src/db/migrations/" : "./migrations/", import.meta.url),
);
/** Serialises migrations when several instances start at once against one PostgreSQL. */
const MIGRATION_LOCK_ID = 727_001;

export interface OpenOptions {
  /** What this process is, for the lock of an embedded database folder ("the server on port 3000"). */
  holder?: string;
}

export async function openDatabase(options: DatabaseOptions, open: OpenOptions = {}): Promise<DatabaseHandle> {
  if (options.kind === "postgres") {
    const bounds = {
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_POSTGRES_BOUNDS.connectTimeoutMs,
      statementTimeoutMs: options.statementTimeoutMs ?? DEFAULT_POSTGRES_BOUNDS.statementTimeoutMs,
    };
    // Migrations on a connection of their own, without the statement timeout: waiting for another instance's
    // migrations (the advisory lock) or building an index may take longer than any request should.
    const migrator = new pg.Client({
      connectionString: options.migrationUrl ?? options.url,
      connectionTimeoutMillis: bounds.connectTimeoutMs,
    });
    migrator.on("error", () => undefined);
    await migrator.connect();
    try {
      await migrator.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
      await migrateNodePg(drizzleNodePg(migrator, { schema }), { migrationsFolder: MIGRATIONS_DIR });
      if (options.migrationUrl) await grantServiceRole(migrator, await roleOf(options.url, bounds.connectTimeoutMs));
    } finally {
      await migrator.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch(() => undefined);
      await migrator.end().catch(() => undefined);
    }
    const pool = boundedPool(options.url, options.poolSize ?? 10, bounds);
    const db = drizzleNodePg(pool, { schema }) as unknown as Database;
    return {
      db,
      kind: "postgres",
      ping: async () => {
        await pool.query("SELECT 1");
      },
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      listen: (channel, handlers) => listenForChanges(options.url, channel, handlers, bounds),
      notify: async (channel, payload) => {
        await pool.query("SELECT pg_notify($1, $2)", [channel, payload]);
      },
      hear: () => null,
      vacuum: async () => {},
      close: async () => {
        const ending = pool.end();
        await withDeadline(ending, CLOSE_TIMEOUT_MS, "PostgreSQL").catch(() => {
          // pg-pool has no public way to drop its connections: end the sockets it still holds.
          const clients = (pool as unknown as { _clients: Array<{ connection?: { stream?: { destroy(): void } } }> })
            ._clients;
          for (const client of clients) client.connection?.stream?.destroy();
        });
      },
    };
  }

  let lock: FolderLock | null = null;
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    lock = lockFolder(options.dataDir, open.holder);
  }
  // pg_trgm: the trigram indexes of the admin's signup search (migration 0007).
  const extensions = { pg_trgm };
  let client: PGlite | null = null;
  try {
    client = options.dataDir ? new PGlite(options.dataDir, { extensions }) : new PGlite({ extensions });
    // The types drizzle reads as text are the database's own parsers: drizzle's queries then go without them.
    const db = drizzlePglite(drizzleClient(client), { schema });
    await migratePglite(db, { migrationsFolder: MIGRATIONS_DIR });
    const opened = client;
    return {
      db: db as unknown as Database,
      kind: "pglite",
      ping: async () => {
        await opened.query("SELECT 1");
      },
      poolStats: () => null,
      listen: () => null,
      notify: async () => {},
      // PGlite's LISTEN takes the name as written: quoted, as the channel holds a colon.
      hear: (channel, message) => opened.listen(`"${channel.replaceAll('"', '""')}"`, message),
      // Outside any transaction (VACUUM cannot run in one): PGlite runs one statement at a time, so requests wait.
      vacuum: async ({ analyze }) => {
        await opened.exec(analyze ? "VACUUM (ANALYZE)" : "VACUUM");
      },
      close: async () => {
        try {
          await opened.close();
        } finally {
          lock?.release();
        }
      },
    };
  } catch (error) {
    await client?.close().catch(() => undefined);
    lock?.release();
    throw error;
  }
}
