-- outbox_message_attempts (the outbox_message_attempts row trigger, fired only WHEN a claimed row goes back to pending
-- with a reason — the relay deferred it, a refused connection, a time-out, a daily cap — or fails for good): one
-- message_attempts row, the message activity's record of that attempt (core/messages). A sent email's accepting relay
-- and its answer are in its email_send_result_success event instead, so sends write nothing here.
CREATE OR REPLACE FUNCTION outbox_message_attempts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO message_attempts (outbox_id, project_id, outcome, detail, attempts)
  VALUES (NEW.id, NEW.project_id, CASE WHEN NEW.status = 'failed' THEN 'failed' ELSE 'deferred' END, NEW.last_error, NEW.attempts);
  RETURN NULL;
END $$;
