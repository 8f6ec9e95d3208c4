-- Connection shares of the delivery governor (core/sending/connections.ts): a relay's
-- max_connections (and a provider's) over every sender process on the database. Each process holds a lease row with
-- the connections it may use, renewed every second; a process's share is the fair part of the limit (rounded up) but
-- never more than what the others leave. A process records at least what it has open, so while it shrinks the others
-- wait for it; an expired lease (a stopped process) is dropped.
CREATE OR REPLACE FUNCTION share_connections(p_key text, p_holder text, p_max int, p_open int, p_ttl_ms int)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  v_holders int;
  v_others int;
  v_mine int;
BEGIN
  -- One process at a time per key: each statement below then sees the others' committed leases.
  PERFORM pg_advisory_xact_lock(hashtext('share_connections:' || p_key));
  DELETE FROM connection_shares WHERE key = p_key AND expires_at < clock_timestamp();
  SELECT count(*) FILTER (WHERE holder <> p_holder) + 1, coalesce(sum(slots) FILTER (WHERE holder <> p_holder), 0)
    INTO v_holders, v_others
    FROM connection_shares WHERE key = p_key;
  v_mine := greatest(0, least(ceil(p_max::numeric / v_holders)::int, p_max - v_others));
  INSERT INTO connection_shares AS c (key, holder, slots, expires_at)
       VALUES (p_key, p_holder, greatest(v_mine, p_open), clock_timestamp() + make_interval(secs => p_ttl_ms / 1000.0))
  ON CONFLICT (key, holder) DO UPDATE SET slots = excluded.slots, expires_at = excluded.expires_at;
  RETURN v_mine;
END
$$;
