CREATE TABLE "campaigns" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"type" text DEFAULT '' NOT NULL,
	"scheduled_email_blast_group_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"workflow_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"template_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "report_counts" (
	"project_id" uuid NOT NULL,
	"blast_id" uuid DEFAULT '00000000-0000-0000-0000-000000000000'::uuid NOT NULL,
	"template_id" uuid DEFAULT '00000000-0000-0000-0000-000000000000'::uuid NOT NULL,
	"workflow_id" text DEFAULT '' NOT NULL,
	"merged" boolean DEFAULT false NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"name" text NOT NULL,
	"num" bigint NOT NULL,
	"num_unique" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "report_firsts" (
	"project_id" uuid NOT NULL,
	"message_key" text NOT NULL,
	"kind" text NOT NULL,
	CONSTRAINT "report_firsts_project_id_message_key_kind_pk" PRIMARY KEY("project_id","message_key","kind")
);
--> statement-breakpoint
CREATE TABLE "report_links" (
	"project_id" uuid NOT NULL,
	"blast_id" uuid DEFAULT '00000000-0000-0000-0000-000000000000'::uuid NOT NULL,
	"template_id" uuid DEFAULT '00000000-0000-0000-0000-000000000000'::uuid NOT NULL,
	"workflow_id" text DEFAULT '' NOT NULL,
	"merged" boolean DEFAULT false NOT NULL,
	"link_hash" uuid NOT NULL,
	"link" text NOT NULL,
	"num" bigint NOT NULL,
	"num_unique" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "report_sources" (
	"project_id" uuid NOT NULL,
	"blast_id" uuid DEFAULT '00000000-0000-0000-0000-000000000000'::uuid NOT NULL,
	"template_id" uuid DEFAULT '00000000-0000-0000-0000-000000000000'::uuid NOT NULL,
	"workflow_id" text DEFAULT '' NOT NULL,
	"merged" boolean DEFAULT false NOT NULL,
	"kind" text NOT NULL,
	"value_hash" uuid NOT NULL,
	"value" text NOT NULL,
	"num_opens" bigint NOT NULL,
	"num_unique_opens" bigint NOT NULL,
	"num_clicks" bigint NOT NULL,
	"num_unique_clicks" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "report_totals" (
	"project_id" uuid NOT NULL,
	"blast_id" uuid DEFAULT '00000000-0000-0000-0000-000000000000'::uuid NOT NULL,
	"template_id" uuid DEFAULT '00000000-0000-0000-0000-000000000000'::uuid NOT NULL,
	"workflow_id" text DEFAULT '' NOT NULL,
	"merged" boolean DEFAULT false NOT NULL,
	"name" text NOT NULL,
	"num" bigint NOT NULL,
	"num_unique" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "campaigns_project_idx" ON "campaigns" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "campaigns_project_name_idx" ON "campaigns" USING btree ("project_id",lower("name")) WHERE archived_at IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "report_counts_key_idx" ON "report_counts" USING btree ("project_id","hour","name","blast_id","template_id","workflow_id") WHERE merged;--> statement-breakpoint
CREATE INDEX "report_counts_delta_idx" ON "report_counts" USING btree ("project_id","hour") WHERE NOT merged;--> statement-breakpoint
CREATE UNIQUE INDEX "report_links_key_idx" ON "report_links" USING btree ("project_id","link_hash","blast_id","template_id","workflow_id") WHERE merged;--> statement-breakpoint
CREATE INDEX "report_links_delta_idx" ON "report_links" USING btree ("project_id") WHERE NOT merged;--> statement-breakpoint
CREATE UNIQUE INDEX "report_sources_key_idx" ON "report_sources" USING btree ("project_id","kind","value_hash","blast_id","template_id","workflow_id") WHERE merged;--> statement-breakpoint
CREATE INDEX "report_sources_delta_idx" ON "report_sources" USING btree ("project_id","kind") WHERE NOT merged;--> statement-breakpoint
CREATE UNIQUE INDEX "report_totals_key_idx" ON "report_totals" USING btree ("project_id","name","blast_id","template_id","workflow_id") WHERE merged;--> statement-breakpoint
CREATE INDEX "report_totals_delta_idx" ON "report_totals" USING btree ("project_id") WHERE NOT merged;--> statement-breakpoint
CREATE INDEX "events_blast_recent_idx" ON "events" USING btree ("blast_id","name","emitted_at") WHERE blast_id IS NOT NULL AND name IN ('ses_event_open', 'ses_event_click');--> statement-breakpoint
CREATE INDEX "events_template_recent_idx" ON "events" USING btree ("template_id","name","emitted_at") WHERE template_id IS NOT NULL AND name IN ('ses_event_open', 'ses_event_click');--> statement-breakpoint
CREATE INDEX "events_workflow_recent_idx" ON "events" USING btree ((json->>'workflow_id'),"name","emitted_at") WHERE (json->>'workflow_id') IS NOT NULL AND name IN ('ses_event_open', 'ses_event_click');--> statement-breakpoint
-- Report aggregates (docs/architecture.md §4g). Each view is what readers query: the merged rows and the
-- deltas not yet merged, each branch answered from its own partial index.
CREATE VIEW report_counts_v AS SELECT * FROM report_counts WHERE merged UNION ALL SELECT * FROM report_counts WHERE NOT merged;--> statement-breakpoint
CREATE VIEW report_totals_v AS SELECT * FROM report_totals WHERE merged UNION ALL SELECT * FROM report_totals WHERE NOT merged;--> statement-breakpoint
CREATE VIEW report_links_v AS SELECT * FROM report_links WHERE merged UNION ALL SELECT * FROM report_links WHERE NOT merged;--> statement-breakpoint
CREATE VIEW report_sources_v AS SELECT * FROM report_sources WHERE merged UNION ALL SELECT * FROM report_sources WHERE NOT merged;--> statement-breakpoint
-- events_report_insert adds a statement's report events to the aggregates as deltas (plain inserts: no existing row
-- is locked or updated, so concurrent writers never wait on each other or deadlock). An email is identified by its
-- json.message_id (else the recipient's address, else the event). A success or failure event the sender recorded for
-- a message is unique by construction (an outbox row is sent or failed once); every other event claims its
-- (email, name) in report_firsts, and the event that claims it first (earliest emitted_at, then id) is the unique
-- one; a click also claims (email, its link). The same statement, over all events, is report_rebuild below: keep the
-- two identical.
CREATE FUNCTION events_report_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH ev AS (
    SELECT e.id, e.project_id, e.name, e.emitted_at,
           coalesce(e.blast_id, '00000000-0000-0000-0000-000000000000'::uuid) AS blast_id,
           coalesce(e.template_id, '00000000-0000-0000-0000-000000000000'::uuid) AS template_id,
           coalesce(e.json->>'workflow_id', '') AS workflow_id,
           coalesce(e.json->>'message_id', 'email:' || lower(e.email), 'event:' || e.id::text) AS message_key,
           (e.is_system AND e.json->>'message_id' IS NOT NULL AND e.name IN ('email_send_result_success', 'email_send_result_failure')) AS once,
           coalesce(e.json->>'link', e.json->'click'->>'link') AS link,
           coalesce(e.json->>'user_agent', '') AS user_agent,
           coalesce(e.json->>'to_domain', lower(split_part(e.email, '@', 2)), '') AS to_domain
      FROM new_events e
     WHERE e.name IN ('email_send_result_success', 'email_send_result_failure', 'user_unsubscribed', 'ses_event_open',
                      'ses_event_click', 'ses_event_complaint', 'ses_event_bounce')),
  candidates AS (
    SELECT DISTINCT ON (project_id, message_key, kind) id, project_id, message_key, kind FROM (
      SELECT id, project_id, message_key, name AS kind, emitted_at FROM ev WHERE NOT once
      UNION ALL
      SELECT id, project_id, message_key, 'link:' || md5(link), emitted_at FROM ev WHERE name = 'ses_event_click' AND link IS NOT NULL) k
    ORDER BY project_id, message_key, kind, emitted_at, id),
  claimed AS (
    INSERT INTO report_firsts (project_id, message_key, kind)
    SELECT project_id, message_key, kind FROM candidates ORDER BY project_id, message_key, kind
    ON CONFLICT DO NOTHING RETURNING project_id, message_key, kind),
  firsts AS (SELECT c.id, c.kind FROM candidates c JOIN claimed f USING (project_id, message_key, kind)),
  marked AS (
    SELECT ev.*, (ev.once OR fe.id IS NOT NULL) AS first_event, (fl.id IS NOT NULL) AS first_link
      FROM ev LEFT JOIN firsts fe ON fe.id = ev.id AND fe.kind = ev.name
              LEFT JOIN firsts fl ON fl.id = ev.id AND fl.kind = 'link:' || md5(ev.link)),
  counts AS (
    INSERT INTO report_counts (project_id, blast_id, template_id, workflow_id, hour, name, num, num_unique)
    SELECT project_id, blast_id, template_id, workflow_id, date_trunc('hour', emitted_at, 'UTC'), name,
           count(*), count(*) FILTER (WHERE first_event)
      FROM marked GROUP BY 1, 2, 3, 4, 5, 6),
  totals AS (
    INSERT INTO report_totals (project_id, blast_id, template_id, workflow_id, name, num, num_unique)
    SELECT project_id, blast_id, template_id, workflow_id, name, count(*), count(*) FILTER (WHERE first_event)
      FROM marked GROUP BY 1, 2, 3, 4, 5),
  links AS (
    INSERT INTO report_links (project_id, blast_id, template_id, workflow_id, link_hash, link, num, num_unique)
    SELECT project_id, blast_id, template_id, workflow_id, md5(link)::uuid, min(link), count(*), count(*) FILTER (WHERE first_link)
      FROM marked WHERE name = 'ses_event_click' AND link IS NOT NULL GROUP BY 1, 2, 3, 4, 5)
  INSERT INTO report_sources (project_id, blast_id, template_id, workflow_id, kind, value_hash, value,
                              num_opens, num_unique_opens, num_clicks, num_unique_clicks)
  SELECT m.project_id, m.blast_id, m.template_id, m.workflow_id, s.kind, md5(s.value)::uuid, min(s.value),
         count(*) FILTER (WHERE m.name = 'ses_event_open'), count(*) FILTER (WHERE m.name = 'ses_event_open' AND m.first_event),
         count(*) FILTER (WHERE m.name = 'ses_event_click'), count(*) FILTER (WHERE m.name = 'ses_event_click' AND m.first_event)
    FROM marked m CROSS JOIN LATERAL (VALUES ('user_agent', m.user_agent), ('to_domain', m.to_domain)) AS s(kind, value)
   WHERE m.name IN ('ses_event_open', 'ses_event_click')
   GROUP BY 1, 2, 3, 4, 5, 6;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- report_forget removes a project's aggregates (after all its events were deleted: the demo reset).
CREATE FUNCTION report_forget(p_project uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM report_counts WHERE project_id = p_project;
  DELETE FROM report_totals WHERE project_id = p_project;
  DELETE FROM report_links WHERE project_id = p_project;
  DELETE FROM report_sources WHERE project_id = p_project;
  DELETE FROM report_firsts WHERE project_id = p_project;
END $$;
--> statement-breakpoint
-- report_rebuild recomputes the aggregates of one project (or of all, with NULL) from its events, with events locked
-- against writes meanwhile: the statement of events_report_insert over the events table (keep the two identical).
CREATE FUNCTION report_rebuild(p_project uuid) RETURNS void LANGUAGE plpgsql AS $$
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
           coalesce(e.json->>'to_domain', lower(split_part(e.email, '@', 2)), '') AS to_domain
      FROM events e
     WHERE (p_project IS NULL OR e.project_id = p_project)
       AND e.name IN ('email_send_result_success', 'email_send_result_failure', 'user_unsubscribed', 'ses_event_open',
                      'ses_event_click', 'ses_event_complaint', 'ses_event_bounce')),
  candidates AS (
    SELECT DISTINCT ON (project_id, message_key, kind) id, project_id, message_key, kind FROM (
      SELECT id, project_id, message_key, name AS kind, emitted_at FROM ev WHERE NOT once
      UNION ALL
      SELECT id, project_id, message_key, 'link:' || md5(link), emitted_at FROM ev WHERE name = 'ses_event_click' AND link IS NOT NULL) k
    ORDER BY project_id, message_key, kind, emitted_at, id),
  claimed AS (
    INSERT INTO report_firsts (project_id, message_key, kind)
    SELECT project_id, message_key, kind FROM candidates ORDER BY project_id, message_key, kind
    ON CONFLICT DO NOTHING RETURNING project_id, message_key, kind),
  firsts AS (SELECT c.id, c.kind FROM candidates c JOIN claimed f USING (project_id, message_key, kind)),
  marked AS (
    SELECT ev.*, (ev.once OR fe.id IS NOT NULL) AS first_event, (fl.id IS NOT NULL) AS first_link
      FROM ev LEFT JOIN firsts fe ON fe.id = ev.id AND fe.kind = ev.name
              LEFT JOIN firsts fl ON fl.id = ev.id AND fl.kind = 'link:' || md5(ev.link)),
  counts AS (
    INSERT INTO report_counts (project_id, blast_id, template_id, workflow_id, hour, name, num, num_unique, merged)
    SELECT project_id, blast_id, template_id, workflow_id, date_trunc('hour', emitted_at, 'UTC'), name,
           count(*), count(*) FILTER (WHERE first_event), true
      FROM marked GROUP BY 1, 2, 3, 4, 5, 6),
  totals AS (
    INSERT INTO report_totals (project_id, blast_id, template_id, workflow_id, name, num, num_unique, merged)
    SELECT project_id, blast_id, template_id, workflow_id, name, count(*), count(*) FILTER (WHERE first_event), true
      FROM marked GROUP BY 1, 2, 3, 4, 5),
  links AS (
    INSERT INTO report_links (project_id, blast_id, template_id, workflow_id, link_hash, link, num, num_unique, merged)
    SELECT project_id, blast_id, template_id, workflow_id, md5(link)::uuid, min(link), count(*), count(*) FILTER (WHERE first_link), true
      FROM marked WHERE name = 'ses_event_click' AND link IS NOT NULL GROUP BY 1, 2, 3, 4, 5)
  INSERT INTO report_sources (project_id, blast_id, template_id, workflow_id, kind, value_hash, value,
                              num_opens, num_unique_opens, num_clicks, num_unique_clicks, merged)
  SELECT m.project_id, m.blast_id, m.template_id, m.workflow_id, s.kind, md5(s.value)::uuid, min(s.value),
         count(*) FILTER (WHERE m.name = 'ses_event_open'), count(*) FILTER (WHERE m.name = 'ses_event_open' AND m.first_event),
         count(*) FILTER (WHERE m.name = 'ses_event_click'), count(*) FILTER (WHERE m.name = 'ses_event_click' AND m.first_event), true
    FROM marked m CROSS JOIN LATERAL (VALUES ('user_agent', m.user_agent), ('to_domain', m.to_domain)) AS s(kind, value)
   WHERE m.name IN ('ses_event_open', 'ses_event_click')
   GROUP BY 1, 2, 3, 4, 5, 6;
END $$;
--> statement-breakpoint
CREATE FUNCTION events_report_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE report_counts, report_totals, report_links, report_sources, report_firsts;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER events_report_insert AFTER INSERT ON events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION events_report_insert();--> statement-breakpoint
CREATE TRIGGER events_report_truncate AFTER TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION events_report_truncated();--> statement-breakpoint
-- The aggregates of the events already stored.
SELECT report_rebuild(NULL);
