-- Decision 0057: the seat lock's machine and lease rows, and the clock, in one round trip. The statements of a SQL
-- function run in order, so the lock order of seat-lock.ts holds (the license row first, taken by the caller; then
-- its machine rows in id order; then its open execution leases in id order; the clock only once they are held).
CREATE FUNCTION lock_license_slots(locked_license uuid) RETURNS timestamptz
LANGUAGE sql VOLATILE AS $$
  SELECT count(*) FROM (SELECT id FROM machines WHERE license_id = locked_license ORDER BY id FOR UPDATE) AS m;
  SELECT count(*) FROM (
    SELECT id FROM execution_leases WHERE license_id = locked_license AND ended_at IS NULL ORDER BY id FOR UPDATE
  ) AS e;
  SELECT clock_timestamp();
$$;
