-- Events partitioned by month of emitted_at (core/events/partitions.ts), so retention drops a month as a table rather
-- than deleting it row by row. The table is rebuilt: renamed aside, a partitioned table made with the same columns,
-- key (id, emitted_at), indexes and statement triggers, one partition per UTC month from the oldest of the last 25
-- months with events to a year ahead, a default partition for the rest; the rows copied over (the old table's
-- triggers are gone by then and the new one's are not made yet, so no count or report aggregate changes).
ALTER TABLE "events" RENAME TO "events_unpartitioned";--> statement-breakpoint
ALTER TABLE "events_unpartitioned" DROP CONSTRAINT "events_project_id_projects_id_fk";--> statement-breakpoint
ALTER TABLE "events_unpartitioned" RENAME CONSTRAINT "events_pkey" TO "events_unpartitioned_pkey";--> statement-breakpoint
DROP INDEX "events_project_emitted_idx";--> statement-breakpoint
DROP INDEX "events_project_name_idx";--> statement-breakpoint
DROP INDEX "events_blast_contact_idx";--> statement-breakpoint
DROP INDEX "events_template_contact_idx";--> statement-breakpoint
DROP INDEX "events_workflow_contact_idx";--> statement-breakpoint
DROP INDEX "events_blast_recent_idx";--> statement-breakpoint
DROP INDEX "events_template_recent_idx";--> statement-breakpoint
DROP INDEX "events_workflow_recent_idx";--> statement-breakpoint
DROP INDEX "events_message_engagement_idx";--> statement-breakpoint
DROP INDEX "events_feedback_message_idx";--> statement-breakpoint
DROP INDEX "events_address_feedback_idx";--> statement-breakpoint
CREATE TABLE "events" (LIKE "events_unpartitioned" INCLUDING DEFAULTS) PARTITION BY RANGE ("emitted_at");--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_id_emitted_at_pk" PRIMARY KEY("id","emitted_at");--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "events_default" PARTITION OF "events" DEFAULT;--> statement-breakpoint
DO $$
DECLARE
  m date;
  last_month date := (date_trunc('month', now() AT TIME ZONE 'UTC') + interval '12 months')::date;
BEGIN
  SELECT date_trunc('month', coalesce(min(emitted_at), now()) AT TIME ZONE 'UTC')::date INTO m
    FROM events_unpartitioned WHERE emitted_at >= now() - interval '25 months';
  WHILE m <= last_month LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF events FOR VALUES FROM (%L) TO (%L)', 'events_y' || to_char(m, 'YYYY') || 'm' || to_char(m, 'MM'),
                   m::timestamp AT TIME ZONE 'UTC', (m + interval '1 month')::timestamp AT TIME ZONE 'UTC');
    m := (m + interval '1 month')::date;
  END LOOP;
END $$;--> statement-breakpoint
INSERT INTO "events" SELECT * FROM "events_unpartitioned";--> statement-breakpoint
DROP TABLE "events_unpartitioned";--> statement-breakpoint
CREATE INDEX "events_project_emitted_idx" ON "events" USING btree ("project_id","emitted_at");--> statement-breakpoint
CREATE INDEX "events_project_name_idx" ON "events" USING btree ("project_id","name","emitted_at");--> statement-breakpoint
CREATE INDEX "events_blast_contact_idx" ON "events" USING btree ("blast_id","name","user_id","project_id") WHERE blast_id IS NOT NULL AND name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click');--> statement-breakpoint
CREATE INDEX "events_template_contact_idx" ON "events" USING btree ("template_id","name","user_id","project_id") WHERE template_id IS NOT NULL AND name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click');--> statement-breakpoint
CREATE INDEX "events_workflow_contact_idx" ON "events" USING btree ((json->>'workflow_id'),"name","user_id","project_id","emitted_at") WHERE (json->>'workflow_id') IS NOT NULL AND name IN ('email_send_result_success', 'ses_event_open', 'ses_event_click', 'workflow_started', 'workflow_completed');--> statement-breakpoint
CREATE INDEX "events_blast_recent_idx" ON "events" USING btree ("blast_id","name","emitted_at") WHERE blast_id IS NOT NULL AND name IN ('ses_event_open', 'ses_event_click');--> statement-breakpoint
CREATE INDEX "events_template_recent_idx" ON "events" USING btree ("template_id","name","emitted_at") WHERE template_id IS NOT NULL AND name IN ('ses_event_open', 'ses_event_click');--> statement-breakpoint
CREATE INDEX "events_workflow_recent_idx" ON "events" USING btree ((json->>'workflow_id'),"name","emitted_at") WHERE (json->>'workflow_id') IS NOT NULL AND name IN ('ses_event_open', 'ses_event_click');--> statement-breakpoint
CREATE INDEX "events_message_engagement_idx" ON "events" USING btree ((json->>'message_id')) WHERE name IN ('ses_event_open', 'ses_event_click');--> statement-breakpoint
CREATE INDEX "events_feedback_message_idx" ON "events" USING btree ((json->>'message_id'),"name") WHERE name IN ('ses_event_bounce', 'ses_event_complaint');--> statement-breakpoint
CREATE INDEX "events_address_feedback_idx" ON "events" USING btree ("project_id",lower(email),"name","emitted_at") WHERE name IN ('ses_event_bounce', 'ses_event_open', 'ses_event_click');--> statement-breakpoint
CREATE TRIGGER events_count_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION events_count_inserted();--> statement-breakpoint
CREATE TRIGGER events_count_update AFTER UPDATE ON events REFERENCING OLD TABLE AS old_events NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION events_count_for_contacts();--> statement-breakpoint
CREATE TRIGGER events_count_delete AFTER DELETE ON events REFERENCING OLD TABLE AS old_events FOR EACH STATEMENT EXECUTE FUNCTION events_count_for_contacts();--> statement-breakpoint
CREATE TRIGGER events_count_truncate AFTER TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION events_count_truncated();--> statement-breakpoint
CREATE TRIGGER events_report_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION events_report_insert();--> statement-breakpoint
CREATE TRIGGER events_report_update AFTER UPDATE ON events REFERENCING OLD TABLE AS old_events NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION events_report_updated();--> statement-breakpoint
CREATE TRIGGER events_report_truncate AFTER TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION events_report_truncated();--> statement-breakpoint
CREATE TRIGGER events_enter_workflows AFTER INSERT ON events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION events_enter_workflows();--> statement-breakpoint
CREATE TRIGGER events_webhooks AFTER INSERT ON events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION events_webhooks();--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "events_retention_days" integer;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "copies_retention_days" integer;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "unconfirmed_retention_days" integer;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "job_log_retention_days" integer;
