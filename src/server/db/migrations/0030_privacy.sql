CREATE TABLE "erasures" (
	"project_id" uuid NOT NULL,
	"address_hash" text NOT NULL,
	"erased_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "erasures_project_id_address_hash_pk" PRIMARY KEY("project_id","address_hash")
);
--> statement-breakpoint
CREATE TABLE "privacy_audit" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"action" text NOT NULL,
	"actor" text NOT NULL,
	"contacts" integer DEFAULT 0 NOT NULL,
	"addresses" integer DEFAULT 0 NOT NULL,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "consents" ALTER COLUMN "form_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "consents" ADD COLUMN "source" text DEFAULT 'form' NOT NULL;--> statement-breakpoint
ALTER TABLE "consents" ADD COLUMN "recorded_by" text;--> statement-breakpoint
CREATE INDEX "privacy_audit_project_idx" ON "privacy_audit" USING btree ("project_id","at");