CREATE TABLE "event_batches" (
	"project_id" uuid NOT NULL,
	"idempotency_key" text NOT NULL,
	"response" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "suppressions" (
	"project_id" uuid NOT NULL,
	"email" text NOT NULL,
	"reason" text NOT NULL,
	"detail" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "email_blasts" ADD COLUMN "audience" jsonb;--> statement-breakpoint
ALTER TABLE "event_batches" ADD CONSTRAINT "event_batches_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "suppressions" ADD CONSTRAINT "suppressions_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "event_batches_project_key_idx" ON "event_batches" USING btree ("project_id","idempotency_key");--> statement-breakpoint
CREATE UNIQUE INDEX "suppressions_project_email_idx" ON "suppressions" USING btree ("project_id","email");--> statement-breakpoint
-- Stored events are published with NOTIFY events (payload: the project id of the statement's first row) once per
-- statement, whichever code inserted them; the workflow engine listens and reads the events table as its log.
CREATE FUNCTION events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('events', coalesce((SELECT project_id::text FROM new_events LIMIT 1), ''));
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER events_notify AFTER INSERT ON events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION events_notify();
