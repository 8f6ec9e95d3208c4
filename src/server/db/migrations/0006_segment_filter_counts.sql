CREATE TABLE "contact_event_counts" (
	"contact_id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"num_sends" integer DEFAULT 0 NOT NULL,
	"num_opens" integer DEFAULT 0 NOT NULL,
	"num_clicks" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "events_blast_contact_idx" ON "events" USING btree ("blast_id","name","user_id","project_id") WHERE blast_id IS NOT NULL AND name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click');--> statement-breakpoint
CREATE INDEX "events_template_contact_idx" ON "events" USING btree ("template_id","name","user_id","project_id") WHERE template_id IS NOT NULL AND name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click');--> statement-breakpoint
CREATE INDEX "events_campaign_contact_idx" ON "events" USING btree ((json->>'campaign_id'),"name","user_id","project_id") WHERE (json->>'campaign_id') IS NOT NULL AND name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click');--> statement-breakpoint
CREATE INDEX "events_workflow_contact_idx" ON "events" USING btree ((json->>'workflow_id'),"name","user_id","project_id","emitted_at") WHERE (json->>'workflow_id') IS NOT NULL AND name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click', 'workflow_started', 'workflow_completed');--> statement-breakpoint
-- contact_event_counts holds, per contact, its events of its project named email_send_result_success /
-- ses_event_open / ses_event_click (the segment filters num_sends, num_opens, num_clicks; src/server/core/segments/filter.ts).
-- Statement triggers keep it, whoever writes events (API, sender, tracking, SQL): a statement's rows are summed per
-- contact (events whose user_id is not a contact of that project are not counted) and applied in one upsert, in
-- contact id order, so two statements that touch the same contacts wait for each other instead of deadlocking. The
-- contacts rows are only read, never locked: an event write cannot deadlock with an import or edit of contacts. One
-- function serves insert, update and delete (the transition tables it reads differ, hence the dynamic SQL).
CREATE FUNCTION events_count_for_contacts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  source text := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT project_id, user_id, name, 1 AS sign FROM new_events'
    WHEN 'DELETE' THEN 'SELECT project_id, user_id, name, -1 AS sign FROM old_events'
    ELSE 'SELECT project_id, user_id, name, -1 AS sign FROM old_events UNION ALL SELECT project_id, user_id, name, 1 FROM new_events' END;
BEGIN
  EXECUTE format($sql$
    INSERT INTO contact_event_counts AS k (contact_id, project_id, num_sends, num_opens, num_clicks)
    SELECT contact_id, project_id, sends, opens, clicks FROM (
      SELECT c.id AS contact_id, c.project_id,
        COALESCE(sum(r.sign) FILTER (WHERE r.name = 'email_send_result_success'), 0)::int AS sends,
        COALESCE(sum(r.sign) FILTER (WHERE r.name = 'ses_event_open'), 0)::int AS opens,
        COALESCE(sum(r.sign) FILTER (WHERE r.name = 'ses_event_click'), 0)::int AS clicks
      FROM (%s) r JOIN contacts c ON c.id = r.user_id AND c.project_id = r.project_id
      WHERE r.name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click')
      GROUP BY c.id, c.project_id) s
    WHERE sends <> 0 OR opens <> 0 OR clicks <> 0
    ORDER BY contact_id
    ON CONFLICT (contact_id) DO UPDATE SET num_sends = k.num_sends + EXCLUDED.num_sends,
      num_opens = k.num_opens + EXCLUDED.num_opens, num_clicks = k.num_clicks + EXCLUDED.num_clicks
  $sql$, source);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION events_count_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM contact_event_counts;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER events_count_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION events_count_for_contacts();--> statement-breakpoint
CREATE TRIGGER events_count_update AFTER UPDATE ON events REFERENCING OLD TABLE AS old_events NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION events_count_for_contacts();--> statement-breakpoint
CREATE TRIGGER events_count_delete AFTER DELETE ON events REFERENCING OLD TABLE AS old_events FOR EACH STATEMENT EXECUTE FUNCTION events_count_for_contacts();--> statement-breakpoint
CREATE TRIGGER events_count_truncate AFTER TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION events_count_truncated();--> statement-breakpoint
-- The counts of the events already stored (the triggers, created first, hold off concurrent writers until commit).
INSERT INTO contact_event_counts (contact_id, project_id, num_sends, num_opens, num_clicks)
SELECT c.id, c.project_id,
  count(*) FILTER (WHERE e.name = 'email_send_result_success')::int,
  count(*) FILTER (WHERE e.name = 'ses_event_open')::int,
  count(*) FILTER (WHERE e.name = 'ses_event_click')::int
FROM events e JOIN contacts c ON c.id = e.user_id AND c.project_id = e.project_id
WHERE e.name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click')
GROUP BY c.id, c.project_id;
