-- Provider feedback webhooks: what each provider must prove, per project.
CREATE TABLE "feedback_integrations" (
	"project_id" uuid NOT NULL,
	"provider" text NOT NULL,
	"secret" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "feedback_integrations_project_id_provider_pk" PRIMARY KEY("project_id","provider")
);
--> statement-breakpoint
ALTER TABLE "feedback_integrations" ADD CONSTRAINT "feedback_integrations_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;