-- Issue 36 §3. The due rows of a rate-limited mailbox provider's domains are claimed on their own (core/sending
-- CLAIM_DUE_FOR_DOMAINS), so a provider's mail flows at its rate beside the rest of a blast instead of waiting behind
-- every other pending row; this index finds them without scanning the other providers' rows.
CREATE INDEX "outbox_due_domain_idx" ON "outbox" USING btree (lower(split_part("email", '@', -1)),"next_attempt_at") WHERE status = 'pending';
