CREATE TABLE "workflow_runs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"workflow_id" uuid NOT NULL,
	"contact_id" uuid,
	"email" text,
	"trigger_event_id" uuid,
	"event" jsonb,
	"hops" integer DEFAULT 0 NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "workflow_steps" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"run_id" uuid NOT NULL,
	"workflow_id" uuid NOT NULL,
	"node_id" text NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"claim_token" uuid,
	"lease_until" timestamp with time zone,
	"outcome" text,
	"executed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflows" (
	"id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"display" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"root_node" jsonb,
	"trigger_type" text NOT NULL,
	"trigger_event" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"job_log_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"disabled_at" timestamp with time zone,
	"archived_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "workflow_id" uuid;--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "workflow_step_id" bigint;--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "workflow_hops" integer;--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "event" jsonb;--> statement-breakpoint
ALTER TABLE "workflows" ADD CONSTRAINT "workflows_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_runs_event_idx" ON "workflow_runs" USING btree ("workflow_id","trigger_event_id") WHERE trigger_event_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX "workflow_runs_workflow_idx" ON "workflow_runs" USING btree ("workflow_id","created_at");--> statement-breakpoint
CREATE INDEX "workflow_runs_contact_idx" ON "workflow_runs" USING btree ("contact_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_steps_run_node_idx" ON "workflow_steps" USING btree ("run_id","node_id");--> statement-breakpoint
CREATE INDEX "workflow_steps_due_idx" ON "workflow_steps" USING btree ("due_at") WHERE status IN ('pending', 'running');--> statement-breakpoint
CREATE INDEX "workflow_steps_workflow_idx" ON "workflow_steps" USING btree ("workflow_id","status");--> statement-breakpoint
CREATE INDEX "workflows_project_idx" ON "workflows" USING btree ("project_id","created_at");--> statement-breakpoint
CREATE INDEX "workflows_trigger_idx" ON "workflows" USING btree ("project_id","trigger_type","trigger_event") WHERE enabled AND archived_at IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "outbox_workflow_step_idx" ON "outbox" USING btree ("workflow_step_id") WHERE workflow_step_id IS NOT NULL;--> statement-breakpoint
-- events_enter_workflows: every event a statement inserts enters the enabled, live workflows of its
-- project whose event trigger has its name, in the same transaction as the event (so an event enters a workflow
-- exactly once: workflow_runs is unique on workflow and event). The contact is the event's user_id, else the live
-- contact with its address; with neither, the run carries the address alone. An event a workflow itself caused
-- (json.workflow_id) never enters that workflow again, and a contact handed from workflow to workflow more than 10
-- times (json.workflow_hops) enters no more: the guard against cycles between workflows. Each run starts with a step
-- at the trigger node, due now; the engine hears of it through NOTIFY workflow_steps.
CREATE FUNCTION events_enter_workflows() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  entered int;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM new_events e JOIN workflows w
                   ON w.project_id = e.project_id AND w.trigger_type = 'event' AND w.trigger_event = e.name AND w.enabled AND w.archived_at IS NULL) THEN
    RETURN NULL;
  END IF;
  WITH entries AS (
    SELECT w.id AS workflow_id, w.project_id, w.root_node->>'id' AS root_id, e.id AS event_id,
           coalesce(e.user_id, (SELECT c.id FROM contacts c WHERE c.project_id = e.project_id AND lower(c.email) = lower(e.email)
                                   AND c.archived_at IS NULL ORDER BY c.created_at LIMIT 1)) AS contact_id,
           e.email,
           CASE WHEN e.is_system AND e.json->>'workflow_hops' ~ '^[0-9]{1,6}$' THEN (e.json->>'workflow_hops')::int + 1 ELSE 0 END AS hops,
           jsonb_build_object('id', e.id, 'name', e.name, 'email', e.email, 'user_id', e.user_id, 'metric1', e.metric1, 'metric2', e.metric2,
                              'metric3', e.metric3, 'emitted_at', e.emitted_at, 'json', e.json) AS event
      FROM new_events e JOIN workflows w
        ON w.project_id = e.project_id AND w.trigger_type = 'event' AND w.trigger_event = e.name AND w.enabled AND w.archived_at IS NULL
     WHERE coalesce(e.json->>'workflow_id', '') <> w.id::text),
  runs AS (
    INSERT INTO workflow_runs (project_id, workflow_id, contact_id, email, trigger_event_id, event, hops)
    SELECT x.project_id, x.workflow_id, x.contact_id, coalesce(c.email, x.email), x.event_id, x.event, x.hops
      FROM entries x LEFT JOIN contacts c ON c.id = x.contact_id
     WHERE x.hops <= 10 AND (x.contact_id IS NOT NULL OR x.email IS NOT NULL) AND x.root_id IS NOT NULL
     ORDER BY x.workflow_id, x.event_id
    ON CONFLICT (workflow_id, trigger_event_id) WHERE trigger_event_id IS NOT NULL DO NOTHING
    RETURNING id, project_id, workflow_id)
  INSERT INTO workflow_steps (project_id, run_id, workflow_id, node_id, due_at)
  SELECT r.project_id, r.id, r.workflow_id, w.root_node->>'id', now() FROM runs r JOIN workflows w ON w.id = r.workflow_id;
  GET DIAGNOSTICS entered = ROW_COUNT;
  IF entered > 0 THEN
    PERFORM pg_notify('workflow_steps', entered::text);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER events_enter_workflows AFTER INSERT ON events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION events_enter_workflows();
