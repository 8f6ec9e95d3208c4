-- Per-contact send, open and click counts (contact_event_counts), kept by statement triggers on events (spec part 2 §5 segment filters on counts).
-- The current definition of each function below; applied at every start after the migrations (src/server/db/functions.ts),
-- so a change is made here, once. Migrations keep the tables, indexes and triggers (DDL).

-- The contact counts trigger of inserts, as static SQL (its plan is kept for the session): the dynamic statement of
-- migration 0006 was planned again for every insert into events, about 0.75 ms of PostgreSQL time per statement (of
-- 1.6 ms in all for an 11-event sent-mark statement). The same arithmetic; updates and deletes keep the dynamic one.
-- Inserts also keep the audience policies' clock (core/audience/policies.ts): the latest human open or click
-- (last_engaged_at), the broadcast stream's emails sent since it (not test emails) and when the first of them went
-- (sends_since_engaged, unengaged_since: the sunset policy), and the human opens by UTC hour (open_hours, 24 counts: send-time optimisation). A statement's
-- engagement newer than the one kept restarts the clock with the statement's sends after it.
CREATE OR REPLACE FUNCTION events_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO contact_event_counts AS k (contact_id, project_id, num_sends, num_opens, num_clicks, num_human_opens, num_human_clicks,
                                         last_engaged_at, sends_since_engaged, unengaged_since, open_hours)
  SELECT id, project_id, sends, opens, clicks, human_opens, human_clicks, engaged, sends_after, first_after,
         CASE WHEN hours IS NOT NULL THEN ARRAY(SELECT count(x) FILTER (WHERE x = i)::int FROM generate_series(0, 23) i LEFT JOIN unnest(hours) x ON x = i GROUP BY i ORDER BY i) END
    FROM (
      SELECT c.id, c.project_id,
             count(*) FILTER (WHERE r.name = 'email_send_result_success')::int AS sends,
             count(*) FILTER (WHERE r.name = 'ses_event_open')::int AS opens,
             count(*) FILTER (WHERE r.name = 'ses_event_click')::int AS clicks,
             count(*) FILTER (WHERE r.name = 'ses_event_open' AND r.human)::int AS human_opens,
             count(*) FILTER (WHERE r.name = 'ses_event_click' AND r.human)::int AS human_clicks,
             max(r.engaged) AS engaged,
             count(*) FILTER (WHERE r.clock_send AND r.emitted_at > coalesce(r.engaged, '-infinity'))::int AS sends_after,
             min(r.emitted_at) FILTER (WHERE r.clock_send AND r.emitted_at > coalesce(r.engaged, '-infinity')) AS first_after,
             array_agg(extract(hour FROM r.emitted_at AT TIME ZONE 'UTC')::int) FILTER (WHERE r.name = 'ses_event_open' AND r.human) AS hours
        FROM (SELECT e.*, e.name <> 'email_send_result_success' AND event_is_human(e.json) AS human,
                     -- The sunset clock counts the broadcast stream's emails (a sent event without a "stream"), not test emails.
                     e.name = 'email_send_result_success' AND NOT (e.json ? 'stream') AND NOT coalesce(e.json @> '{"is_test_email": true}', false) AS clock_send,
                     max(e.emitted_at) FILTER (WHERE e.name <> 'email_send_result_success' AND event_is_human(e.json)) OVER (PARTITION BY e.user_id) AS engaged
                FROM new_events e
               WHERE e.is_system AND e.name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click')) r
        JOIN contacts c ON c.id = r.user_id AND c.project_id = r.project_id
       GROUP BY c.id, c.project_id) s
   ORDER BY id
  ON CONFLICT (contact_id) DO UPDATE SET num_sends = k.num_sends + EXCLUDED.num_sends,
    num_opens = k.num_opens + EXCLUDED.num_opens, num_clicks = k.num_clicks + EXCLUDED.num_clicks,
    num_human_opens = k.num_human_opens + EXCLUDED.num_human_opens, num_human_clicks = k.num_human_clicks + EXCLUDED.num_human_clicks,
    last_engaged_at = greatest(k.last_engaged_at, EXCLUDED.last_engaged_at),
    sends_since_engaged = CASE WHEN EXCLUDED.last_engaged_at >= coalesce(k.last_engaged_at, '-infinity') THEN EXCLUDED.sends_since_engaged
                               ELSE k.sends_since_engaged + EXCLUDED.sends_since_engaged END,
    unengaged_since = CASE WHEN EXCLUDED.last_engaged_at >= coalesce(k.last_engaged_at, '-infinity') THEN EXCLUDED.unengaged_since
                           ELSE coalesce(k.unengaged_since, EXCLUDED.unengaged_since) END,
    open_hours = CASE WHEN EXCLUDED.open_hours IS NULL THEN k.open_hours WHEN k.open_hours IS NULL THEN EXCLUDED.open_hours
                      ELSE ARRAY(SELECT k.open_hours[i] + EXCLUDED.open_hours[i] FROM generate_series(1, 24) i ORDER BY i) END;
  RETURN NULL;
END $$;

-- contact_event_counts holds, per contact, its events of its project named email_send_result_success /
-- ses_event_open / ses_event_click that the product recorded itself (is_system): the segment filters
-- num_sends, num_opens, num_clicks (src/server/core/segments/filter.ts),
-- and the opens and clicks by people among them (event_is_human, core/events/sql).
-- Statement triggers keep it, whoever writes events (API, sender, tracking, SQL): a statement's rows are summed per
-- contact (events whose user_id is not a contact of that project are not counted) and applied in one upsert, in
-- contact id order, so two statements that touch the same contacts wait for each other instead of deadlocking. The
-- contacts rows are only read, never locked: an event write cannot deadlock with an import or edit of contacts. One
-- function serves insert, update and delete (the transition tables it reads differ, hence the dynamic SQL).
CREATE OR REPLACE FUNCTION events_count_for_contacts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  source text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT project_id, user_id, name, json, is_system, 1 AS sign FROM new_events'
    WHEN 'DELETE' THEN 'SELECT project_id, user_id, name, json, is_system, -1 AS sign FROM old_events'
    ELSE 'SELECT project_id, user_id, name, json, is_system, -1 AS sign FROM old_events UNION ALL SELECT project_id, user_id, name, json, is_system, 1 FROM new_events' END;
BEGIN
  -- Retention (core/events/partitions.ts) deletes raw events it keeps no longer: what they counted stays counted.
  IF TG_OP = 'DELETE' AND current_setting('mailwright.retention', true) = 'on' THEN
    RETURN NULL;
  END IF;
  -- An erasure's first statement (core/events/anonymise.ts) moves events from contacts being erased, counts and all,
  -- to pseudonym ids that are no contact's: no count changes.
  IF TG_OP = 'UPDATE' AND current_setting('mailwright.anonymising', true) = 'contacts' THEN
    RETURN NULL;
  END IF;
  EXECUTE format($sql$
    INSERT INTO contact_event_counts AS k (contact_id, project_id, num_sends, num_opens, num_clicks, num_human_opens, num_human_clicks)
    SELECT contact_id, project_id, sends, opens, clicks, human_opens, human_clicks FROM (
      SELECT c.id AS contact_id, c.project_id,
        COALESCE(sum(r.sign) FILTER (WHERE r.name = 'email_send_result_success'), 0)::int AS sends,
        COALESCE(sum(r.sign) FILTER (WHERE r.name = 'ses_event_open'), 0)::int AS opens,
        COALESCE(sum(r.sign) FILTER (WHERE r.name = 'ses_event_click'), 0)::int AS clicks,
        COALESCE(sum(r.sign) FILTER (WHERE r.name = 'ses_event_open' AND event_is_human(r.json)), 0)::int AS human_opens,
        COALESCE(sum(r.sign) FILTER (WHERE r.name = 'ses_event_click' AND event_is_human(r.json)), 0)::int AS human_clicks
      FROM (%s) r JOIN contacts c ON c.id = r.user_id AND c.project_id = r.project_id
      WHERE r.is_system AND r.name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click')
      GROUP BY c.id, c.project_id) s
    WHERE sends <> 0 OR opens <> 0 OR clicks <> 0 OR human_opens <> 0 OR human_clicks <> 0
    ORDER BY contact_id
    ON CONFLICT (contact_id) DO UPDATE SET num_sends = k.num_sends + EXCLUDED.num_sends,
      num_opens = k.num_opens + EXCLUDED.num_opens, num_clicks = k.num_clicks + EXCLUDED.num_clicks,
      num_human_opens = k.num_human_opens + EXCLUDED.num_human_opens, num_human_clicks = k.num_human_clicks + EXCLUDED.num_human_clicks
  $sql$, source);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION events_count_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM contact_event_counts;
  RETURN NULL;
END $$;

-- contact_event_counts.best_hour: the UTC hour (0-23) most of the contact's human opens fell in, the earliest of a tie,
-- from open_hours (send-time optimisation, core/audience/policies.ts), set by row triggers (migration 0034) that fire
-- only when open_hours changes, so the sent marks' upserts never run it.
CREATE OR REPLACE FUNCTION contact_best_hour() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.best_hour := (SELECT i - 1 FROM generate_series(1, 24) i WHERE NEW.open_hours[i] > 0 ORDER BY NEW.open_hours[i] DESC, i LIMIT 1);
  RETURN NEW;
END $$;
