/**
 * Running the service as a role that cannot rewrite history (decision 0039). With DATABASE_MIGRATION_URL, migrations
 * run as the owner role, and then — on every start, so tables a new migration adds are covered — the owner grants
 * DATABASE_URL's role what the service needs: reading and writing rows, never DDL; on the audit log only INSERT and
 * SELECT (and the sequence of its `seq`). Owning nothing, that role can neither change the log nor drop or disable its
 * trigger. A role that could still change the log (it owns the table, or is a superuser) stops the start.
 */
import pg from "pg";

const AUDIT_TABLE = "audit_events";

/** The role a connection string logs in as (what the server says, not what the URL suggests). */
export async function roleOf(url: string, connectTimeoutMs: number): Promise<string> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
  client.on("error", () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ role: string }>("SELECT current_user AS role");
    return rows[0]!.role;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Run as the owner, after migrating. Idempotent. */
export async function grantServiceRole(owner: pg.ClientBase, role: string): Promise<void> {
  const grantee = pg.escapeIdentifier(role);
  await owner.query("BEGIN");
  try {
    for (const statement of [
      `GRANT USAGE ON SCHEMA public TO ${grantee}`,
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${grantee}`,
      `REVOKE TRUNCATE, REFERENCES, TRIGGER ON ALL TABLES IN SCHEMA public FROM ${grantee}`,
      `REVOKE UPDATE, DELETE ON ${AUDIT_TABLE} FROM ${grantee}`,
      // nextval() needs USAGE; UPDATE (setval) is not given.
      `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${grantee}`,
    ]) {
      await owner.query(statement);
    }
    await owner.query("COMMIT");
  } catch (error) {
    await owner.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
  const { rows } = await owner.query<{ changes: boolean }>(
    `SELECT r.rolsuper OR pg_has_role(r.oid, c.relowner, 'USAGE')
       OR has_table_privilege(r.oid, c.oid, 'UPDATE') OR has_table_privilege(r.oid, c.oid, 'DELETE')
       OR has_table_privilege(r.oid, c.oid, 'TRUNCATE') AS changes
     FROM pg_roles r, pg_class c
     WHERE r.rolname = $1 AND c.relname = '${AUDIT_TABLE}' AND c.relnamespace = 'public'::regnamespace`,
    [role],
  );
  if (rows[0]?.changes) {
    throw new Error(
      `DATABASE_URL logs in as "${role}", which may change or drop the audit log (it owns audit_events, is a member of its owner, or is a superuser). With DATABASE_MIGRATION_URL, DATABASE_URL must be a role that owns nothing: see deploy/postgres-init.sql`,
    );
  }
}
