-- erase_address(t, address, alias): `t` with every occurrence of `address` (lower case; matched whatever the case in
-- `t`) replaced by `alias`, a pseudonym in lower case that does not contain it (core/privacy/erasure.ts). A plain
-- search, not a regular expression, so no character of an address needs escaping. NULL stays NULL.
CREATE OR REPLACE FUNCTION erase_address(t text, address text, alias text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  pos int;
BEGIN
  IF t IS NULL OR address IS NULL OR address = '' THEN
    RETURN t;
  END IF;
  pos := strpos(lower(t), address);
  WHILE pos > 0 LOOP
    t := overlay(t PLACING alias FROM pos FOR length(address));
    pos := strpos(lower(t), address);
  END LOOP;
  RETURN t;
END $$;

-- erase_addresses(t, addresses, aliases): erase_address for each address and its alias, in order.
CREATE OR REPLACE FUNCTION erase_addresses(t text, addresses text[], aliases text[]) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  i int;
BEGIN
  FOR i IN 1 .. coalesce(array_length(addresses, 1), 0) LOOP
    t := erase_address(t, addresses[i], aliases[i]);
  END LOOP;
  RETURN t;
END $$;
