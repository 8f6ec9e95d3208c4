ALTER TABLE "sender_personas" ADD COLUMN "verified_at" timestamp with time zone;--> statement-breakpoint
-- Personas made before verification existed keep sending: they count as verified since their creation.
UPDATE "sender_personas" SET "verified_at" = "created_at";
