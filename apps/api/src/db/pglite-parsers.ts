/**
 * Drizzle passes the same parsers with every query it sends PGlite: the date, time and interval types (and their
 * arrays) kept as text, which drizzle maps itself. PGlite merges a query's parsers into a copy of its own table of
 * 318 types, for every query: measured on Node 24, 65 µs of a 135 µs `select 1`, about half of a small statement's
 * cost on the embedded database (issue 35). So those parsers are made the database's own, and drizzle's queries go
 * through a client that leaves the option out when it holds nothing else: the same parse, without the copy.
 */
import { type PGlite, type Transaction, types } from "@electric-sql/pglite";

type Parser = (value: string, typeId?: number) => unknown;

/** The types drizzle keeps as text (drizzle-orm/pglite/session.js), read as drizzle reads them. */
const keptAsText = (value: string) => value;
const DRIZZLE_TEXT_PARSERS: Record<number, Parser> = {
  [types.TIMESTAMP]: keptAsText,
  [types.TIMESTAMPTZ]: keptAsText,
  [types.INTERVAL]: keptAsText,
  [types.DATE]: keptAsText,
  1231: keptAsText, // numeric[]
  1115: keptAsText, // timestamp[]
  1185: keptAsText, // timestamptz[]
  1187: keptAsText, // interval[]
  1182: keptAsText, // date[]
};

/** Whether a query's parsers only say what the database's own already do. */
function onlyTextParsers(parsers: object): boolean {
  for (const type in parsers) if (!(type in DRIZZLE_TEXT_PARSERS)) return false;
  return true;
}

type QueryOptions = Parameters<PGlite["query"]>[2];

function withoutKnownParsers(options: QueryOptions): QueryOptions {
  if (!options?.parsers || !onlyTextParsers(options.parsers)) return options;
  const { parsers: _kept, ...rest } = options;
  return rest;
}

/**
 * Makes DRIZZLE_TEXT_PARSERS the database's own. PGlite, once ready (and again when asked to refresh its array types),
 * sets a parser for every array type from its element's, which would read timestamptz[] as an array where drizzle asked
 * for text; so they are set again whenever one of them is not ours.
 */
function ownTextParsers(database: PGlite) {
  if (database.parsers[types.TIMESTAMPTZ] === keptAsText && database.parsers[1185] === keptAsText) return;
  Object.assign(database.parsers, DRIZZLE_TEXT_PARSERS);
}

/** `query` without the parsers the database already has; transactions hand out such clients too. */
function leanQueries<T extends PGlite | Transaction>(client: T, database: PGlite): T {
  return new Proxy(client, {
    get(target, name, receiver) {
      if (name === "query") {
        return (text: string, params?: unknown[], options?: QueryOptions) => {
          ownTextParsers(database);
          return target.query(text, params, withoutKnownParsers(options));
        };
      }
      if (name === "transaction" && "transaction" in target) {
        return <R>(callback: (tx: Transaction) => Promise<R>) =>
          (target as PGlite).transaction((tx) => callback(leanQueries(tx, database)));
      }
      const value = Reflect.get(target, name, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The client drizzle is given: the database's parsers read these types as text, its queries go without the copy. */
export function drizzleClient(database: PGlite): PGlite {
  return leanQueries(database, database);
}
