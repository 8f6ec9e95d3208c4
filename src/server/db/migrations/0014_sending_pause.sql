ALTER TABLE "projects" ADD COLUMN "sending_paused_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "sending_pause_reason" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "sending_resumed_at" timestamp with time zone;