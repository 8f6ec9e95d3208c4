/**
 * The contact upsert (spec part 2 contacts): the one statement that creates or updates contacts, used by the contacts
 * API (upsertUsers), file imports and subscribe forms. It can add the contacts it wrote to a segment and enter them
 * into the project's user_upserted workflows in the same statement, so a contact is never written without entering
 * (or entered without being written).
 */
import { enterUpsertedFrom } from '../workflows/queries.ts';

/**
 * One contact to write, as the statement reads it (a JSON array in $2). Fields left out (or null) keep the stored
 * value; a field named in `clear` is emptied first (so a value given with it replaces the stored one, and a null
 * clears it; for `json`, given metadata then replaces the stored metadata instead of merging into it).
 */
export interface UpsertRow {
  /** Update this live contact (its address may change); the caller checked that it exists. */
  id?: string | null;
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  timezone?: string | null;
  /** ISO date-time (UTC). */
  date_of_birth?: string | null;
  json?: Record<string, unknown> | null;
  /** Fields emptied before the given values apply (the contacts API names every field its request gave). */
  clear?: Array<'first_name' | 'last_name' | 'timezone' | 'date_of_birth' | 'json'>;
  /** Find the live contact with this address first, and update it rather than relying on the insert's conflict. */
  match?: boolean;
  /** Leave a contact that already exists unchanged (a subscribe form: a visitor may not rename a contact). */
  only_new?: boolean;
  /** A new contact waits for its double opt-in (confirmation_pending_at = now()). */
  pending?: boolean;
  /**
   * The address's tombstone hash (core/privacy/key.ts addressHash): a row whose address was erased is skipped
   * (counted in the statement's `erased`). Every caller gives it (privacy/key.ts withAddressHashes).
   */
  address_hash?: string | null;
}

/** What upsertContactsSql should do besides writing. */
export interface UpsertOptions {
  /**
   * Rows may name their contact (id, match, only_new): they are looked up first and updated by id. Off for file
   * imports, whose rows go by address only: their statement is then the insert alone (no lookup, no update by id).
   */
  byTarget?: boolean;
  /** Add the contacts written to segment $3 (a segment upload). */
  segment?: boolean;
  /** Enter the contacts written into the project's user_upserted workflows; the statement's `entered` is how many runs started. */
  enterWorkflows?: boolean;
  /**
   * Return each row's contact (all columns, plus `ord`, the row's 1-based place in $2, `entered` and `erased`); else
   * one row with `entered` and `erased` (rows skipped because their address was erased).
   */
  returnContacts?: boolean;
}

/**
 * The SET list of an update of contact `stored` by row `row`: a value given replaces the stored one, a column named in
 * the row's `clear` is emptied first (when `canClear`: the insert's conflict arbiter sees only the proposed row,
 * EXCLUDED, which has no `clear`), metadata merges; the version goes up.
 */
function setList(row: string, stored: string, canClear: boolean): string {
  const cleared = (col: string, empty: string) =>
    canClear ? `CASE WHEN '${col}' = ANY(${row}.clear) THEN ${empty} ELSE ${stored}.${col} END` : `${stored}.${col}`;
  const cols = ['first_name', 'last_name', 'timezone', 'date_of_birth'].map((col) => `${col} = COALESCE(${row}.${col}, ${cleared(col, 'NULL')})`);
  return [
    ...cols,
    `json = ${cleared('json', "'{}'::jsonb")} || COALESCE(${row}.json, '{}'::jsonb)`,
    `version = ${stored}.version + 1`,
    'updated_at = now()',
  ].join(',\n         ');
}

