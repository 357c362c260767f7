/**
 * The newest rows of the audit log that match any of several conditions (decision 0058). `a OR b ORDER BY seq DESC
 * LIMIT n` is answered by neither index: PostgreSQL reads every row of both and sorts them, a cost that grows with the
 * log (the customer's activity took 1.75 s on the large seed). Here each condition is its own branch, read newest first
 * from its own (column, seq) index and cut at n; the union of the branches holds the n newest of the whole, so each
 * branch reads at most n index entries, however large the log.
 */
import { and, type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/client";
import { auditEvents } from "../../db/schema";

/** The query behind newestAuditSeqs: the `seq` column of the `limit` newest matching rows (EXPLAIN in the tests). */
export function newestAuditQuery(branches: SQL[], common: SQL | undefined, limit: number): SQL {
  const t = auditEvents;
  const parts = branches.map(
    (branch) => sql`(select ${t.seq} from ${t} where ${and(branch, common)} order by ${t.seq} desc limit ${limit})`,
  );
  return sql`select seq from (${sql.join(parts, sql` union `)}) as hits order by seq desc limit ${limit}`;
}

/** The `seq` of the `limit` newest audit rows matching `common` and any one of `branches`, newest first. */
export async function newestAuditSeqs(
  db: Pick<Database, "execute">,
  branches: SQL[],
  common: SQL | undefined,
  limit: number,
): Promise<number[]> {
  if (branches.length === 0) return [];
  const result = (await db.execute(newestAuditQuery(branches, common, limit))) as unknown as {
    rows: { seq: string | number }[];
  };
  return result.rows.map((row) => Number(row.seq));
}
