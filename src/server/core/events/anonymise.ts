/**
 * How an erased person's events stay counted without naming them (core/privacy/erasure.ts): the events' part of an
 * erasure, kept here with the events' other writes.
 */

/**
 * ANONYMISE_EVENTS: project $1's events of the contacts $4 or the addresses $2 name pseudonyms instead — the
 * address's from $3 (same order as $2), the contact's id from $5 (same order as $4; $6 is each contact's address) —
 * and the address is replaced in their data. Counts, distinct counts included, are unchanged: one pseudonym per
 * person.
 */
export const ANONYMISE_EVENTS = `WITH a AS (SELECT * FROM unnest($2::text[], $3::text[]) AS a(address, alias)),
     k AS (SELECT * FROM unnest($4::uuid[], $5::uuid[], $6::text[]) AS k(id, alias_id, address))
  UPDATE events e SET email = CASE WHEN e.email IS NULL THEN NULL ELSE coalesce(ae.alias, ak.alias) END,
         user_id = CASE WHEN e.user_id IS NULL THEN NULL ELSE coalesce(k.alias_id, gen_random_uuid()) END,
         json = erase_address(e.json::text, coalesce(ae.address, k.address), coalesce(ae.alias, ak.alias))::jsonb
    FROM events x
    LEFT JOIN k ON k.id = x.user_id
    LEFT JOIN a ae ON ae.address = lower(btrim(x.email))
    LEFT JOIN a ak ON ak.address = k.address
   WHERE e.id = x.id AND x.project_id = $1 AND (x.user_id = ANY($4::uuid[]) OR lower(btrim(x.email)) = ANY($2::text[]))`;
