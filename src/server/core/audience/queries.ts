/**
 * Named SQL of blast audiences: the SQL that decides who a blast reaches (spec part 2 §3-§5 Email blast). Read by
 * blastAudience (./index.ts) only.
 */

/** TEMPLATES_ARE_MARKETING: whether any of $1 template ids is a marketing template (true when none is known: unknown counts as marketing). */
export const TEMPLATES_ARE_MARKETING = "SELECT coalesce(bool_or(type = 'TEMPLATE_MARKETING'), true) AS marketing FROM templates WHERE id = ANY($1::uuid[])";

/**
 * BLAST_AUDIENCE: every live contact of project $1 an audience names — ids $2, addresses $3 (lower-case), members
 * of segments $4 — with why it is left out, if it is (`excluded`): 'bounced' (hard-bounced, or a 'bounce'
 * suppression-list entry) and 'suppressed' (complained, or any other entry but 'unsubscribed') from all mail;
 * 'unsubscribed' (unsubscribed_at, or an 'unsubscribed' entry) only when $5 (the mail is marketing). Ordered by id.
 */
export const BLAST_AUDIENCE = `SELECT c.id, c.email, c.timezone,
            CASE WHEN c.bounced_at IS NOT NULL OR s.reason = 'bounce' THEN 'bounced'
                 WHEN c.complained_at IS NOT NULL OR s.reason <> 'unsubscribed' THEN 'suppressed'
                 WHEN $5 AND (c.unsubscribed_at IS NOT NULL OR s.reason = 'unsubscribed') THEN 'unsubscribed' END AS excluded
       FROM contacts c LEFT JOIN suppressions s ON s.project_id = c.project_id AND s.email = lower(c.email)
      WHERE c.project_id = $1 AND c.archived_at IS NULL
        AND (c.id = ANY($2::uuid[]) OR lower(c.email) = ANY($3::text[])
             OR EXISTS (SELECT 1 FROM segment_members sm JOIN segments s ON s.id = sm.segment_id
                         WHERE sm.contact_id = c.id AND s.project_id = $1 AND sm.segment_id = ANY($4::uuid[])))
      ORDER BY c.id`;
