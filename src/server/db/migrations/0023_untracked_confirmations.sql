-- Issue 36 §9. An email may go without tracking (no open pixel, no rewritten links, no honeypot link): the double
-- opt-in confirmation email, so that nobody is tracked before they consent. Every other email is tracked as before.
ALTER TABLE "outbox" ADD COLUMN "tracking" boolean DEFAULT true NOT NULL;
