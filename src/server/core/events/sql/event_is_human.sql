-- event_is_human(json) is the one definition of "a person did it": an event is a person's unless its json
-- marks it machine (an open: Apple Mail Privacy Protection, a scanner, a proxy's refetch) or bot (a click: a link
-- scanner). Unknown (null, or no mark: events recorded before classification, or posted through the API) counts as a
-- person. The classification itself is src/domain/engagement.ts; reports, per-contact counts and segment filters
-- read this. jsonb containment, so a mark of any other type (a string "true" posted through the API) is no mark.
CREATE OR REPLACE FUNCTION event_is_human(j jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT NOT (coalesce(j @> '{"machine": true}', false) OR coalesce(j @> '{"bot": true}', false))
$$;
