ALTER TABLE "contacts" ADD COLUMN "num_sends" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "num_opens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "num_clicks" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "events_blast_contact_idx" ON "events" USING btree ("blast_id","name","user_id","project_id") WHERE blast_id IS NOT NULL AND name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click');--> statement-breakpoint
CREATE INDEX "events_template_contact_idx" ON "events" USING btree ("template_id","name","user_id","project_id") WHERE template_id IS NOT NULL AND name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click');--> statement-breakpoint
CREATE INDEX "events_campaign_contact_idx" ON "events" USING btree ((json->>'campaign_id'),"name","user_id","project_id") WHERE (json->>'campaign_id') IS NOT NULL AND name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click');--> statement-breakpoint
CREATE INDEX "events_workflow_contact_idx" ON "events" USING btree ((json->>'workflow_id'),"name","user_id","project_id","emitted_at") WHERE (json->>'workflow_id') IS NOT NULL AND name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click', 'workflow_started', 'workflow_completed');--> statement-breakpoint
-- contacts.num_sends / num_opens / num_clicks count the contact's events of its project named
-- email_send_result_success / ses_event_open / ses_event_click (the segment filters, src/server/segmentFilter.ts).
-- Statement triggers keep them, whoever writes events (API, sender, tracking, SQL): a statement's rows are summed
-- per contact and each contact is updated once, in contact id order, so two statements that touch the same
-- contacts wait for each other instead of deadlocking (a set-based UPDATE locks in whatever order its plan visits;
-- locking in order first cost more than these single-row updates). One function serves insert, update and delete:
-- the transition tables it reads differ, hence the dynamic SQL.
CREATE FUNCTION events_count_for_contacts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  source text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT project_id, user_id, name, 1 AS sign FROM new_events'
    WHEN 'DELETE' THEN 'SELECT project_id, user_id, name, -1 AS sign FROM old_events'
    ELSE 'SELECT project_id, user_id, name, -1 AS sign FROM old_events UNION ALL SELECT project_id, user_id, name, 1 FROM new_events' END;
  d record;
BEGIN
  FOR d IN EXECUTE format($sql$
      SELECT * FROM (
        SELECT project_id, user_id,
          COALESCE(sum(sign) FILTER (WHERE name = 'email_send_result_success'), 0)::int AS sends,
          COALESCE(sum(sign) FILTER (WHERE name = 'ses_event_open'), 0)::int AS opens,
          COALESCE(sum(sign) FILTER (WHERE name = 'ses_event_click'), 0)::int AS clicks
        FROM (%s) r
        WHERE user_id IS NOT NULL AND name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click')
        GROUP BY project_id, user_id) s
      WHERE sends <> 0 OR opens <> 0 OR clicks <> 0
      ORDER BY user_id
    $sql$, source) LOOP
    UPDATE contacts SET num_sends = num_sends + d.sends, num_opens = num_opens + d.opens, num_clicks = num_clicks + d.clicks
    WHERE id = d.user_id AND project_id = d.project_id;
  END LOOP;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION events_count_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE contacts SET num_sends = 0, num_opens = 0, num_clicks = 0 WHERE num_sends <> 0 OR num_opens <> 0 OR num_clicks <> 0;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER events_count_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION events_count_for_contacts();--> statement-breakpoint
CREATE TRIGGER events_count_update AFTER UPDATE ON events REFERENCING OLD TABLE AS old_events NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION events_count_for_contacts();--> statement-breakpoint
CREATE TRIGGER events_count_delete AFTER DELETE ON events REFERENCING OLD TABLE AS old_events FOR EACH STATEMENT EXECUTE FUNCTION events_count_for_contacts();--> statement-breakpoint
CREATE TRIGGER events_count_truncate AFTER TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION events_count_truncated();--> statement-breakpoint
-- The counts of the events already stored (the triggers, created first, hold off concurrent writers until commit).
UPDATE contacts c SET num_sends = d.sends, num_opens = d.opens, num_clicks = d.clicks
FROM (SELECT project_id, user_id,
        count(*) FILTER (WHERE name = 'email_send_result_success')::int AS sends,
        count(*) FILTER (WHERE name = 'ses_event_open')::int AS opens,
        count(*) FILTER (WHERE name = 'ses_event_click')::int AS clicks
      FROM events WHERE user_id IS NOT NULL AND name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click')
      GROUP BY project_id, user_id) d
WHERE d.user_id = c.id AND d.project_id = c.project_id;
