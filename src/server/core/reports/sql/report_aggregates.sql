-- Report aggregates (spec part 1 §4 Reports): folded from events by statement triggers; rebuilt from the events table on demand.
-- The current definition of each function below; applied at every start after the migrations (src/server/db/functions.ts),
-- so a change is made here, once. Migrations keep the tables, indexes and triggers (DDL).

-- events_report_insert adds a statement's report events to the aggregates as deltas (plain inserts: no existing row
-- is locked or updated, so concurrent writers never wait on each other or deadlock). An email is identified by its
-- json.message_id (else the recipient's address, else the event). A success or failure event the sender recorded for
-- a message is unique by construction (an outbox row is sent or failed once), so a statement of only those takes a
-- fast path that skips the first-occurrence claims and the link and source tables; every other event claims its
-- (email, name) in report_firsts, and the event that claims it first (earliest emitted_at, then id) is the unique
-- one; a click also claims (email, its link). Only the events the product recorded itself count (is_system): an event
-- a customer posted under one of these names (which the events API now refuses) never adds to a report
-- or to the month's sends the bill counts. The same statement, over all events, is report_rebuild below: keep the
-- two identical.
-- event_is_test_send(json): a send or failure of a test email (the editor's and the wizard's "Send test email",
-- json.is_test_email). A test goes to the sender's own addresses, untracked: it is not mail to the audience, so no
-- report, rate or month's sends counts it (2 real sends and 1 open are 50 %, whatever the tests). jsonb containment,
-- as event_is_human.
CREATE OR REPLACE FUNCTION event_is_test_send(j jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(j @> '{"is_test_email": true}', false)
$$;

CREATE OR REPLACE FUNCTION events_report_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A statement of sends and failures the sender recorded (each email's one event: unique by construction) needs no
  -- first-occurrence claims, links or sources: its rows go straight to the two tables they touch.
  IF NOT EXISTS (SELECT 1 FROM new_events e
                  WHERE e.is_system
                    AND (e.name IN ('user_unsubscribed', 'ses_event_open', 'ses_event_click', 'ses_event_complaint', 'ses_event_bounce')
                         OR (e.name IN ('email_send_result_success', 'email_send_result_failure') AND e.json->>'message_id' IS NULL))) THEN
    WITH ev AS (
      SELECT e.project_id, e.name, e.emitted_at,
             coalesce(e.blast_id, '00000000-0000-0000-0000-000000000000'::uuid) AS blast_id,
             coalesce(e.template_id, '00000000-0000-0000-0000-000000000000'::uuid) AS template_id,
             coalesce(e.json->>'workflow_id', '') AS workflow_id
        FROM new_events e WHERE e.is_system AND NOT event_is_test_send(e.json)
         AND e.name IN ('email_send_result_success', 'email_send_result_failure')),
    counts AS (
      INSERT INTO report_counts (project_id, blast_id, template_id, workflow_id, hour, name, num, num_unique, num_human, num_unique_human)
      SELECT project_id, blast_id, template_id, workflow_id, date_trunc('hour', emitted_at, 'UTC'), name, count(*), count(*), count(*), count(*)
        FROM ev GROUP BY 1, 2, 3, 4, 5, 6)
    INSERT INTO report_totals (project_id, blast_id, template_id, workflow_id, name, num, num_unique, num_human, num_unique_human)
    SELECT project_id, blast_id, template_id, workflow_id, name, count(*), count(*), count(*), count(*) FROM ev GROUP BY 1, 2, 3, 4, 5;
    RETURN NULL;
  END IF;
  WITH ev AS (
    SELECT e.id, e.project_id, e.name, e.emitted_at,
           coalesce(e.blast_id, '00000000-0000-0000-0000-000000000000'::uuid) AS blast_id,
           coalesce(e.template_id, '00000000-0000-0000-0000-000000000000'::uuid) AS template_id,
           coalesce(e.json->>'workflow_id', '') AS workflow_id,
           coalesce(e.json->>'message_id', 'email:' || lower(e.email), 'event:' || e.id::text) AS message_key,
           (e.is_system AND e.json->>'message_id' IS NOT NULL AND e.name IN ('email_send_result_success', 'email_send_result_failure')) AS once,
           coalesce(e.json->>'link', e.json->'click'->>'link') AS link,
           coalesce(e.json->>'user_agent', '') AS user_agent,
           coalesce(e.json->>'to_domain', lower(split_part(e.email, '@', 2)), '') AS to_domain,
           event_is_human(e.json) AS human
      FROM new_events e
     WHERE e.is_system AND NOT event_is_test_send(e.json)
       AND e.name IN ('email_send_result_success', 'email_send_result_failure', 'user_unsubscribed', 'ses_event_open',
                      'ses_event_click', 'ses_event_complaint', 'ses_event_bounce')),
  candidates AS (
    SELECT DISTINCT ON (project_id, message_key, kind) id, project_id, message_key, kind FROM (
      SELECT id, project_id, message_key, name AS kind, emitted_at FROM ev WHERE NOT once
      UNION ALL
      SELECT id, project_id, message_key, 'link:' || md5(link), emitted_at FROM ev WHERE name = 'ses_event_click' AND link IS NOT NULL
      UNION ALL
      SELECT id, project_id, message_key, 'human:' || name, emitted_at FROM ev WHERE human AND name IN ('ses_event_open', 'ses_event_click')
      UNION ALL
      SELECT id, project_id, message_key, 'human:link:' || md5(link), emitted_at FROM ev WHERE human AND name = 'ses_event_click' AND link IS NOT NULL) k
    ORDER BY project_id, message_key, kind, emitted_at, id),
  claimed AS (
    INSERT INTO report_firsts (project_id, message_key, kind, event_id)
    SELECT project_id, message_key, kind, id FROM candidates ORDER BY project_id, message_key, kind
    ON CONFLICT DO NOTHING RETURNING project_id, message_key, kind),
  firsts AS (SELECT c.id, c.kind FROM candidates c JOIN claimed f USING (project_id, message_key, kind)),
  marked AS (
    SELECT ev.*, (ev.once OR fe.id IS NOT NULL) AS first_event, (fl.id IS NOT NULL) AS first_link,
           CASE WHEN ev.name IN ('ses_event_open', 'ses_event_click') THEN fh.id IS NOT NULL
                ELSE ev.human AND (ev.once OR fe.id IS NOT NULL) END AS first_human,
           (fhl.id IS NOT NULL) AS first_human_link
      FROM ev LEFT JOIN firsts fe ON fe.id = ev.id AND fe.kind = ev.name
              LEFT JOIN firsts fl ON fl.id = ev.id AND fl.kind = 'link:' || md5(ev.link)
              LEFT JOIN firsts fh ON fh.id = ev.id AND fh.kind = 'human:' || ev.name
              LEFT JOIN firsts fhl ON fhl.id = ev.id AND fhl.kind = 'human:link:' || md5(ev.link)),
  counts AS (
    INSERT INTO report_counts (project_id, blast_id, template_id, workflow_id, hour, name, num, num_unique, num_human, num_unique_human)
    SELECT project_id, blast_id, template_id, workflow_id, date_trunc('hour', emitted_at, 'UTC'), name,
           count(*), count(*) FILTER (WHERE first_event), count(*) FILTER (WHERE human), count(*) FILTER (WHERE first_human)
      FROM marked GROUP BY 1, 2, 3, 4, 5, 6),
  totals AS (
    INSERT INTO report_totals (project_id, blast_id, template_id, workflow_id, name, num, num_unique, num_human, num_unique_human)
    SELECT project_id, blast_id, template_id, workflow_id, name, count(*), count(*) FILTER (WHERE first_event),
           count(*) FILTER (WHERE human), count(*) FILTER (WHERE first_human)
      FROM marked GROUP BY 1, 2, 3, 4, 5),
  links AS (
    INSERT INTO report_links (project_id, blast_id, template_id, workflow_id, link_hash, link, num, num_unique, num_human, num_unique_human)
    SELECT project_id, blast_id, template_id, workflow_id, md5(link)::uuid, min(link), count(*), count(*) FILTER (WHERE first_link),
           count(*) FILTER (WHERE human), count(*) FILTER (WHERE first_human_link)
      FROM marked WHERE name = 'ses_event_click' AND link IS NOT NULL GROUP BY 1, 2, 3, 4, 5)
  INSERT INTO report_sources (project_id, blast_id, template_id, workflow_id, kind, value_hash, value,
                              num_opens, num_unique_opens, num_clicks, num_unique_clicks,
                              num_human_opens, num_unique_human_opens, num_human_clicks, num_unique_human_clicks)
  SELECT m.project_id, m.blast_id, m.template_id, m.workflow_id, s.kind, md5(s.value)::uuid, min(s.value),
         count(*) FILTER (WHERE m.name = 'ses_event_open'), count(*) FILTER (WHERE m.name = 'ses_event_open' AND m.first_event),
         count(*) FILTER (WHERE m.name = 'ses_event_click'), count(*) FILTER (WHERE m.name = 'ses_event_click' AND m.first_event),
         count(*) FILTER (WHERE m.name = 'ses_event_open' AND m.human), count(*) FILTER (WHERE m.name = 'ses_event_open' AND m.first_human),
         count(*) FILTER (WHERE m.name = 'ses_event_click' AND m.human), count(*) FILTER (WHERE m.name = 'ses_event_click' AND m.first_human)
    FROM marked m CROSS JOIN LATERAL (VALUES ('user_agent', m.user_agent), ('to_domain', m.to_domain)) AS s(kind, value)
   WHERE m.name IN ('ses_event_open', 'ses_event_click')
   GROUP BY 1, 2, 3, 4, 5, 6;
  RETURN NULL;
END $$;

-- report_forget removes a project's aggregates (after all its events were deleted: the demo reset).
CREATE OR REPLACE FUNCTION report_forget(p_project uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM report_counts WHERE project_id = p_project;
  DELETE FROM report_totals WHERE project_id = p_project;
  DELETE FROM report_links WHERE project_id = p_project;
  DELETE FROM report_sources WHERE project_id = p_project;
  DELETE FROM report_firsts WHERE project_id = p_project;
END $$;

-- report_rebuild recomputes the aggregates of one project (or of all, with NULL) from its events, with events locked
-- against writes meanwhile: the statement of events_report_insert over the events table (keep the two identical).
CREATE OR REPLACE FUNCTION report_rebuild(p_project uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  LOCK TABLE events IN SHARE MODE;
  IF p_project IS NULL THEN
    TRUNCATE report_counts, report_totals, report_links, report_sources, report_firsts;
  ELSE
    PERFORM report_forget(p_project);
  END IF;
  WITH ev AS (
    SELECT e.id, e.project_id, e.name, e.emitted_at,
           coalesce(e.blast_id, '00000000-0000-0000-0000-000000000000'::uuid) AS blast_id,
           coalesce(e.template_id, '00000000-0000-0000-0000-000000000000'::uuid) AS template_id,
           coalesce(e.json->>'workflow_id', '') AS workflow_id,
           coalesce(e.json->>'message_id', 'email:' || lower(e.email), 'event:' || e.id::text) AS message_key,
           (e.is_system AND e.json->>'message_id' IS NOT NULL AND e.name IN ('email_send_result_success', 'email_send_result_failure')) AS once,
           coalesce(e.json->>'link', e.json->'click'->>'link') AS link,
           coalesce(e.json->>'user_agent', '') AS user_agent,
           coalesce(e.json->>'to_domain', lower(split_part(e.email, '@', 2)), '') AS to_domain,
           event_is_human(e.json) AS human
      FROM events e
     WHERE (p_project IS NULL OR e.project_id = p_project) AND e.is_system AND NOT event_is_test_send(e.json)
       AND e.name IN ('email_send_result_success', 'email_send_result_failure', 'user_unsubscribed', 'ses_event_open',
                      'ses_event_click', 'ses_event_complaint', 'ses_event_bounce')),
  candidates AS (
    SELECT DISTINCT ON (project_id, message_key, kind) id, project_id, message_key, kind FROM (
      SELECT id, project_id, message_key, name AS kind, emitted_at FROM ev WHERE NOT once
      UNION ALL
      SELECT id, project_id, message_key, 'link:' || md5(link), emitted_at FROM ev WHERE name = 'ses_event_click' AND link IS NOT NULL
      UNION ALL
      SELECT id, project_id, message_key, 'human:' || name, emitted_at FROM ev WHERE human AND name IN ('ses_event_open', 'ses_event_click')
      UNION ALL
      SELECT id, project_id, message_key, 'human:link:' || md5(link), emitted_at FROM ev WHERE human AND name = 'ses_event_click' AND link IS NOT NULL) k
    ORDER BY project_id, message_key, kind, emitted_at, id),
  claimed AS (
    INSERT INTO report_firsts (project_id, message_key, kind, event_id)
    SELECT project_id, message_key, kind, id FROM candidates ORDER BY project_id, message_key, kind
    ON CONFLICT DO NOTHING RETURNING project_id, message_key, kind),
  firsts AS (SELECT c.id, c.kind FROM candidates c JOIN claimed f USING (project_id, message_key, kind)),
  marked AS (
    SELECT ev.*, (ev.once OR fe.id IS NOT NULL) AS first_event, (fl.id IS NOT NULL) AS first_link,
           CASE WHEN ev.name IN ('ses_event_open', 'ses_event_click') THEN fh.id IS NOT NULL
                ELSE ev.human AND (ev.once OR fe.id IS NOT NULL) END AS first_human,
           (fhl.id IS NOT NULL) AS first_human_link
      FROM ev LEFT JOIN firsts fe ON fe.id = ev.id AND fe.kind = ev.name
              LEFT JOIN firsts fl ON fl.id = ev.id AND fl.kind = 'link:' || md5(ev.link)
              LEFT JOIN firsts fh ON fh.id = ev.id AND fh.kind = 'human:' || ev.name
              LEFT JOIN firsts fhl ON fhl.id = ev.id AND fhl.kind = 'human:link:' || md5(ev.link)),
  counts AS (
    INSERT INTO report_counts (project_id, blast_id, template_id, workflow_id, hour, name, num, num_unique, num_human, num_unique_human, merged)
    SELECT project_id, blast_id, template_id, workflow_id, date_trunc('hour', emitted_at, 'UTC'), name,
           count(*), count(*) FILTER (WHERE first_event), count(*) FILTER (WHERE human), count(*) FILTER (WHERE first_human), true
      FROM marked GROUP BY 1, 2, 3, 4, 5, 6),
  totals AS (
    INSERT INTO report_totals (project_id, blast_id, template_id, workflow_id, name, num, num_unique, num_human, num_unique_human, merged)
    SELECT project_id, blast_id, template_id, workflow_id, name, count(*), count(*) FILTER (WHERE first_event),
           count(*) FILTER (WHERE human), count(*) FILTER (WHERE first_human), true
      FROM marked GROUP BY 1, 2, 3, 4, 5),
  links AS (
    INSERT INTO report_links (project_id, blast_id, template_id, workflow_id, link_hash, link, num, num_unique, num_human, num_unique_human, merged)
    SELECT project_id, blast_id, template_id, workflow_id, md5(link)::uuid, min(link), count(*), count(*) FILTER (WHERE first_link),
           count(*) FILTER (WHERE human), count(*) FILTER (WHERE first_human_link), true
      FROM marked WHERE name = 'ses_event_click' AND link IS NOT NULL GROUP BY 1, 2, 3, 4, 5)
  INSERT INTO report_sources (project_id, blast_id, template_id, workflow_id, kind, value_hash, value,
                              num_opens, num_unique_opens, num_clicks, num_unique_clicks,
                              num_human_opens, num_unique_human_opens, num_human_clicks, num_unique_human_clicks, merged)
  SELECT m.project_id, m.blast_id, m.template_id, m.workflow_id, s.kind, md5(s.value)::uuid, min(s.value),
         count(*) FILTER (WHERE m.name = 'ses_event_open'), count(*) FILTER (WHERE m.name = 'ses_event_open' AND m.first_event),
         count(*) FILTER (WHERE m.name = 'ses_event_click'), count(*) FILTER (WHERE m.name = 'ses_event_click' AND m.first_event),
         count(*) FILTER (WHERE m.name = 'ses_event_open' AND m.human), count(*) FILTER (WHERE m.name = 'ses_event_open' AND m.first_human),
         count(*) FILTER (WHERE m.name = 'ses_event_click' AND m.human), count(*) FILTER (WHERE m.name = 'ses_event_click' AND m.first_human), true
    FROM marked m CROSS JOIN LATERAL (VALUES ('user_agent', m.user_agent), ('to_domain', m.to_domain)) AS s(kind, value)
   WHERE m.name IN ('ses_event_open', 'ses_event_click')
   GROUP BY 1, 2, 3, 4, 5, 6;
END $$;

-- events_report_updated moves the human counters when an UPDATE marks an open machine or a click bot (or takes the mark
-- back): the tracking endpoint marks an email's earlier clicks bot once two of its links were clicked within one
-- second (src/domain/engagement.ts). num and num_unique never change (the event is still an event). num_human moves
-- by one at the event's keys and hour. A claim on the email's first human open / click / link click held by an event
-- that is no longer a person's passes to the email's earliest event still a person's (found through
-- events_message_engagement_idx), or is dropped when there is none; an event that became a person's claims a free
-- one. num_unique_human moves accordingly at the keys of the event that gave the claim up and of the one that took it,
-- so the counters stay what report_rebuild computes. Deltas, as the insert trigger writes them.
CREATE OR REPLACE FUNCTION events_report_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- An erasure (core/events/anonymise.ts) gives events pseudonyms: no event changes between person and machine.
  IF coalesce(current_setting('mailwright.anonymising', true), '') <> '' THEN
    RETURN NULL;
  END IF;
  -- Whether any open or click changed between person and machine: a set difference (hashed), not a join of the two
  -- transition tables, which have no statistics and were joined by nested loop (20,000 anonymised events: 30 s).
  IF NOT EXISTS (SELECT id, event_is_human(json) FROM new_events WHERE is_system AND name IN ('ses_event_open', 'ses_event_click')
                 EXCEPT
                 SELECT id, event_is_human(json) FROM old_events WHERE is_system AND name IN ('ses_event_open', 'ses_event_click')) THEN
    RETURN NULL;
  END IF;
  WITH ch AS (
    SELECT n.id, n.project_id, n.name, n.emitted_at,
           coalesce(n.blast_id, '00000000-0000-0000-0000-000000000000'::uuid) AS blast_id,
           coalesce(n.template_id, '00000000-0000-0000-0000-000000000000'::uuid) AS template_id,
           coalesce(n.json->>'workflow_id', '') AS workflow_id,
           coalesce(n.json->>'message_id', 'email:' || lower(n.email), 'event:' || n.id::text) AS message_key,
           coalesce(n.json->>'link', n.json->'click'->>'link') AS link,
           coalesce(n.json->>'user_agent', '') AS user_agent,
           coalesce(n.json->>'to_domain', lower(split_part(n.email, '@', 2)), '') AS to_domain,
           event_is_human(n.json) AS human
      FROM new_events n JOIN old_events o USING (id)
     WHERE n.is_system AND n.name IN ('ses_event_open', 'ses_event_click') AND event_is_human(n.json) <> event_is_human(o.json)),
  kinds AS (
    SELECT id, project_id, message_key, human, 'human:' || name AS kind FROM ch
    UNION ALL
    SELECT id, project_id, message_key, human, 'human:link:' || md5(link) FROM ch WHERE name = 'ses_event_click' AND link IS NOT NULL),
  moves AS (
    SELECT f.project_id, f.message_key, f.kind, f.event_id AS old_id, s.*
      FROM kinds k
      JOIN report_firsts f ON f.project_id = k.project_id AND f.message_key = k.message_key AND f.kind = k.kind AND f.event_id = k.id
      LEFT JOIN LATERAL (
        SELECT e.id AS new_id, e.name AS new_name, e.emitted_at AS new_at,
               coalesce(e.blast_id, '00000000-0000-0000-0000-000000000000'::uuid) AS new_blast,
               coalesce(e.template_id, '00000000-0000-0000-0000-000000000000'::uuid) AS new_template,
               coalesce(e.json->>'workflow_id', '') AS new_workflow,
               coalesce(e.json->>'link', e.json->'click'->>'link') AS new_link,
               coalesce(e.json->>'user_agent', '') AS new_user_agent,
               coalesce(e.json->>'to_domain', lower(split_part(e.email, '@', 2)), '') AS new_to_domain
          FROM events e
         WHERE (e.json->>'message_id') = f.message_key AND e.name IN ('ses_event_open', 'ses_event_click') AND e.project_id = f.project_id
           AND e.is_system AND event_is_human(e.json)
           AND (f.kind = 'human:' || e.name OR f.kind = 'human:link:' || md5(coalesce(e.json->>'link', e.json->'click'->>'link')))
         ORDER BY e.emitted_at, e.id LIMIT 1) s ON true
     WHERE NOT k.human),
  moved AS (
    UPDATE report_firsts f SET event_id = m.new_id FROM moves m
     WHERE f.project_id = m.project_id AND f.message_key = m.message_key AND f.kind = m.kind AND m.new_id IS NOT NULL RETURNING 1),
  dropped AS (
    DELETE FROM report_firsts f USING moves m
     WHERE f.project_id = m.project_id AND f.message_key = m.message_key AND f.kind = m.kind AND m.new_id IS NULL RETURNING 1),
  claimed AS (
    INSERT INTO report_firsts (project_id, message_key, kind, event_id)
    SELECT project_id, message_key, kind, id FROM kinds WHERE human ORDER BY project_id, message_key, kind
    ON CONFLICT DO NOTHING RETURNING event_id, kind),
  d AS (
    -- h: a person's event more (+1) or fewer (-1); u: the email's first human open/click; lu: its first human click on the link.
    SELECT project_id, name, emitted_at, blast_id, template_id, workflow_id, link, user_agent, to_domain,
           CASE WHEN human THEN 1 ELSE -1 END AS h, 0 AS u, 0 AS lu FROM ch
    UNION ALL
    SELECT ch.project_id, ch.name, ch.emitted_at, ch.blast_id, ch.template_id, ch.workflow_id, ch.link, ch.user_agent, ch.to_domain,
           0, CASE WHEN m.kind LIKE 'human:link:%' THEN 0 ELSE -1 END, CASE WHEN m.kind LIKE 'human:link:%' THEN -1 ELSE 0 END
      FROM moves m JOIN ch ON ch.id = m.old_id
    UNION ALL
    SELECT m.project_id, m.new_name, m.new_at, m.new_blast, m.new_template, m.new_workflow, m.new_link, m.new_user_agent, m.new_to_domain,
           0, CASE WHEN m.kind LIKE 'human:link:%' THEN 0 ELSE 1 END, CASE WHEN m.kind LIKE 'human:link:%' THEN 1 ELSE 0 END
      FROM moves m WHERE m.new_id IS NOT NULL
    UNION ALL
    SELECT ch.project_id, ch.name, ch.emitted_at, ch.blast_id, ch.template_id, ch.workflow_id, ch.link, ch.user_agent, ch.to_domain,
           0, CASE WHEN c.kind LIKE 'human:link:%' THEN 0 ELSE 1 END, CASE WHEN c.kind LIKE 'human:link:%' THEN 1 ELSE 0 END
      FROM claimed c JOIN ch ON ch.id = c.event_id),
  counts AS (
    INSERT INTO report_counts (project_id, blast_id, template_id, workflow_id, hour, name, num, num_unique, num_human, num_unique_human)
    SELECT project_id, blast_id, template_id, workflow_id, date_trunc('hour', emitted_at, 'UTC'), name, 0, 0, sum(h), sum(u)
      FROM d GROUP BY 1, 2, 3, 4, 5, 6),
  totals AS (
    INSERT INTO report_totals (project_id, blast_id, template_id, workflow_id, name, num, num_unique, num_human, num_unique_human)
    SELECT project_id, blast_id, template_id, workflow_id, name, 0, 0, sum(h), sum(u) FROM d GROUP BY 1, 2, 3, 4, 5),
  links AS (
    INSERT INTO report_links (project_id, blast_id, template_id, workflow_id, link_hash, link, num, num_unique, num_human, num_unique_human)
    SELECT project_id, blast_id, template_id, workflow_id, md5(link)::uuid, min(link), 0, 0, sum(h), sum(lu)
      FROM d WHERE name = 'ses_event_click' AND link IS NOT NULL GROUP BY 1, 2, 3, 4, 5)
  INSERT INTO report_sources (project_id, blast_id, template_id, workflow_id, kind, value_hash, value,
                              num_opens, num_unique_opens, num_clicks, num_unique_clicks,
                              num_human_opens, num_unique_human_opens, num_human_clicks, num_unique_human_clicks)
  SELECT d.project_id, d.blast_id, d.template_id, d.workflow_id, s.kind, md5(s.value)::uuid, min(s.value), 0, 0, 0, 0,
         coalesce(sum(d.h) FILTER (WHERE d.name = 'ses_event_open'), 0), coalesce(sum(d.u) FILTER (WHERE d.name = 'ses_event_open'), 0),
         coalesce(sum(d.h) FILTER (WHERE d.name = 'ses_event_click'), 0), coalesce(sum(d.u) FILTER (WHERE d.name = 'ses_event_click'), 0)
    FROM d CROSS JOIN LATERAL (VALUES ('user_agent', d.user_agent), ('to_domain', d.to_domain)) AS s(kind, value)
   GROUP BY 1, 2, 3, 4, 5, 6;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION events_report_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE report_counts, report_totals, report_links, report_sources, report_firsts;
  RETURN NULL;
END $$;
