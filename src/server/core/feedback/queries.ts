/**
 * Named SQL of delivery feedback (spec part 1 §3 Events; RFC 8058 one-click): the outbox row a tracking or unsubscribe
 * link names, unsubscribes, the suppression list. Every statement is scoped to one project ($1).
 */

/** SENT_ROW: the outbox row a signed link names. $1 outbox id, $2 project id. */
export const SENT_ROW = `SELECT id, email, contact_id, blast_id, template_id, message_id, workflow_id, workflow_hops,
       (extract(epoch FROM now() - sent_at) * 1000)::float8 AS ms_since_sent
  FROM outbox WHERE id = $1 AND project_id = $2`;

/**
 * EMAIL_ENGAGEMENT: an email's opens and clicks so far (events_message_engagement_idx): id, name, when (ms since the
 * epoch), the click's link, user agent, and whether it counts as a person's (event_is_human). $1 project, $2 Message-ID.
 */
export const EMAIL_ENGAGEMENT = `SELECT id, name, (extract(epoch FROM emitted_at) * 1000)::float8 AS at,
       coalesce(json->>'link', json->'click'->>'link') AS link, coalesce(json->>'user_agent', '') AS user_agent,
       event_is_human(json) AS human
  FROM events WHERE (json->>'message_id') = $2 AND name IN ('ses_event_open', 'ses_event_click') AND project_id = $1`;

/** What feedback about an email records of it: its contact, blast, template, the relay that sent it and its From's domain. */
export interface SentRow {
  contact_id: string | null;
  blast_id: string | null;
  template_id: string | null;
  relay: string | null;
  sending_domain: string | null;
  /** When the row names no contact: the live contact with its address, when the caller looked (undefined: not looked). */
  live_contact_id?: string | null;
}

/** SENT_ROW_COLUMNS: a SentRow's columns, over outbox `o` LEFT JOIN sender_personas `sp` (the email's persona). */
export const SENT_ROW_COLUMNS = `o.contact_id, o.blast_id, o.template_id, o.relay, split_part(lower(sp.email), '@', 2) AS sending_domain`;

/** SENT_ROW_BY_MESSAGE_ID: the email a bounce or complaint names by Message-ID and address (SentRow). $1 project, $2 Message-ID, $3 address. */
export const SENT_ROW_BY_MESSAGE_ID = `SELECT ${SENT_ROW_COLUMNS}
  FROM outbox o LEFT JOIN sender_personas sp ON sp.id = o.sender_persona_id
 WHERE o.project_id = $1 AND o.message_id = $2 AND lower(o.email) = lower($3) LIMIT 1`;

/** LIVE_CONTACT_BY_EMAIL: the project's live contact with an address (case-insensitive). $1 project, $2 address. */
export const LIVE_CONTACT_BY_EMAIL = 'SELECT id FROM contacts WHERE project_id = $1 AND lower(email) = lower($2) AND archived_at IS NULL LIMIT 1';

/**
 * RECIPIENT_CONTACTS: the contacts an email's recipient is: the row's contact (archived or not), or for a recipient
 * that was not a contact, the live contacts with its address. $1 project, $2 contact id or NULL, $3 address.
 */
export const RECIPIENT_CONTACTS =
  'SELECT id FROM contacts WHERE project_id = $1 AND (id = $2 OR ($2::uuid IS NULL AND lower(email) = lower($3) AND archived_at IS NULL))';

/**
 * UNSUBSCRIBE_STATE: whether a recipient is unsubscribed already (the contact's unsubscribed_at, or an 'unsubscribed'
 * suppression-list entry for the address) and the company's name. $1 project, $2 contact id or NULL, $3 address.
 */
export const UNSUBSCRIBE_STATE = `SELECT (c.unsubscribed_at IS NOT NULL OR s.email IS NOT NULL) AS unsubscribed, co.name AS company
       FROM projects p JOIN companies co ON co.id = p.company_id
       LEFT JOIN contacts c ON c.id = $2 AND c.project_id = p.id
       LEFT JOIN suppressions s ON s.project_id = p.id AND s.email = lower($3) AND s.reason = 'unsubscribed'
      WHERE p.id = $1`;

/** UNSUBSCRIBE_CONTACTS: sets unsubscribed_at once on contacts; returns the ids this statement changed. $1 project, $2 contact ids. */
export const UNSUBSCRIBE_CONTACTS =
  'UPDATE contacts SET unsubscribed_at = now(), updated_at = now() WHERE project_id = $1 AND id = ANY($2::uuid[]) AND unsubscribed_at IS NULL RETURNING id';

/**
 * SUPPRESS_ADDRESSES: puts addresses on the suppression list (lower-cased) with a reason and detail each; an address
 * already listed keeps its entry. The insert is the atomic check, so two requests at once add one entry. Returns the
 * addresses added. $1 project, $2 addresses, $3 reasons, $4 details.
 */
export const SUPPRESS_ADDRESSES = `INSERT INTO suppressions (project_id, email, reason, detail)
     SELECT $1, lower(u.email), u.reason, u.detail FROM unnest($2::text[], $3::text[], $4::text[]) AS u(email, reason, detail)
     ON CONFLICT (project_id, email) DO NOTHING RETURNING email`;

