ALTER TABLE "contact_event_counts" ADD COLUMN "num_human_opens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "contact_event_counts" ADD COLUMN "num_human_clicks" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "report_counts" ADD COLUMN "num_human" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "report_counts" ADD COLUMN "num_unique_human" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "report_firsts" ADD COLUMN "event_id" uuid;--> statement-breakpoint
ALTER TABLE "report_links" ADD COLUMN "num_human" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "report_links" ADD COLUMN "num_unique_human" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "report_sources" ADD COLUMN "num_human_opens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "report_sources" ADD COLUMN "num_unique_human_opens" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "report_sources" ADD COLUMN "num_human_clicks" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "report_sources" ADD COLUMN "num_unique_human_clicks" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "report_totals" ADD COLUMN "num_human" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "report_totals" ADD COLUMN "num_unique_human" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "events_message_engagement_idx" ON "events" USING btree ((json->>'message_id')) WHERE name IN ('ses_event_open', 'ses_event_click');--> statement-breakpoint
-- Issue 22 (docs/architecture.md §14 "Machine opens and bot clicks"). The views list the tables' columns as they were
-- when made: make them again so they carry the human counters.
DROP VIEW report_counts_v;--> statement-breakpoint
DROP VIEW report_totals_v;--> statement-breakpoint
DROP VIEW report_links_v;--> statement-breakpoint
DROP VIEW report_sources_v;--> statement-breakpoint
CREATE VIEW report_counts_v AS SELECT * FROM report_counts WHERE merged UNION ALL SELECT * FROM report_counts WHERE NOT merged;--> statement-breakpoint
CREATE VIEW report_totals_v AS SELECT * FROM report_totals WHERE merged UNION ALL SELECT * FROM report_totals WHERE NOT merged;--> statement-breakpoint
CREATE VIEW report_links_v AS SELECT * FROM report_links WHERE merged UNION ALL SELECT * FROM report_links WHERE NOT merged;--> statement-breakpoint
CREATE VIEW report_sources_v AS SELECT * FROM report_sources WHERE merged UNION ALL SELECT * FROM report_sources WHERE NOT merged;--> statement-breakpoint
-- Opens and clicks recorded before this version carry nothing that tells a machine from a person (no address, no
-- delivery instant with the request): they are marked unknown, and unknown counts as a person, as they were counted.
UPDATE events SET json = json || '{"machine": null, "machine_reason": "unknown"}'::jsonb
 WHERE name = 'ses_event_open' AND is_system AND NOT json ? 'machine';--> statement-breakpoint
UPDATE events SET json = json || '{"bot": null, "bot_reason": "unknown"}'::jsonb
 WHERE name = 'ses_event_click' AND is_system AND NOT json ? 'bot';--> statement-breakpoint
-- So every existing count is a person's: the human counters start equal to the totals, and each email's first open,
-- click and link click is also its first by a person.
UPDATE report_counts SET num_human = num, num_unique_human = num_unique;--> statement-breakpoint
UPDATE report_totals SET num_human = num, num_unique_human = num_unique;--> statement-breakpoint
UPDATE report_links SET num_human = num, num_unique_human = num_unique;--> statement-breakpoint
UPDATE report_sources SET num_human_opens = num_opens, num_unique_human_opens = num_unique_opens,
                          num_human_clicks = num_clicks, num_unique_human_clicks = num_unique_clicks;--> statement-breakpoint
INSERT INTO report_firsts (project_id, message_key, kind)
SELECT project_id, message_key, 'human:' || kind FROM report_firsts
 WHERE kind IN ('ses_event_open', 'ses_event_click') OR kind LIKE 'link:%'
ON CONFLICT DO NOTHING;--> statement-breakpoint
UPDATE contact_event_counts SET num_human_opens = num_opens, num_human_clicks = num_clicks;--> statement-breakpoint
-- An email's earlier click marked bot later (all its links clicked in one second) moves the human counters back; the
-- body is core/reports/sql/report_aggregates.sql's, applied after the migrations.
CREATE FUNCTION events_report_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;--> statement-breakpoint
CREATE TRIGGER events_report_update AFTER UPDATE ON events REFERENCING OLD TABLE AS old_events NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION events_report_updated();
