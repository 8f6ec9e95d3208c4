-- Issue 24 (scale). A bounce or complaint finds its email by Message-ID with an index probe instead of a scan of the
-- whole outbox (core/feedback SENT_ROW_BY_MESSAGE_ID).
CREATE INDEX "outbox_message_id_idx" ON "outbox" USING btree ("message_id");--> statement-breakpoint
-- NOTIFY events after every statement that inserted events: nothing in the product listens any more (the workflow
-- engine hears NOTIFY workflow_steps), and a NOTIFY takes PostgreSQL's one notification-queue lock at every commit,
-- which serialises the commits of every process writing events (two worker processes marking emails sent).
DROP TRIGGER IF EXISTS events_notify ON events;--> statement-breakpoint
DROP FUNCTION IF EXISTS events_notify();
