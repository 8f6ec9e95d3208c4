-- Events: NOTIFY events after every statement that inserts events.
-- The current definition of each function below; applied at every start after the migrations (src/server/db/functions.ts),
-- so a change is made here, once. Migrations keep the tables, indexes and triggers (DDL).

-- Stored events are published with NOTIFY events (payload: the project id of the statement's first row) once per
-- statement, whichever code inserted them; the workflow engine listens and reads the events table as its log.
CREATE OR REPLACE FUNCTION events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('events', coalesce((SELECT project_id::text FROM new_events LIMIT 1), ''));
  RETURN NULL;
END $$;
