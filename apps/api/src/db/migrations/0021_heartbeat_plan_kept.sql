-- Issue 35: a live lease's heartbeat (keepAliveMany in execution-leases.ts) as a PL/pgSQL function, so that its
-- statement is planned once per connection and its plan kept, not planned again for every batch. Planning the
-- statement took 0.47 ms of its 0.87 ms on the embedded database, where PGlite runs on the service's own thread;
-- the call costs 0.5 ms there (measured on 1 and 4 leases). The statement is the one decision 0057 describes: the
-- leases asked for that have not ended, have not been stopped, have not expired and whose binding still holds a slot,
-- taken FOR NO KEY UPDATE SKIP LOCKED in id order, extended, and returned with their license's leases that hold a slot.
-- Names inside are unlike the output columns (lease, running), which PL/pgSQL would take for its own variables.
CREATE FUNCTION keep_alive_leases(
  asked_ids uuid[], asked_license_ids uuid[], asked_machine_ids text[], expires_after_seconds integer
) RETURNS TABLE (lease execution_leases, running integer)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RETURN QUERY
  WITH asked AS (
    SELECT * FROM unnest(asked_ids, asked_license_ids, asked_machine_ids) AS a(id, license_id, machine_id)
  ), live AS (
    SELECT l.id FROM execution_leases l
    JOIN asked ON l.id = asked.id AND l.license_id = asked.license_id AND l.machine_id = asked.machine_id
    WHERE l.ended_at IS NULL AND l.stop_requested_at IS NULL AND l.expires_at > clock_timestamp()
      AND EXISTS (SELECT 1 FROM machines m WHERE m.id = l.machine_ref AND m.status = 'active')
    ORDER BY l.id
    FOR NO KEY UPDATE OF l SKIP LOCKED
  )
  UPDATE execution_leases l
  SET last_heartbeat_at = clock_timestamp(),
      expires_at = clock_timestamp() + make_interval(secs => expires_after_seconds)
  FROM live
  WHERE l.id = live.id
  RETURNING l, (
    SELECT count(*)::integer FROM execution_leases held
    WHERE held.license_id = l.license_id AND held.ended_at IS NULL AND held.expires_at > clock_timestamp()
  );
END
$$;
