/**
 * How an erased person's emails stay counted without naming them (core/privacy/erasure.ts): the outbox's part of an
 * erasure, kept here with the outbox's other writes. Hash joins with the list of people, never `= ANY(array)`.
 */

/**
 * ANONYMISE_OUTBOX: project $1's emails to the contacts or the addresses name pseudonyms instead — $2 addresses, $3
 * their pseudonyms (same order), $4 contact ids, $5 their pseudonym ids, $6 each contact's address — lose the
 * location of their stored copy (deleted by the caller), and the address is replaced in what they kept as text (the
 * triggering event, the relay's last answer). Returns each row's id, submission and Message-ID.
 */
export const ANONYMISE_OUTBOX = `WITH a AS (SELECT * FROM unnest($2::text[], $3::text[]) AS a(address, alias)),
     k AS (SELECT * FROM unnest($4::uuid[], $5::uuid[], $6::text[]) AS k(id, alias_id, address)),
     o AS (SELECT o.id, k.address, k.alias_id FROM outbox o JOIN k ON k.id = o.contact_id WHERE o.project_id = $1
           UNION ALL
           SELECT o.id, a.address, NULL FROM outbox o JOIN a ON a.address = lower(btrim(o.email))
            WHERE o.project_id = $1 AND (o.contact_id IS NULL OR o.contact_id NOT IN (SELECT id FROM k)))
  UPDATE outbox x SET email = a.alias, contact_id = CASE WHEN x.contact_id IS NULL THEN NULL ELSE coalesce(o.alias_id, gen_random_uuid()) END,
         location = NULL, last_error = erase_address(x.last_error, a.address, a.alias),
         event = erase_address(x.event::text, a.address, a.alias)::jsonb
    FROM o JOIN a ON a.address = o.address
   WHERE x.id = o.id
  RETURNING x.id, x.submission_id, x.message_id`;
