-- events_ensure_partitions(first_month, last_month): the monthly partitions of events (events_yYYYYmMM, bounds at
-- midnight UTC) from the month of first_month to the month of last_month that are missing are made
-- (core/events/partitions.ts). Rows of such a month already in events_default (an event dated beyond the partitions
-- made so far) are moved into the new month's table before it is attached; statement triggers are the parent's, so the
-- move counts nothing twice. Returns how many partitions were made.
CREATE OR REPLACE FUNCTION events_ensure_partitions(first_month date, last_month date) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  m date := date_trunc('month', first_month)::date;
  lo timestamptz;
  hi timestamptz;
  part text;
  made int := 0;
BEGIN
  WHILE m <= last_month LOOP
    part := 'events_y' || to_char(m, 'YYYY') || 'm' || to_char(m, 'MM');
    lo := m::timestamp AT TIME ZONE 'UTC';
    hi := (m + interval '1 month')::timestamp AT TIME ZONE 'UTC';
    IF to_regclass(part) IS NULL THEN
      IF EXISTS (SELECT 1 FROM events_default WHERE emitted_at >= lo AND emitted_at < hi) THEN
        EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS)', part);
        EXECUTE format('WITH moved AS (DELETE FROM events_default WHERE emitted_at >= %L AND emitted_at < %L RETURNING *) INSERT INTO %I SELECT * FROM moved', lo, hi, part);
        EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
      ELSE
        EXECUTE format('CREATE TABLE %I PARTITION OF events FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
      END IF;
      made := made + 1;
    END IF;
    m := (m + interval '1 month')::date;
  END LOOP;
  RETURN made;
END $$;
