-- outbox_message_attempts (the outbox_message_attempts row trigger, fired only WHEN a claimed row goes back to pending
-- with a reason — the relay deferred it, a refused connection, a time-out, a daily cap — as the email.deferred
-- webhook's trigger is): one message_attempts row, the message activity's record of that deferral (core/messages). A
-- deferral is no event; a send and a failure are (email_send_result_success with the relay's answer,
-- email_send_result_failure with the reason), so they write nothing here.
CREATE OR REPLACE FUNCTION outbox_message_attempts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO message_attempts (outbox_id, project_id, outcome, detail, attempts)
  VALUES (NEW.id, NEW.project_id, 'deferred', NEW.last_error, NEW.attempts);
  RETURN NULL;
END $$;
