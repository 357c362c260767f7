-- Issue 22 (launch review 2): the append-only audit log keeps no escape hatch. 0006 let a transaction that ran
-- SET LOCAL flotilla.audit_retention = 'on' delete rows; no job ever did (retention keeps the audit log). Now every
-- UPDATE, DELETE and TRUNCATE is refused, whatever the session says. Dropping or disabling the trigger needs the
-- table's owner: the service can run as a role that only INSERTs and SELECTs here (db/service-role.ts, decision
-- 0039). A retention job, if one is ever needed, comes with its own migration and role.
CREATE OR REPLACE FUNCTION "audit_events_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
