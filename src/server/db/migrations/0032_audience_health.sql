CREATE TABLE "dmarc_records" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"report_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"day" date NOT NULL,
	"source_ip" text NOT NULL,
	"count" integer NOT NULL,
	"header_from" text NOT NULL,
	"disposition" text NOT NULL,
	"dkim" text NOT NULL,
	"spf" text NOT NULL,
	"dkim_domain" text,
	"dkim_result" text,
	"spf_domain" text,
	"spf_result" text
);
--> statement-breakpoint
CREATE TABLE "dmarc_reports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"org_name" text NOT NULL,
	"org_email" text,
	"report_id" text NOT NULL,
	"begin_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	"policy" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "contact_event_counts" ADD COLUMN "last_engaged_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "contact_event_counts" ADD COLUMN "sends_since_engaged" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "contact_event_counts" ADD COLUMN "unengaged_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "contact_event_counts" ADD COLUMN "open_hours" integer[];--> statement-breakpoint
ALTER TABLE "email_blasts" ADD COLUMN "re_engagement" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "email_blasts" ADD COLUMN "send_time_optimised" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "outbox" ADD COLUMN "send_time_source" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "sunset_days" integer;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "sunset_min_emails" integer;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "frequency_cap_emails" integer;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "frequency_cap_days" integer;--> statement-breakpoint
ALTER TABLE "dmarc_records" ADD CONSTRAINT "dmarc_records_report_id_dmarc_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."dmarc_reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dmarc_reports" ADD CONSTRAINT "dmarc_reports_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dmarc_records_domain_day_idx" ON "dmarc_records" USING btree ("project_id","domain","day");--> statement-breakpoint
CREATE INDEX "dmarc_records_report_idx" ON "dmarc_records" USING btree ("report_id");--> statement-breakpoint
CREATE UNIQUE INDEX "dmarc_reports_reporter_idx" ON "dmarc_reports" USING btree ("project_id","org_name","report_id");--> statement-breakpoint
CREATE INDEX "dmarc_reports_domain_idx" ON "dmarc_reports" USING btree ("project_id","domain","begin_at");--> statement-breakpoint
CREATE INDEX "outbox_contact_broadcast_idx" ON "outbox" USING btree ("contact_id","send_at") WHERE contact_id IS NOT NULL AND stream = 'broadcast' AND NOT is_test;