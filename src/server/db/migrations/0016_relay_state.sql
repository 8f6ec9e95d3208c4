ALTER TABLE "relay_pacing" ADD COLUMN "rate" double precision;--> statement-breakpoint
ALTER TABLE "relay_pacing" ADD COLUMN "down_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "relay_pacing" ADD COLUMN "down_reason" text;