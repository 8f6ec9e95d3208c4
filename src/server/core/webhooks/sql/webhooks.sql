-- Webhook messages (core/webhooks): which events become messages to which endpoints, in one place.
-- The current definition of each function below; applied at every start after the migrations (src/server/db/functions.ts),
-- so a change is made here, once. Migration 0021 keeps the triggers (DDL).

-- webhook_event_type names the webhook event type of an event the product records (src/domain/webhooks.ts
-- WEBHOOK_EVENT_TYPES, whose `event` column this mirrors); NULL for an event no webhook reports (customers' own events).
CREATE OR REPLACE FUNCTION webhook_event_type(p_name text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE p_name
    WHEN 'email_send_result_success' THEN 'email.sent'
    WHEN 'email_send_result_failure' THEN 'email.failed'
    WHEN 'ses_event_bounce' THEN 'email.bounced'
    WHEN 'ses_event_complaint' THEN 'email.complained'
    WHEN 'ses_event_open' THEN 'email.opened'
    WHEN 'ses_event_click' THEN 'email.clicked'
    WHEN 'user_unsubscribed' THEN 'contact.unsubscribed'
    WHEN 'workflow_completed' THEN 'workflow.completed'
  END
$$;

-- webhook_message_id is a message's Standard Webhooks id (webhook-id): the same for one source (an event or a contact
-- change) and one endpoint, so a source can never make two messages to an endpoint.
CREATE OR REPLACE FUNCTION webhook_message_id(p_source text, p_endpoint uuid) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT 'msg_' || md5(p_source || ':' || p_endpoint::text)
$$;

-- events_webhooks (the events_webhooks trigger: after every statement that inserts events): each event of a type an
-- enabled, live endpoint of its project listens to becomes one message to it, in the same transaction as the event,
-- so none is lost and none made twice. The payload is the Standard Webhooks shape {type, timestamp, data}; a contact's
-- messages keep their order (contact_key: the contact id, else the address).
CREATE OR REPLACE FUNCTION events_webhooks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.disabled_at IS NULL AND w.archived_at IS NULL
                    AND w.project_id IN (SELECT DISTINCT project_id FROM new_events)) THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_deliveries (id, project_id, endpoint_id, event_type, contact_key, payload)
  SELECT webhook_message_id(e.id::text, w.id), e.project_id, w.id, t.type, coalesce(e.user_id::text, lower(e.email), e.id::text),
         jsonb_build_object('type', t.type, 'timestamp', to_char(e.emitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'data', jsonb_strip_nulls(jsonb_build_object(
             'event_id', e.id, 'email', e.email, 'contact_id', e.user_id, 'blast_id', e.blast_id, 'template_id', e.template_id,
             'message_id', e.json->>'message_id', 'workflow_id', e.json->>'workflow_id', 'link', e.json->>'link',
             'topic_id', e.json->>'topic_id', 'topic', e.json->>'topic', 'details', e.json)))
    FROM new_events e
    CROSS JOIN LATERAL (SELECT webhook_event_type(e.name) AS type) t
    JOIN webhook_endpoints w ON w.project_id = e.project_id AND w.disabled_at IS NULL AND w.archived_at IS NULL AND t.type = ANY(w.event_types)
   ORDER BY e.emitted_at, e.id
  ON CONFLICT (id) DO NOTHING;
  RETURN NULL;
END $$;

-- contacts_webhooks: contact.created (the contacts_webhooks_insert trigger) and contact.updated
-- (contacts_webhooks_update) for endpoints listening to them; TG_ARGV[0] is the type. One message per contact row a
-- statement wrote (each a new message id: a change is not an event with an id of its own).
CREATE OR REPLACE FUNCTION contacts_webhooks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.disabled_at IS NULL AND w.archived_at IS NULL AND TG_ARGV[0] = ANY(w.event_types)
                    AND w.project_id IN (SELECT DISTINCT project_id FROM new_contacts)) THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_deliveries (id, project_id, endpoint_id, event_type, contact_key, payload)
  SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''),
         c.project_id, w.id, TG_ARGV[0], c.id::text,
         jsonb_build_object('type', TG_ARGV[0], 'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'data', jsonb_build_object('contact_id', c.id, 'email', c.email, 'first_name', c.first_name, 'last_name', c.last_name,
             'timezone', c.timezone, 'unsubscribed', c.unsubscribed_at IS NOT NULL, 'unsubscribed_topic_ids', to_jsonb(c.unsubscribed_topic_ids),
             'confirmation_pending', c.confirmation_pending_at IS NOT NULL, 'archived', c.archived_at IS NOT NULL, 'json', c.json))
    FROM new_contacts c
    JOIN webhook_endpoints w ON w.project_id = c.project_id AND w.disabled_at IS NULL AND w.archived_at IS NULL AND TG_ARGV[0] = ANY(w.event_types)
   ORDER BY c.id
  ON CONFLICT (id) DO NOTHING;
  RETURN NULL;
END $$;

-- outbox_deferral_webhooks (the outbox_deferral_webhooks row trigger, fired only WHEN a claimed row goes back to
-- pending with a reason: the relay deferred it — a 4xx, a refused connection, a time-out — or a daily cap holds it):
-- email.deferred for endpoints listening to it. A deferral is not an event (the email is still on its way), so it has
-- no event id: each deferral is a new message.
CREATE OR REPLACE FUNCTION outbox_deferral_webhooks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_deliveries (id, project_id, endpoint_id, event_type, contact_key, payload)
  SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), NEW.project_id, w.id, 'email.deferred', coalesce(NEW.contact_id::text, lower(NEW.email)),
         jsonb_build_object('type', 'email.deferred', 'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
           'data', jsonb_strip_nulls(jsonb_build_object('email', NEW.email, 'contact_id', NEW.contact_id, 'blast_id', NEW.blast_id,
             'template_id', NEW.template_id, 'message_id', NEW.message_id, 'workflow_id', NEW.workflow_id, 'reason', NEW.last_error,
             'attempts', NEW.attempts, 'next_attempt_at', to_char(NEW.next_attempt_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))))
    FROM webhook_endpoints w
   WHERE w.project_id = NEW.project_id AND w.disabled_at IS NULL AND w.archived_at IS NULL AND 'email.deferred' = ANY(w.event_types);
  RETURN NULL;
END $$;
