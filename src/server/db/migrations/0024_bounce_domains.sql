-- Issue 37 §1. Each sending domain has a bounce subdomain (default bounces.<domain>): every email's return path is
-- <token>@<bounce subdomain> once its MX (to INBOUND_MX_HOST) and SPF records verify, so that bounces and complaints
-- come back to the inbound receiver whatever relay sent the mail.
ALTER TABLE "sending_domains" ADD COLUMN "bounce_domain" text;--> statement-breakpoint
ALTER TABLE "sending_domains" ADD COLUMN "bounce_mx_status" text DEFAULT 'Pending' NOT NULL;--> statement-breakpoint
ALTER TABLE "sending_domains" ADD COLUMN "bounce_spf_status" text DEFAULT 'Pending' NOT NULL;