CREATE TABLE "consents" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"contact_id" uuid NOT NULL,
	"form_id" uuid NOT NULL,
	"email" text NOT NULL,
	"consent_text" text NOT NULL,
	"submitted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"submitted_ip" text,
	"submitted_user_agent" text,
	"confirmed_at" timestamp with time zone,
	"confirmed_ip" text,
	"confirmed_user_agent" text
);
--> statement-breakpoint
CREATE TABLE "subscribe_forms" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"segment_id" uuid NOT NULL,
	"sender_persona_id" uuid NOT NULL,
	"heading" text NOT NULL,
	"consent_text" text NOT NULL,
	"unconfirmed_days" integer DEFAULT 7 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "topics" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"project_id" uuid NOT NULL,
	"endpoint_id" uuid NOT NULL,
	"event_type" text NOT NULL,
	"contact_key" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retry_from" timestamp with time zone,
	"claim_token" uuid,
	"lease_until" timestamp with time zone,
	"last_attempt_at" timestamp with time zone,
	"last_status_code" integer,
	"last_response" text,
	"last_latency_ms" integer,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"url" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"event_types" text[] NOT NULL,
	"secret" text NOT NULL,
	"disabled_at" timestamp with time zone,
	"disabled_reason" text,
	"failing_since" timestamp with time zone,
	"last_failure_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"archived_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "unsubscribed_topic_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL;--> statement-breakpoint
ALTER TABLE "contacts" ADD COLUMN "confirmation_pending_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "email_blasts" ADD COLUMN "topic_id" uuid;--> statement-breakpoint
ALTER TABLE "templates" ADD COLUMN "topic_id" uuid;--> statement-breakpoint
ALTER TABLE "subscribe_forms" ADD CONSTRAINT "subscribe_forms_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "topics" ADD CONSTRAINT "topics_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "consents_contact_idx" ON "consents" USING btree ("contact_id","submitted_at");--> statement-breakpoint
CREATE INDEX "subscribe_forms_project_idx" ON "subscribe_forms" USING btree ("project_id");--> statement-breakpoint
CREATE UNIQUE INDEX "topics_project_name_idx" ON "topics" USING btree ("project_id",lower("name")) WHERE archived_at IS NULL;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_order_idx" ON "webhook_deliveries" USING btree ("endpoint_id","contact_key","seq") WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_endpoint_idx" ON "webhook_deliveries" USING btree ("endpoint_id","seq");--> statement-breakpoint
CREATE INDEX "webhook_endpoints_project_idx" ON "webhook_endpoints" USING btree ("project_id");--> statement-breakpoint
-- Issue 26 §1: webhook messages are written by these triggers in the same transaction as the event or contact change
-- they report. The functions' definitions live in core/webhooks/sql/webhooks.sql (applied after the migrations);
-- these placeholders only let the triggers be created.
CREATE OR REPLACE FUNCTION events_webhooks() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION contacts_webhooks() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION outbox_deferral_webhooks() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;--> statement-breakpoint
CREATE TRIGGER events_webhooks AFTER INSERT ON events REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION events_webhooks();--> statement-breakpoint
CREATE TRIGGER contacts_webhooks_insert AFTER INSERT ON contacts REFERENCING NEW TABLE AS new_contacts FOR EACH STATEMENT EXECUTE FUNCTION contacts_webhooks('contact.created');--> statement-breakpoint
CREATE TRIGGER contacts_webhooks_update AFTER UPDATE ON contacts REFERENCING NEW TABLE AS new_contacts FOR EACH STATEMENT EXECUTE FUNCTION contacts_webhooks('contact.updated');--> statement-breakpoint
-- email.deferred: a row trigger whose WHEN is checked inline, so the sender's other updates of the outbox (claims, sent
-- marks, waits for a provider's slot, which leave last_error as it was and give the attempt back) call nothing.
CREATE TRIGGER outbox_deferral_webhooks AFTER UPDATE ON outbox FOR EACH ROW
  WHEN (OLD.status = 'sending' AND NEW.status = 'pending' AND NEW.last_error IS NOT NULL
        AND (NEW.attempts = OLD.attempts OR NEW.last_error IS DISTINCT FROM OLD.last_error))
  EXECUTE FUNCTION outbox_deferral_webhooks();
