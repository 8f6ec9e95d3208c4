/**
 * Named SQL of blast audiences: the SQL that decides who a blast reaches (spec part 2 §3-§5 Email blast). Read by
 * blastAudience and audienceCounts (./index.ts) only. Both read one definition, AUDIENCE_CTE.
 */

/** TEMPLATES_ARE_MARKETING: whether any of $1 template ids is a marketing template (true when none is known: unknown counts as marketing). */
export const TEMPLATES_ARE_MARKETING = "SELECT coalesce(bool_or(type = 'TEMPLATE_MARKETING'), true) AS marketing FROM templates WHERE id = ANY($1::uuid[])";

/**
 * AUDIENCE_CTE (`audience`): every live contact of project $1 an audience names — ids $2, addresses $3 (lower-case),
 * members of segments $4 (`named`: the union of the three id sets, so each is read by its index and joined once) — with why it is left out, if it is (`excluded`): 'bounced' (hard-bounced, or a 'bounce'
 * suppression-list entry) and 'suppressed' (complained, or any other entry but 'unsubscribed') from all mail;
 * 'unsubscribed' (unsubscribed_at, or an 'unsubscribed' entry) only when $5 (the mail is marketing); else 'invalid'
 * for an address checkEmail would refuse (email_is_valid, core/audience/sql).
 */
const AUDIENCE_CTE = `named AS (
    SELECT sm.contact_id AS id FROM segment_members sm JOIN segments g ON g.id = sm.segment_id
     WHERE sm.segment_id = ANY($4::uuid[]) AND g.project_id = $1
    UNION SELECT unnest($2::uuid[])
    UNION SELECT id FROM contacts WHERE project_id = $1 AND lower(email) = ANY($3::text[])),
  audience AS (
  SELECT c.id, c.email, c.timezone,
         CASE WHEN c.bounced_at IS NOT NULL OR s.reason = 'bounce' THEN 'bounced'
              WHEN c.complained_at IS NOT NULL OR s.reason <> 'unsubscribed' THEN 'suppressed'
              WHEN $5 AND (c.unsubscribed_at IS NOT NULL OR s.reason = 'unsubscribed') THEN 'unsubscribed'
              WHEN NOT email_is_valid(c.email) THEN 'invalid' END AS excluded
    FROM named n JOIN contacts c ON c.id = n.id
         LEFT JOIN suppressions s ON s.project_id = c.project_id AND s.email = lower(c.email)
   WHERE c.project_id = $1 AND c.archived_at IS NULL)`;

/** BLAST_AUDIENCE: the AUDIENCE_CTE rows (id, email, timezone, excluded), ordered by id; $1-$5 as AUDIENCE_CTE. */
export const BLAST_AUDIENCE = `WITH ${AUDIENCE_CTE} SELECT id, email, timezone, excluded FROM audience ORDER BY id`;

/**
 * AUDIENCE_COUNTS: the audience counted without returning it; $1-$5 as AUDIENCE_CTE; $6 whether the sandbox rule
 * applies; $7 the lower-case addresses it allows (the simulator's and the sender personas'). One row: `found` (live
 * contacts named), the left out by reason, `missing_ids` / `missing_emails` (distinct ids and addresses chosen directly
 * that name no live contact), `to_send`, `sandbox_refused` (recipients the sandbox does not allow) with the first five
 * of their addresses by contact id, and `domains`: recipients per lower-case domain, for the governor's estimate. The
 * counts are one pass over the audience (FILTER), the first five and the domains two more.
 */
export const AUDIENCE_COUNTS = `WITH ${AUDIENCE_CTE},
  refused AS (SELECT id, email, excluded, excluded IS NULL AND $6 AND lower(btrim(email, E' \t\n\r\f\v')) <> ALL($7::text[]) AS refused FROM audience)
  SELECT t.*,
         (SELECT count(DISTINCT i) FROM unnest($2::uuid[]) i WHERE NOT EXISTS (SELECT 1 FROM audience a WHERE a.id = i))::int AS missing_ids,
         (SELECT count(DISTINCT e) FROM unnest($3::text[]) e WHERE NOT EXISTS (SELECT 1 FROM audience a WHERE lower(a.email) = e))::int AS missing_emails,
         (SELECT coalesce(array_agg(email ORDER BY id), '{}') FROM (SELECT id, email FROM refused WHERE refused ORDER BY id LIMIT 5) f) AS sandbox_first,
         (SELECT coalesce(json_object_agg(domain, n), '{}') FROM (SELECT lower(split_part(btrim(email, E' \t\n\r\f\v'), '@', 2)) AS domain, count(*)::int AS n
                   FROM audience WHERE excluded IS NULL GROUP BY 1) d) AS domains
    FROM (SELECT count(*)::int AS found,
                 (count(*) FILTER (WHERE excluded = 'bounced'))::int AS bounced,
                 (count(*) FILTER (WHERE excluded = 'suppressed'))::int AS suppressed,
                 (count(*) FILTER (WHERE excluded = 'unsubscribed'))::int AS unsubscribed,
                 (count(*) FILTER (WHERE excluded = 'invalid'))::int AS invalid,
                 (count(*) FILTER (WHERE excluded IS NULL))::int AS to_send,
                 (count(*) FILTER (WHERE refused))::int AS sandbox_refused
            FROM refused) t`;
