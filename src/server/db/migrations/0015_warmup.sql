CREATE TABLE "daily_sends" (
	"key" text NOT NULL,
	"day" date NOT NULL,
	"sent" integer NOT NULL,
	CONSTRAINT "daily_sends_key_day_pk" PRIMARY KEY("key","day")
);
--> statement-breakpoint
ALTER TABLE "sending_domains" ADD COLUMN "warmup_started_on" date;