/**
 * Named SQL of contacts (spec part 2 contacts; contact file imports): the import's upsert and its job-log entry.
 */

/**
 * UPSERT_CONTACTS_JSON: creates or updates contacts of project $1 by address (case-insensitive, among live contacts)
 * from $2, one JSON array of {email, first_name, last_name, timezone, date_of_birth, json}: a value given replaces the
 * stored one, metadata is merged, and the version goes up. One JSON document is far cheaper to send than seven text
 * arrays (node-postgres escapes array elements one by one, the server parses array literals).
 */
export const UPSERT_CONTACTS_JSON = `INSERT INTO contacts (project_id, email, first_name, last_name, timezone, date_of_birth, json)
       SELECT $1, email, first_name, last_name, timezone, date_of_birth, COALESCE(json, '{}'::jsonb)
         FROM json_to_recordset($2::json)
           AS t(email text, first_name text, last_name text, timezone text, date_of_birth timestamptz, json jsonb)
       ON CONFLICT (project_id, lower(email)) WHERE archived_at IS NULL DO UPDATE SET
         first_name = COALESCE(EXCLUDED.first_name, contacts.first_name),
         last_name = COALESCE(EXCLUDED.last_name, contacts.last_name),
         timezone = COALESCE(EXCLUDED.timezone, contacts.timezone),
         date_of_birth = COALESCE(EXCLUDED.date_of_birth, contacts.date_of_birth),
         json = contacts.json || EXCLUDED.json,
         version = contacts.version + 1,
         updated_at = now()`;

/** ADD_WRITTEN_TO_SEGMENT: the contacts of CTE `written` join segment $3 (a segment upload's). */
export const ADD_WRITTEN_TO_SEGMENT = 'INSERT INTO segment_members (segment_id, contact_id) SELECT $3::uuid, id FROM written ON CONFLICT DO NOTHING';

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
