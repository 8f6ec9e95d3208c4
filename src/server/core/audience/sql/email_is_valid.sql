-- email_is_valid(address): the email rules of src/domain/validation.ts checkEmail, in SQL, for the audience queries
-- (core/audience/queries.ts), so a blast's audience is counted without reading its addresses into Node. Valid means:
-- not blank; after trimming, exactly one '@' with text on both sides; no whitespace; a dot in the domain, which neither
-- starts nor ends with one. tests/api/blasts.api.test.ts checks that it agrees with checkEmail on a corpus.
CREATE OR REPLACE FUNCTION email_is_valid(address text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(s <> ''
     AND length(s) - length(replace(s, '@', '')) = 1
     AND split_part(s, '@', 1) <> '' AND split_part(s, '@', 2) <> ''
     AND s !~ '\s'
     AND strpos(split_part(s, '@', 2), '.') > 0
     AND left(split_part(s, '@', 2), 1) <> '.' AND right(split_part(s, '@', 2), 1) <> '.', false)
    FROM (SELECT btrim(address, E' \t\n\r\f\x0B') AS s) t
$$;