/**
 * upsertContactsSql builds the contact upsert: project $1, rows $2 (JSON text, an array of UpsertRow), segment $3 with
 * `segment`. Rows with an id (or `match` and a live contact with their address, case-insensitive) update that contact
 * (a value given replaces the stored one, `clear` empties, metadata merges unless cleared; `only_new` rows are left
 * as they are); the rest are inserted, and one whose address a live contact already has (an import, or a simultaneous
 * insert) updates it instead: values given replace the stored ones, the rest are kept (no `clear` on that path). Every contact changed gets version + 1. The rows must not repeat an
 * address (callers check); an id must be a live contact of the project (callers check, it is otherwise skipped).
 */
export function upsertContactsSql(o: UpsertOptions = {}): string {
  const byTarget = o.byTarget ?? true;
  const target = byTarget
    ? `CASE WHEN t.id IS NOT NULL THEN t.id
                     WHEN t.match THEN (SELECT c.id FROM contacts c WHERE c.project_id = $1 AND lower(c.email) = lower(t.email) AND c.archived_at IS NULL LIMIT 1)
                END`
    : 'NULL::uuid';
  const parts = [
    `given AS (
    SELECT t.* FROM ROWS FROM (json_to_recordset($2::json) AS (id uuid, email text, first_name text, last_name text, timezone text,
             date_of_birth timestamptz, json jsonb, clear text[], match boolean, only_new boolean, pending boolean, address_hash text))
           WITH ORDINALITY AS t(id, email, first_name, last_name, timezone, date_of_birth, json, clear, match, only_new, pending, address_hash, ord))`,
    // An erased address is never stored again (core/privacy/erasure.ts): its row is skipped.
    `input AS (
    SELECT t.*, ${target} AS target FROM given t
     WHERE t.address_hash IS NULL OR NOT EXISTS (SELECT 1 FROM erasures x WHERE x.project_id = $1 AND x.address_hash = t.address_hash))`,
    // The insert's conflict arbiter sees only the proposed row (EXCLUDED), not `clear`: rows that must clear go by target.
    ...(byTarget
      ? [
          `updated AS (
    UPDATE contacts c SET email = i.email, ${setList('i', 'c', true)}
      FROM input i WHERE i.target IS NOT NULL AND c.id = i.target AND c.project_id = $1 AND c.archived_at IS NULL AND NOT coalesce(i.only_new, false)
    RETURNING c.*)`,
        ]
      : []),
    `inserted AS (
    INSERT INTO contacts (project_id, email, first_name, last_name, timezone, date_of_birth, json, confirmation_pending_at)
    SELECT $1, email, first_name, last_name, timezone, date_of_birth, COALESCE(json, '{}'::jsonb), CASE WHEN pending THEN now() END
      FROM input WHERE target IS NULL
    ON CONFLICT (project_id, lower(email)) WHERE archived_at IS NULL DO UPDATE SET
         ${setList('EXCLUDED', 'contacts', false)}
    RETURNING contacts.*)`,
    byTarget ? `written AS (SELECT * FROM updated UNION ALL SELECT * FROM inserted)` : `written AS (SELECT * FROM inserted)`,
  ];
  if (o.segment) parts.push(`members AS (INSERT INTO segment_members (segment_id, contact_id) SELECT $3::uuid, id FROM written ON CONFLICT DO NOTHING)`);
  parts.push(o.enterWorkflows ? `entered AS (${enterUpsertedFrom('written')})` : `entered AS (SELECT 0 AS n)`);
  const kept = byTarget ? ' UNION ALL SELECT k.* FROM contacts k JOIN input j ON k.id = j.target AND j.only_new' : '';
  const erased = `((SELECT count(*) FROM given) - (SELECT count(*) FROM input))::int AS erased`;
  const result = o.returnContacts
    ? `SELECT c.*, i.ord, (SELECT n FROM entered)::int AS entered, ${erased}
     FROM input i JOIN (SELECT * FROM written${kept}) c
       ON c.id = i.target OR (i.target IS NULL AND lower(c.email) = lower(i.email))
    ORDER BY i.ord`
    : `SELECT (SELECT n FROM entered)::int AS entered, ${erased}`;
  return `WITH ${parts.join(',\n  ')}\n  ${result}`;
}
