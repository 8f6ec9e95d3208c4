CREATE TABLE "relay_pacing" (
	"relay" text PRIMARY KEY NOT NULL,
	"next_at" timestamp with time zone NOT NULL
);
