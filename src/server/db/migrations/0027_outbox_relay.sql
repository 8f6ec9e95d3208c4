-- The relay that accepted each email: bounces that name the sender (blocklists, policy) are counted per sending domain and relay.
ALTER TABLE "outbox" ADD COLUMN "relay" text;