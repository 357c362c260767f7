-- Issue 35: the whole seat lock of seat-lock.ts in one round trip and one kept plan. lock_license_seats takes, in the
-- lock order every locker uses: the license row FOR NO KEY UPDATE; then its machine rows in id order; then its open
-- execution leases in id order; and reads the clock only once they are held. It returns the license row as locked and
-- that clock, or no row when the license is gone. PL/pgSQL keeps the plans of its statements per connection (a SQL
-- function is planned at every call). PERFORM runs its query to the end, so every row it reads is locked.
-- lock_license_slots (0020) stays for instances of the previous release during a rolling deploy.
CREATE FUNCTION lock_license_seats(locked_license uuid) RETURNS TABLE (license licenses, now timestamptz)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  locked_row licenses;
BEGIN
  SELECT * INTO locked_row FROM licenses WHERE id = locked_license FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  PERFORM 1 FROM machines WHERE license_id = locked_license ORDER BY id FOR UPDATE;
  PERFORM 1 FROM execution_leases WHERE license_id = locked_license AND ended_at IS NULL ORDER BY id FOR UPDATE;
  RETURN QUERY SELECT locked_row, clock_timestamp();
END
$$;
