-- Security review (decision 0053): the append-only audit log is pseudonymous by construction. It names admins and
-- admin grants by id, never by address; it keeps no text shaped like an email address anywhere; and of a request's
-- network address it keeps the network only (IPv4 /24, IPv6 /48). recordEvent (modules/events/pseudonymous.ts)
-- writes new rows that way; this migration rewrites the rows written before, with the same rules in SQL.
--
-- The trigger refuses every UPDATE (migration 0009). This migration, run once by the table's owner inside the
-- migrator's transaction, switches that trigger off for its own UPDATE and on again before it commits: a failure
-- rolls all of it back, trigger state included. The service role owns nothing and still can do neither (decision
-- 0039): this is not a hatch, it is a reviewed migration that runs once.

-- Admin grants get an id: the log names a grant by it (the address stays in `admins` while the grant exists).
ALTER TABLE "admins" ADD COLUMN "id" uuid DEFAULT gen_random_uuid() NOT NULL;
--> statement-breakpoint
CREATE UNIQUE INDEX "admins_id_key" ON "admins" USING btree ("id");
--> statement-breakpoint

-- The pattern of packages/contracts/src/email.ts (EMAIL_WITHIN): whatever the service would accept as an address.
-- A before/after value without the fields that name a person (PERSONAL_FIELDS) or any string holding an address.
CREATE FUNCTION "audit_0012_scrub"(value jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  pattern constant text := '[^[:space:]@]+@[^[:space:]@]+\.[^[:space:]@]+';
  result jsonb;
  field text;
  item jsonb;
BEGIN
  IF value IS NULL THEN
    RETURN NULL;
  END IF;
  CASE jsonb_typeof(value)
  WHEN 'object' THEN
    result := '{}'::jsonb;
    FOR field, item IN SELECT key, entry FROM jsonb_each(value) AS e(key, entry) LOOP
      CONTINUE WHEN field IN ('email', 'name', 'company', 'machine_name', 'avatar_url');
      CONTINUE WHEN jsonb_typeof(item) = 'string' AND (item #>> '{}') ~ pattern;
      result := result || jsonb_build_object(field, "audit_0012_scrub"(item));
    END LOOP;
    RETURN result;
  WHEN 'array' THEN
    SELECT coalesce(jsonb_agg("audit_0012_scrub"(entry) ORDER BY position), '[]'::jsonb) INTO result
      FROM jsonb_array_elements(value) WITH ORDINALITY AS e(entry, position)
      WHERE NOT (jsonb_typeof(entry) = 'string' AND (entry #>> '{}') ~ pattern);
    RETURN result;
  WHEN 'string' THEN
    IF (value #>> '{}') ~ pattern THEN
      RETURN NULL;
    END IF;
    RETURN value;
  ELSE
    RETURN value;
  END CASE;
END
$$;
--> statement-breakpoint

-- Text with every address replaced by the mark recordEvent writes (REDACTED).
CREATE FUNCTION "audit_0012_redact"(value text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT regexp_replace(value, '[^[:space:]@]+@[^[:space:]@]+\.[^[:space:]@]+', '[email removed]', 'g')
$$;
--> statement-breakpoint

-- A request's network as recordEvent writes it (auditNetwork): IPv4 /24 (IPv4-mapped IPv6 counts as IPv4), IPv6
-- /48, PostgreSQL's cidr text; anything that is not an address becomes null.
CREATE FUNCTION "audit_0012_network"(address text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  value text := btrim(address);
  parsed inet;
BEGIN
  IF value IS NULL OR value = '' OR value LIKE '%/%' THEN
    RETURN NULL;
  END IF;
  value := regexp_replace(value, '%.*$', '');
  IF value ~* '^::ffff:[0-9]{1,3}(\.[0-9]{1,3}){3}$' THEN
    value := substr(value, 8);
  END IF;
  BEGIN
    parsed := value::inet;
  EXCEPTION WHEN others THEN
    RETURN NULL;
  END;
  RETURN network(set_masklen(parsed, CASE family(parsed) WHEN 4 THEN 24 ELSE 48 END))::text;
END
$$;
--> statement-breakpoint

-- One pseudonym per address that was an admin target: the grant's id while it exists, else a fresh one, so a grant
-- and its revocation still share a target.
CREATE TEMPORARY TABLE "audit_0012_admin_targets" AS
  SELECT targets.address, coalesce(admins.id, gen_random_uuid()) AS id
  FROM (SELECT DISTINCT lower(btrim(target_id)) AS address FROM audit_events WHERE target_type = 'admin') AS targets
  LEFT JOIN admins ON admins.email_normalized = targets.address;
--> statement-breakpoint

ALTER TABLE "audit_events" DISABLE TRIGGER "audit_events_no_change";
--> statement-breakpoint
UPDATE "audit_events" AS event SET
  target_id = coalesce(
    (SELECT pseudonym.id::text FROM "audit_0012_admin_targets" AS pseudonym
      WHERE event.target_type = 'admin' AND pseudonym.address = lower(btrim(event.target_id))),
    "audit_0012_redact"(event.target_id)
  ),
  actor_id = "audit_0012_redact"(event.actor_id),
  actor_email = NULL,
  before = "audit_0012_scrub"(event.before),
  after = "audit_0012_scrub"(event.after),
  reason = "audit_0012_redact"(event.reason),
  address = "audit_0012_network"(event.address);
--> statement-breakpoint
ALTER TABLE "audit_events" ENABLE TRIGGER "audit_events_no_change";
--> statement-breakpoint

-- Admins are named by id (actor_id) only: the column that held their address goes.
ALTER TABLE "audit_events" DROP COLUMN "actor_email";
--> statement-breakpoint
DROP TABLE "audit_0012_admin_targets";
--> statement-breakpoint
DROP FUNCTION "audit_0012_scrub"(jsonb);
--> statement-breakpoint
DROP FUNCTION "audit_0012_redact"(text);
--> statement-breakpoint
DROP FUNCTION "audit_0012_network"(text);
