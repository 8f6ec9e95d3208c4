-- Campaign filters read a campaign's events through its blasts, templates and workflows (src/server/core/segments/filter.ts), as its
-- reports do; nothing writes json.campaign_id any more, so its index goes.
DROP INDEX "events_campaign_contact_idx";