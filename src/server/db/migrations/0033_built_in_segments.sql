ALTER TABLE "segments" ADD COLUMN "built_in" text;--> statement-breakpoint
CREATE UNIQUE INDEX "segments_built_in_idx" ON "segments" USING btree ("project_id","built_in");