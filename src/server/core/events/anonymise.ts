/**
 * How an erased person's events stay counted without naming them (core/privacy/erasure.ts): the events' part of an
 * erasure, kept here with the events' other writes. Two statements, each a hash join of the events with the small
 * list of people (never `= ANY(array)`, which compares each event with every element: 10,000 contacts over 1,000,000
 * events took minutes). The json is rewritten only where it holds the address (most events' do not): parsing a
 * million json texts back cost 1.3 s of 19 s (docs/bench-log.md, 2026-11-29 erasure at full size).
 *
 * Both run with `mailwright.anonymising` set (see ANONYMISING): a pseudonym changes no report figure and no event's
 * person-or-machine mark (event_is_human reads boolean marks only), so the report update trigger skips its check;
 * the per-contact counts trigger skips the first statement, whose old contacts are being erased with their counts
 * and whose new ids are no contact's.
 */

import type { QueryFn } from '../../db/client.ts';

/** The setting the events' update triggers read (core/contacts/sql, core/reports/sql): 'contacts', 'address' or ''. */
const ANONYMISING = 'mailwright.anonymising';

/** `e.json` with the address of row `r` replaced by its pseudonym; the same json where it does not hold it. */
const eraseInJson = (r: string) =>
  `CASE WHEN strpos(lower(e.json::text), ${r}.address) > 0 THEN erase_address(e.json::text, ${r}.address, ${r}.alias)::jsonb ELSE e.json END`;

/**
 * ERASING_CONTACTS: the contacts of an erasure as a table of this transaction — $1 ids, $2 their pseudonym ids, $3
 * each contact's address, $4 the pseudonym of that address — analysed, so the planner hashes these few rows and
 * reads the events once in their order. Joined to an `unnest` of parameters instead, whose distinct ids it cannot
 * know, it hashed the million events and rewrote them in the contacts' order, each row on another page: 25.4 s
 * against 17.8 s (docs/bench-log.md, 2026-11-29 erasure at full size).
 */
const ERASING_CONTACTS = `CREATE TEMP TABLE erasing_contacts ON COMMIT DROP AS
  SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) AS k(id, alias_id, address, alias)`;

/**
 * ANONYMISE_CONTACTS_EVENTS: project $1's events of the contacts in erasing_contacts name their pseudonyms instead
 * (the address also replaced in their data). Counts, distinct counts included, are unchanged: one pseudonym per person.
 */
const ANONYMISE_CONTACTS_EVENTS = `UPDATE events e SET user_id = k.alias_id, email = CASE WHEN e.email IS NULL THEN NULL ELSE k.alias END,
         json = ${eraseInJson('k')}
    FROM erasing_contacts k WHERE e.project_id = $1 AND e.user_id = k.id`;

/**
 * ANONYMISE_ADDRESS_EVENTS: project $1's events still naming one of the addresses $2 (an event of no contact, or of a
 * contact since given another address) name its pseudonym from $3 (same order) instead, with a fresh random id for a
 * contact id they carry; the address is replaced in their data.
 */
const ANONYMISE_ADDRESS_EVENTS = `WITH a AS (SELECT * FROM unnest($2::text[], $3::text[]) AS a(address, alias))
  UPDATE events e SET email = a.alias, user_id = CASE WHEN e.user_id IS NULL THEN NULL ELSE gen_random_uuid() END,
         json = ${eraseInJson('a')}
    FROM a WHERE e.project_id = $1 AND lower(btrim(e.email)) = a.address`;

/**
 * anonymiseEvents runs the events' part of an erasure in transaction `tx` for project `projectId`: first the events of
 * the contacts (`contacts`: ids, their pseudonym ids, each one's address and that address's pseudonym, same order),
 * then those still naming one of `addresses` (with `aliases`, same order), each statement with ANONYMISING set so
 * the update triggers skip what a pseudonym cannot change (see the module comment); the setting is cleared after.
 */
export async function anonymiseEvents(
  tx: QueryFn,
  projectId: string,
  contacts: { ids: string[]; aliasIds: string[]; addresses: string[]; aliases: string[] },
  addresses: { addresses: string[]; aliases: string[] },
): Promise<void> {
  await tx(ERASING_CONTACTS, [contacts.ids, contacts.aliasIds, contacts.addresses, contacts.aliases]);
  await tx(`ANALYZE erasing_contacts`);
  await tx(`SELECT set_config('${ANONYMISING}', 'contacts', true)`);
  await tx(ANONYMISE_CONTACTS_EVENTS, [projectId]);
  await tx(`SELECT set_config('${ANONYMISING}', 'address', true)`);
  await tx(ANONYMISE_ADDRESS_EVENTS, [projectId, addresses.addresses, addresses.aliases]);
  await tx(`SELECT set_config('${ANONYMISING}', '', true)`);
}