/** MARK_CONTACTS_BOUNCED / MARK_CONTACTS_COMPLAINED: the first hard bounce / complaint date of contacts by address. $1 project, $2 lower-case addresses. */
export const MARK_CONTACTS_BOUNCED = `UPDATE contacts SET bounced_at = coalesce(bounced_at, now()), updated_at = now()
      WHERE project_id = $1 AND lower(email) = ANY($2::text[])`;
export const MARK_CONTACTS_COMPLAINED = `UPDATE contacts SET complained_at = coalesce(complained_at, now()), updated_at = now()
      WHERE project_id = $1 AND lower(email) = ANY($2::text[])`;

/** UNSUPPRESS_ADDRESSES: takes addresses off the list; returns those removed. $1 project, $2 lower-case addresses. */
export const UNSUPPRESS_ADDRESSES = 'DELETE FROM suppressions WHERE project_id = $1 AND email = ANY($2::text[]) RETURNING email';

/** CLEAR_CONTACT_BOUNCES: clears bounced_at / complained_at of contacts by address. $1 project, $2 lower-case addresses. */
export const CLEAR_CONTACT_BOUNCES = `UPDATE contacts SET bounced_at = NULL, complained_at = NULL, updated_at = now()
      WHERE project_id = $1 AND lower(email) = ANY($2::text[]) AND (bounced_at IS NOT NULL OR complained_at IS NOT NULL)`;

/** listSuppressionsSql: one page of the list, newest first, and the count; `filtered` adds `email ILIKE $2`. */
export function listSuppressionsSql(filtered: boolean, limit: number, offset: number): { page: string; count: string } {
  const filter = filtered ? 'AND email ILIKE $2' : '';
  return {
    page: `SELECT email, reason, detail, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
         FROM suppressions WHERE project_id = $1 ${filter} ORDER BY created_at DESC, email
        LIMIT ${Number(limit)} OFFSET ${Number(offset)}`,
    count: `SELECT count(*)::int AS total FROM suppressions WHERE project_id = $1 ${filter}`,
  };
}

/**
 * EMAIL_TOPIC: the subscription topic of the email outbox row $2 of project $1: its blast's topic, else
 * its template's; no row when it has none (or the topic is deleted).
 */
export const EMAIL_TOPIC = `SELECT t.id, t.name FROM outbox o
       LEFT JOIN email_blasts b ON b.id = o.blast_id
       LEFT JOIN templates tp ON tp.id = o.template_id
       JOIN topics t ON t.id = coalesce(b.topic_id, tp.topic_id) AND t.project_id = o.project_id AND t.archived_at IS NULL
      WHERE o.id = $2 AND o.project_id = $1`;

/**
 * PREFERENCES: a recipient's preference centre: every live topic of project $1, by name, and whether
 * contact $2 has left it (false for a recipient who is no contact).
 */
export const PREFERENCES = `SELECT t.id, t.name, t.description, coalesce(t.id = ANY(c.unsubscribed_topic_ids), false) AS left_topic
       FROM topics t LEFT JOIN contacts c ON c.id = $2 AND c.project_id = t.project_id
      WHERE t.project_id = $1 AND t.archived_at IS NULL ORDER BY lower(t.name), t.id`;

/** LEAVE_TOPIC: contacts $2 of project $1 leave topic $3 once; returns the ids this statement changed. */
export const LEAVE_TOPIC = `UPDATE contacts SET unsubscribed_topic_ids = array_append(unsubscribed_topic_ids, $3::uuid), updated_at = now()
  WHERE project_id = $1 AND id = ANY($2::uuid[]) AND NOT ($3::uuid = ANY(unsubscribed_topic_ids)) RETURNING id`;

/**
 * SET_TOPICS: contacts $2 of project $1 are subscribed to exactly the live topics $3 (they leave every other live topic);
 * with $4 they are resubscribed to marketing mail (unsubscribed_at cleared). Returns the ids changed.
 */
export const SET_TOPICS = `UPDATE contacts c SET unsubscribed_topic_ids = x.left_ids, unsubscribed_at = CASE WHEN $4 THEN NULL ELSE c.unsubscribed_at END, updated_at = now()
  FROM (SELECT coalesce(array_agg(t.id ORDER BY t.id) FILTER (WHERE NOT (t.id = ANY($3::uuid[]))), '{}') AS left_ids
          FROM topics t WHERE t.project_id = $1 AND t.archived_at IS NULL) x
 WHERE c.project_id = $1 AND c.id = ANY($2::uuid[])
   AND (c.unsubscribed_topic_ids IS DISTINCT FROM x.left_ids OR ($4 AND c.unsubscribed_at IS NOT NULL)) RETURNING c.id`;

/** RESUBSCRIBE_ADDRESS: takes an 'unsubscribed' suppression-list entry of address $2 off project $1's list. */
export const RESUBSCRIBE_ADDRESS = "DELETE FROM suppressions WHERE project_id = $1 AND email = lower($2) AND reason = 'unsubscribed'";
