-- The SPF records a sending domain published at the last DNS check, so the console can show ours merged into the one found.
ALTER TABLE "sending_domains" ADD COLUMN "spf_found" text[];