/**
 * Keyset pagination: a page ends with an opaque cursor naming its last row's position — (created_at, id) for
 * tables ordered by time, seq for the logs. Nothing is skipped or repeated when rows arrive while someone pages.
 */
import { ADMIN_ERRORS } from "@flotilla/contracts/admin";
import { HttpProblem } from "../../plugins/errors";

export function encodeCursor(parts: (string | number)[]): string {
  return Buffer.from(JSON.stringify(parts)).toString("base64url");
}

export function decodeCursor(cursor: string | undefined, shape: ("string" | "number")[]): (string | number)[] | null {
  if (!cursor) return null;
  try {
    const parts = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as unknown;
    if (!Array.isArray(parts) || parts.length !== shape.length) throw new Error("shape");
    parts.forEach((part, index) => {
      if (typeof part !== shape[index]) throw new Error("shape");
      if (typeof part === "string" && part.length > 100) throw new Error("shape");
      if (typeof part === "number" && !Number.isSafeInteger(part)) throw new Error("shape");
    });
    return parts as (string | number)[];
  } catch {
    throw new HttpProblem(400, ADMIN_ERRORS.badCursor, "BAD_CURSOR");
  }
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A timestamptz as PostgreSQL prints it (microseconds kept, so the cursor is exact). */
export const PG_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:\d{2})?|Z)?$/;

/** Fetch limit + 1 rows; returns the page and the next cursor. */
export function pageOf<T>(rows: T[], limit: number, cursorOf: (row: T) => (string | number)[]) {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return { data, next_cursor: rows.length > limit && last ? encodeCursor(cursorOf(last)) : null };
}

export function timeCursor(cursor: string | undefined): { at: string; id: string } | null {
  const parts = decodeCursor(cursor, ["string", "string"]);
  if (!parts) return null;
  const [at, id] = parts as [string, string];
  if (!PG_TIMESTAMP.test(at) || !UUID.test(id)) throw new HttpProblem(400, ADMIN_ERRORS.badCursor, "BAD_CURSOR");
  return { at, id };
}

export function seqCursor(cursor: string | undefined): number | null {
  const parts = decodeCursor(cursor, ["number"]);
  return parts ? (parts[0] as number) : null;
}
