/**
 * Named SQL of contacts (spec part 2 contacts; contact file imports): the import's job-log entry and metadata merges.
 * The contact upsert itself is ./upsert.ts.
 */

/** IMPORT_JOB: the import job-log entry $1: project, details, whether it has ended. */
export const IMPORT_JOB = 'SELECT project_id, start_details, ended_at IS NOT NULL AS ended FROM job_log WHERE id = $1';

/** IMPORT_PROGRESS: merges progress $2 (json) into the start details of entry $1. */
export const IMPORT_PROGRESS = 'UPDATE job_log SET start_details = start_details || $2::jsonb WHERE id = $1';

/** SHOW_UPLOADED_SEGMENT: a segment upload's segment $1 becomes visible once its file has been read. */
export const SHOW_UPLOADED_SEGMENT = 'UPDATE segments SET invisible = false WHERE id = $1';

/** IMPORT_END: ends entry $1 with success $2, start details merged with $3 and end details $4. */
export const IMPORT_END = `UPDATE job_log SET ended_at = now(), success = $2, start_details = start_details || $3::jsonb, end_details = $4::jsonb WHERE id = $1`;

/** MERGE_CONTACT_METADATA: merges json $3 into the metadata of live contacts $2 of project $1; returns the ids updated. */
export const MERGE_CONTACT_METADATA = `UPDATE contacts SET json = json || $3::jsonb, updated_at = now(), version = version + 1
            WHERE project_id = $1 AND id = ANY($2::uuid[]) AND archived_at IS NULL RETURNING id`;

/**
 * MERGED_INTO: for each address of $2 (text[]), its place in $2 (`ord`, 1-based) and the address of project $1's live
 * contact with it, as stored (compared as the contacts table does, lower(email)); addresses without one are left out.
 */
export const MERGED_INTO = `SELECT i.ord::int AS ord, c.email FROM unnest($2::text[]) WITH ORDINALITY AS i(email, ord)
              JOIN contacts c ON c.project_id = $1 AND lower(c.email) = lower(i.email) AND c.archived_at IS NULL`;

/**
 * RECORD_IMPORT_CONSENT: an import's "these people gave consent again" (core/contacts/import.ts), for project $1's
 * live contacts with the addresses $2 (lower case): each stops being unsubscribed from marketing and gets a consent
 * record with the text $3, source 'import:' || $4 (the file's name) and who ran it, $5. Suppressions and erasures are
 * not touched (an erased address has no contact). Run in the batch's transaction, after its upsert.
 */
export const RECORD_IMPORT_CONSENT = `WITH c AS (
    SELECT id, email FROM contacts WHERE project_id = $1 AND archived_at IS NULL AND lower(email) = ANY($2::text[])),
  r AS (
    UPDATE contacts SET unsubscribed_at = NULL, updated_at = now(), version = version + 1
      FROM c WHERE contacts.id = c.id AND contacts.unsubscribed_at IS NOT NULL)
  INSERT INTO consents (project_id, contact_id, form_id, email, consent_text, source, recorded_by)
  SELECT $1, c.id, NULL, c.email, $3, 'import:' || $4, $5 FROM c`;
