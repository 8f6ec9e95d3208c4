-- Issue 37. Returned mail is applied one message at a time: whether an email was already bounced or complained about
-- (a report counts once) and an address's soft bounces since its last open or click by a person (SOFT_BOUNCE_LIMIT)
-- are read from these indexes instead of a scan of the project's events (bench:feedback).
CREATE INDEX "events_feedback_message_idx" ON "events" USING btree ((json->>'message_id'),"name") WHERE name IN ('ses_event_bounce', 'ses_event_complaint');--> statement-breakpoint
CREATE INDEX "events_address_feedback_idx" ON "events" USING btree ("project_id",lower(email),"name","emitted_at") WHERE name IN ('ses_event_bounce', 'ses_event_open', 'ses_event_click');