-- email_is_valid(address): the email rules of src/domain/validation.ts checkEmail, in SQL, for the audience queries
-- (core/audience/queries.ts), so a blast's audience is counted without reading its addresses into Node. Valid means:
-- not blank; after trimming, exactly one '@' with text on both sides; no whitespace; a dot in the domain, which neither
-- starts nor ends with one. One expression (no FROM), so PostgreSQL inlines it into the query rather than calling it
-- per row. tests/api/blasts.api.test.ts checks that it agrees with checkEmail on a corpus.
CREATE OR REPLACE FUNCTION email_is_valid(address text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(btrim(address, E' \t\n\r\f\x0B') ~ '^[^@\s]+@[^@\s.][^@\s]*\.[^@\s]*[^@\s.]$', false)
$$;
