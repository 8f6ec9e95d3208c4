/**
 * How an erased person's events stay counted without naming them (core/privacy/erasure.ts): the events' part of an
 * erasure, kept here with the events' other writes. Two statements, each a hash join of the events with the small
 * list of people (never `= ANY(array)`, which compares each event with every element: 10,000 contacts over 1,000,000
 * events took minutes).
 */

/**
 * ANONYMISE_CONTACTS_EVENTS: project $1's events of the contacts $1's… — $2 contact ids, $3 their pseudonym ids, $4
 * each contact's address, $5 the pseudonym of that address — name the pseudonyms instead (the address also replaced
 * in their data). Counts, distinct counts included, are unchanged: one pseudonym per person.
 */
export const ANONYMISE_CONTACTS_EVENTS = `WITH k AS (SELECT * FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::text[]) AS k(id, alias_id, address, alias))
  UPDATE events e SET user_id = k.alias_id, email = CASE WHEN e.email IS NULL THEN NULL ELSE k.alias END,
         json = erase_address(e.json::text, k.address, k.alias)::jsonb
    FROM k WHERE e.project_id = $1 AND e.user_id = k.id`;

/**
 * ANONYMISE_ADDRESS_EVENTS: project $1's events still naming one of the addresses $2 (an event of no contact, or of a
 * contact since given another address) name its pseudonym from $3 (same order) instead, with a fresh random id for a
 * contact id they carry; the address is replaced in their data.
 */
export const ANONYMISE_ADDRESS_EVENTS = `WITH a AS (SELECT * FROM unnest($2::text[], $3::text[]) AS a(address, alias))
  UPDATE events e SET email = a.alias, user_id = CASE WHEN e.user_id IS NULL THEN NULL ELSE gen_random_uuid() END,
         json = erase_address(e.json::text, a.address, a.alias)::jsonb
    FROM a WHERE e.project_id = $1 AND lower(btrim(e.email)) = a.address`;
