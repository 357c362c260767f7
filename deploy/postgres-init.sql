-- The two roles Flotilla runs with (decision 0039), for psql as a superuser, in the service's database:
--   the owner   (DATABASE_MIGRATION_URL) owns the database, its schema and every table, and runs the migrations;
--   the service (DATABASE_URL) owns nothing: at each start the owner grants it row access to every table, and on
--               audit_events only INSERT and SELECT, so it can neither change the audit log nor drop its trigger.
-- compose.yaml mounts this file into /docker-entrypoint-initdb.d/ (it runs once, on an empty data directory). On a
-- database made by an earlier deploy/ (everything owned by the superuser), run it by hand, then restart the service
-- with both URLs:
--   FLOTILLA_OWNER_PASSWORD=… FLOTILLA_SERVICE_PASSWORD=… psql -U postgres -d flotilla -f deploy/postgres-init.sql
-- Passwords come from the environment (never this file); the role names may too (FLOTILLA_OWNER_ROLE,
-- FLOTILLA_SERVICE_ROLE). Running it again changes nothing but the passwords.
\set ON_ERROR_STOP on
\set owner_role flotilla_owner
\set service_role flotilla_service
\getenv owner_role FLOTILLA_OWNER_ROLE
\getenv service_role FLOTILLA_SERVICE_ROLE
\getenv owner_password FLOTILLA_OWNER_PASSWORD
\getenv service_password FLOTILLA_SERVICE_PASSWORD
\if :{?owner_password}
\else
DO $$ BEGIN RAISE EXCEPTION 'FLOTILLA_OWNER_PASSWORD is not set'; END $$;
\endif
\if :{?service_password}
\else
DO $$ BEGIN RAISE EXCEPTION 'FLOTILLA_SERVICE_PASSWORD is not set'; END $$;
\endif

BEGIN;
SELECT format('CREATE ROLE %I', name) FROM (VALUES (:'owner_role'), (:'service_role')) AS wanted(name)
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = name) \gexec
-- Plain login roles: no superuser, no role or database creation, no bypassing row security, no shared membership.
SELECT format('ALTER ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS NOREPLICATION PASSWORD %L',
              :'owner_role', :'owner_password') \gexec
SELECT format('ALTER ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS NOREPLICATION PASSWORD %L',
              :'service_role', :'service_password') \gexec
SELECT format('REVOKE %I FROM %I', :'owner_role', :'service_role')
WHERE pg_has_role(:'service_role', :'owner_role', 'MEMBER') \gexec

-- The owner owns the database and its public schema (pg_trgm, a trusted extension, needs the database's owner).
SELECT format('ALTER DATABASE %I OWNER TO %I', current_database(), :'owner_role') \gexec
SELECT format('ALTER SCHEMA public OWNER TO %I', :'owner_role') \gexec
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
SELECT format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), :'service_role') \gexec
SELECT format('GRANT USAGE ON SCHEMA public TO %I', :'service_role') \gexec

-- An existing database: hand its tables (their sequences follow), functions and the migrations' schema to the owner.
SELECT format('ALTER TABLE %I.%I OWNER TO %I', schemaname, tablename, :'owner_role')
FROM pg_tables WHERE schemaname IN ('public', 'drizzle') AND tableowner <> :'owner_role' \gexec
SELECT format('ALTER FUNCTION %s OWNER TO %I', p.oid::regprocedure, :'owner_role')
FROM pg_proc p
WHERE p.pronamespace = 'public'::regnamespace AND p.proowner <> to_regrole(:'owner_role')
  AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e') \gexec
SELECT format('ALTER SCHEMA drizzle OWNER TO %I', :'owner_role')
WHERE EXISTS (SELECT FROM pg_namespace WHERE nspname = 'drizzle') \gexec
COMMIT;
