-- Workflow entry (spec part 2 §5 Workflow triggers, §7 Run segment): how a contact enters a workflow.
-- The current definition of each function below; applied at every start after the migrations (src/server/db/functions.ts),
-- so a change is made here, once. Migrations keep the tables, indexes and triggers (DDL).

-- enter_workflows is the one definition of entering workflows: entry i puts contact p_contacts[i] (or, without a
-- contact, address p_emails[i]) into workflow p_workflows[i] of project p_projects[i] — one run, with its trigger
-- event (p_event_ids[i], p_events[i]; NULL for none) and hop count p_hops[i] (NULL = 0), and its first step at the
-- workflow's trigger node, due now. An entry is skipped when the workflow is not enabled and live in that project or
-- has no trigger node, when it has neither contact nor address, when it was handed on more than 10 times (the guard
-- against cycles between workflows), or when the workflow already has a run for that event (runs are unique on
-- workflow and trigger event: an event enters a workflow once). A run's address is its contact's, else the one given.
-- Sends NOTIFY workflow_steps (payload: how many entered) so the engine wakes. Returns how many runs started.
-- Callers: core/workflows (segments, contacts created or updated, hand-offs between workflows) and the events
-- trigger below.
CREATE OR REPLACE FUNCTION enter_workflows(p_projects uuid[], p_workflows uuid[], p_contacts uuid[], p_emails text[],
                                           p_event_ids uuid[], p_events jsonb[], p_hops int[]) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  entered int;
BEGIN
  WITH entries AS (
    SELECT u.n, u.project_id, u.workflow_id, u.contact_id, coalesce(c.email, u.email) AS email, u.event_id, u.event, coalesce(u.hops, 0) AS hops
      FROM unnest(p_projects, p_workflows, p_contacts, p_emails, p_event_ids, p_events, p_hops)
             WITH ORDINALITY AS u(project_id, workflow_id, contact_id, email, event_id, event, hops, n)
      JOIN workflows w ON w.id = u.workflow_id AND w.project_id = u.project_id AND w.enabled AND w.archived_at IS NULL
                      AND w.root_node->>'id' IS NOT NULL
      LEFT JOIN contacts c ON c.id = u.contact_id
     WHERE coalesce(u.hops, 0) <= 10 AND (u.contact_id IS NOT NULL OR u.email IS NOT NULL)),
  runs AS (
    INSERT INTO workflow_runs (project_id, workflow_id, contact_id, email, trigger_event_id, event, hops)
    SELECT project_id, workflow_id, contact_id, email, event_id, event, hops FROM entries ORDER BY n
    ON CONFLICT (workflow_id, trigger_event_id) WHERE trigger_event_id IS NOT NULL DO NOTHING
    RETURNING id, project_id, workflow_id)
  -- A click trigger that counts people only starts 2 s late (LINK_BURST_MS, 1 s, and a margin): a link scanner's
  -- click is known to be one only when its next link follows within a second, and the trigger step looks again then.
  INSERT INTO workflow_steps (project_id, run_id, workflow_id, node_id, due_at)
  SELECT r.project_id, r.id, r.workflow_id, w.root_node->>'id',
         now() + CASE WHEN w.root_node->>'event_topic' = 'ses_event_click' AND NOT coalesce((w.root_node->'settings'->>'include_machine')::boolean, false)
                      THEN interval '2 seconds' ELSE interval '0' END
    FROM runs r JOIN workflows w ON w.id = r.workflow_id;
  GET DIAGNOSTICS entered = ROW_COUNT;
  IF entered > 0 THEN
    PERFORM pg_notify('workflow_steps', entered::text);
  END IF;
  RETURN entered;
END $$;

-- events_enter_workflows (the events_enter_workflows trigger: after every statement that inserts events): every event
-- enters the enabled, live workflows of its project whose event trigger has its name, in the same transaction as the
-- event (so an event enters a workflow exactly once). The contact is the event's user_id, else the project's oldest
-- live contact with its address; with neither, the run carries the address alone. An event a workflow itself caused
-- (json.workflow_id) never enters that workflow again; a system event carries its hop count on (json.workflow_hops + 1).
-- An open or a click enters only when a person made it (event_is_human: not a machine open nor a bot click, as the
-- reports and the filters count people), unless the trigger node's settings include machines (include_machine; issue
-- 36 §7); the engine looks again when the trigger step runs, since a click is judged a bot's after it was recorded
-- when the next link follows within a second (core/workflows/nodes.ts).
CREATE OR REPLACE FUNCTION events_enter_workflows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM new_events e JOIN workflows w
                   ON w.project_id = e.project_id AND w.trigger_type = 'event' AND w.trigger_event = e.name AND w.enabled AND w.archived_at IS NULL) THEN
    RETURN NULL;
  END IF;
  PERFORM enter_workflows(array_agg(x.project_id ORDER BY x.workflow_id, x.event_id), array_agg(x.workflow_id ORDER BY x.workflow_id, x.event_id),
                          array_agg(x.contact_id ORDER BY x.workflow_id, x.event_id), array_agg(x.email ORDER BY x.workflow_id, x.event_id),
                          array_agg(x.event_id ORDER BY x.workflow_id, x.event_id), array_agg(x.event ORDER BY x.workflow_id, x.event_id),
                          array_agg(x.hops ORDER BY x.workflow_id, x.event_id))
    FROM (
      SELECT w.project_id, w.id AS workflow_id, e.id AS event_id,
             coalesce(e.user_id, (SELECT c.id FROM contacts c WHERE c.project_id = e.project_id AND lower(c.email) = lower(e.email)
                                     AND c.archived_at IS NULL ORDER BY c.created_at LIMIT 1)) AS contact_id,
             e.email,
             CASE WHEN e.is_system AND e.json->>'workflow_hops' ~ '^[0-9]{1,6}$' THEN (e.json->>'workflow_hops')::int + 1 ELSE 0 END AS hops,
             jsonb_build_object('id', e.id, 'name', e.name, 'email', e.email, 'user_id', e.user_id, 'metric1', e.metric1, 'metric2', e.metric2,
                                'metric3', e.metric3, 'emitted_at', e.emitted_at, 'json', e.json) AS event
        FROM new_events e JOIN workflows w
          ON w.project_id = e.project_id AND w.trigger_type = 'event' AND w.trigger_event = e.name AND w.enabled AND w.archived_at IS NULL
       WHERE coalesce(e.json->>'workflow_id', '') <> w.id::text
         -- Opens and clicks enter as people's only (event_is_human), unless the trigger includes machines.
         AND (e.name NOT IN ('ses_event_open', 'ses_event_click') OR event_is_human(e.json)
              OR coalesce((w.root_node->'settings'->>'include_machine')::boolean, false))) x
  HAVING count(*) > 0;
  RETURN NULL;
END $$;
