/**
 * Named SQL of blast audiences: the SQL that decides who a blast reaches (spec part 2 §3-§5 Email blast). One
 * definition, audienceCte, counted whole by audienceCountsSql (audienceCounts: the preview and the save-time sandbox
 * check) and read a chunk at a time by the expansion (core/blasts queueAudienceChunkSql, with AUDIENCE_SPAN,
 * AUDIENCE_MISSING and PROJECT_TIMEZONES).
 */
import { contactsSampleSql } from '../contacts/index.ts';
import { exclusionSql } from './exclusion.ts';
import { overCapAtExpansionSql, overCapInRangeSql, policyJoins, sunsetSql, type PolicyUse } from './policies.ts';

/**
 * The audience-health policies an audience query applies (./policies.ts): which exclusions are on, whether the
 * contacts' open hours are read (send-time optimisation), and for a blast, SQL giving whether it is a re-engagement
 * blast (`reEngagement`, default false) and its id (`blast`, default NULL).
 */
export interface AudiencePolicyOptions extends PolicyUse {
  bestHour?: boolean;
  reEngagement?: string;
  blast?: string;
}

/**
 * policyArgs: a CTE typing the placeholders of a blast's re-engagement flag and id, so a statement takes them whether
 * or not its policies read them (an unreferenced CTE costs nothing), as audienceCte's `lists` does for the lists.
 */
export const policyArgs = (reEngagement: string, blast: string) =>
  `policy_args AS (SELECT ${reEngagement}::boolean AS re_engagement, ${blast}::uuid AS blast_id)`;

/** No policy applied: the audience's SQL reads no policy row. */
export const NO_POLICIES: AudiencePolicyOptions = { sunset: false, frequency: false };

/**
 * AUDIENCE_TOPIC: the subscription topic of a blast's mail: the blast's own topic $1, else the topic its
 * templates $2 all name; NULL when neither (or the topic is deleted). The sender checks each email's template again
 * at send time.
 */
export const AUDIENCE_TOPIC = `SELECT (SELECT t.id FROM topics t WHERE t.archived_at IS NULL AND t.id = coalesce($1::uuid,
    (SELECT CASE WHEN count(DISTINCT topic_id) = 1 AND bool_and(topic_id IS NOT NULL) THEN min(topic_id::text)::uuid END
       FROM templates WHERE id = ANY($2::uuid[])))) AS topic_id`;

/** TEMPLATES_ARE_MARKETING: whether any of $1 template ids is a marketing template (true when none is known: unknown counts as marketing). */
export const TEMPLATES_ARE_MARKETING = "SELECT coalesce(bool_or(type = 'TEMPLATE_MARKETING'), true) AS marketing FROM templates WHERE id = ANY($1::uuid[])";

/**
 * The shape of an audience, which picks the SQL that reads it: how many segments it names and whether it names
 * contacts by id or by address. Only the id sets an audience uses are read, and one segment alone needs no
 * de-duplication (its members are unique), which spares a sort of the whole audience.
 */
export interface AudienceShape {
  segments: number;
  ids: boolean;
  emails: boolean;
}

/** audienceShape describes an audience's lists (see AudienceShape). */
export function audienceShape(a: { to_segment_ids?: string[]; to_user_ids?: string[]; to_user_emails?: string[] }): AudienceShape {
  return { segments: a.to_segment_ids?.length ?? 0, ids: !!a.to_user_ids?.length, emails: !!a.to_user_emails?.length };
}

/**
 * audienceCte (`lists`, `named`, `audience`): every live contact of project $1 an audience names — ids $2, addresses $3
 * (lower-case), members of segments $4 (`named`: the union of the id sets the audience uses, `shape`, so each is read
 * by its index and joined once) — with why it is left out, if it is (`excluded`: the rule of ./exclusion.ts
 * exclusionSql, the opt-outs applying when $5, the mail is marketing, and its subscription topic the placeholder named
 * by `topic`, a uuid or NULL), and the project's policies `policies` (sunset, frequency: ./policies.ts; with
 * `bestHour`, each contact's `best_hour`, else NULL). With `range`, only contact ids
 * in (lo, hi] — two placeholders, e.g. ['$6', '$7'] — so an expansion reads its audience a chunk at a time, each by
 * an index range. Without `shape`, every list is read (always correct; the shape only leaves out empty ones). With
 * `samplePercent`, only the contacts on a random sample of that share of the contacts table's pages (an estimate).
 */
export function audienceCte(
  range?: [lo: string, hi: string],
  shape: AudienceShape = { segments: 2, ids: true, emails: true },
  samplePercent?: number,
  topic?: string,
  policies: AudiencePolicyOptions = NO_POLICIES,
): string {
  const within = (col: string) => (range ? ` AND ${col} > ${range[0]}::uuid AND ${col} <= ${range[1]}::uuid` : '');
  const branches = [
    ...(shape.segments
      ? [
          `SELECT sm.contact_id AS id FROM segment_members sm JOIN segments g ON g.id = sm.segment_id
     WHERE sm.segment_id = ANY($4::uuid[]) AND g.project_id = $1${within('sm.contact_id')}`,
        ]
      : []),
    ...(shape.ids ? [`SELECT i AS id FROM unnest($2::uuid[]) i WHERE true${within('i')}`] : []),
    ...(shape.emails ? [`SELECT id FROM contacts WHERE project_id = $1 AND lower(email) = ANY($3::text[])${within('id')}`] : []),
  ];
  const unique = branches.length === 1 && shape.segments <= 1;
  const named = branches.length ? branches.join('\n    UNION ') : 'SELECT NULL::uuid AS id WHERE false';
  // An estimate (audienceCounts with a sample) reads only a random share of the contacts table's pages.
  const sample = samplePercent === undefined ? '' : contactsSampleSql(samplePercent);
  // Lists left out still have their placeholders typed (an unreferenced CTE costs nothing).
  return `lists AS (SELECT $2::uuid[] AS ids, $3::text[] AS emails, $4::uuid[] AS segments),
  named AS (
    ${unique ? named : `SELECT DISTINCT id FROM (${named}) u`}),
  audience AS (
  SELECT c.id, c.email, c.timezone, ${policies.bestHour ? 'k.best_hour' : 'NULL::smallint AS best_hour'},
         ${exclusionSql({
           contact: 'c',
           suppression: 's',
           email: 'c.email',
           marketing: '$5',
           topic,
           sunset: policies.sunset ? sunsetSql('c.id', policies.reEngagement, policies.blast) : undefined,
           overCap: policies.frequency ? (range ? 'fc.contact_id IS NOT NULL' : overCapAtExpansionSql('c.id', policies.blast)) : undefined,
         })} AS excluded
    FROM named n JOIN contacts c${sample} ON c.id = n.id
         LEFT JOIN suppressions s ON s.project_id = c.project_id AND s.email = lower(c.email)${policies.sunset || policies.frequency || policies.bestHour ? policyJoins('$1', 'c.id') : ''}${
           policies.frequency && range ? `\n         LEFT JOIN ${overCapInRangeSql('$1', range[0], range[1], policies.blast)} fc ON fc.contact_id = c.id` : ''
         }
   WHERE c.project_id = $1 AND c.archived_at IS NULL)`;
}

/**
 * sandboxRefusedSql: whether the sandbox refuses the address `email` (SQL), given `allowed`, a text[] placeholder of
 * the lower-case addresses it allows (the simulator's and the project's sender personas'): the rule of
 * domain/sandbox.ts sandboxRejection, in SQL, for the preview, the save-time check and the expansion.
 */
export const sandboxRefusedSql = (email: string, allowed: string) => `lower(btrim(${email}, E' \t\n\r\f\v')) <> ALL(${allowed}::text[])`;

/**
 * AUDIENCE_SPAN: where the next chunk of an audience ends — the largest contact id of the chunk that starts after
 * contact id $2 and holds about $3 members of each segment of $4 (the smallest of the segments' $3-th ids after $2,
 * each an index range of segment_members; ids $5 chosen directly count too). NULL when what is left is smaller than
 * that: the chunk runs to the end. Project $1 guards the segments.
 */
export const AUDIENCE_SPAN = `SELECT least(
    (SELECT b FROM segments g, LATERAL (SELECT contact_id AS b FROM segment_members sm
        WHERE sm.segment_id = g.id AND sm.contact_id > $2::uuid ORDER BY sm.contact_id OFFSET $3::int - 1 LIMIT 1) x
      WHERE g.id = ANY($4::uuid[]) AND g.project_id = $1 ORDER BY b LIMIT 1),
    (SELECT i FROM unnest($5::uuid[]) i WHERE i > $2::uuid ORDER BY i OFFSET $3::int - 1 LIMIT 1)) AS hi`;

/**
 * AUDIENCE_MISSING: of the ids $2 and lower-case addresses $3 an audience names directly, how many distinct ones name
 * no live contact of project $1 (`missing_ids`, `missing_emails`): counted as not_a_contact, never silently dropped.
 */
export const AUDIENCE_MISSING = `SELECT
    (SELECT count(DISTINCT i) FROM unnest($2::uuid[]) i WHERE NOT EXISTS (SELECT 1 FROM contacts c WHERE c.id = i AND c.project_id = $1 AND c.archived_at IS NULL))::int AS missing_ids,
    (SELECT count(DISTINCT e) FROM unnest($3::text[]) e WHERE NOT EXISTS (SELECT 1 FROM contacts c WHERE c.project_id = $1 AND lower(c.email) = e AND c.archived_at IS NULL))::int AS missing_emails`;

/** PROJECT_TIMEZONES: the distinct time zones (as written, '' for none) of project $1's live contacts, for a contact-local blast's send instants. */
export const PROJECT_TIMEZONES = "SELECT DISTINCT coalesce(timezone, '') AS timezone FROM contacts WHERE project_id = $1 AND archived_at IS NULL";

/**
 * audienceCountsSql: the audience of `shape` counted without returning it, in one pass; $1-$5 as audienceCte; $6
 * whether the sandbox rule applies; $7 the lower-case addresses it allows (the simulator's and the sender personas');
 * $8 the mail's subscription topic (AUDIENCE_TOPIC) or NULL.
 * One row per (domain, excluded, refused) with its count `n`: the domain as written after the '@' (the caller folds
 * case and blanks), why left out (NULL: sent to), and whether the sandbox refuses it — few rows, from which every
 * figure of the preview is summed. With `samplePercent`, over a sample of the contacts (see audienceCte). `policies` as
 * audienceCte's, with $9 whether the blast is a re-engagement blast and $10 its id (or NULL).
 */
export const audienceCountsSql = (
  shape: AudienceShape,
  samplePercent?: number,
  policies: PolicyUse = NO_POLICIES,
) => `WITH ${policyArgs('$9', '$10')}, ${audienceCte(undefined, shape, samplePercent, '$8', { ...policies, reEngagement: '$9::boolean', blast: '$10' })}
  SELECT split_part(email, '@', 2) COLLATE "C" AS domain, excluded, excluded IS NULL AND $6 AND ${sandboxRefusedSql('email', '$7')} AS refused, count(*)::int AS n
    FROM audience GROUP BY 1, 2, 3`;

/**
 * audienceSandboxFirstSql: the first five addresses (by contact id) of the audience of `shape` the sandbox refuses; $1-$5 as audienceCte, $6 the
 * allowed addresses, $7 the topic; `policies` as audienceCountsSql's, with $8 re-engagement and $9 the blast id.
 */
export const audienceSandboxFirstSql = (shape: AudienceShape, policies: PolicyUse = NO_POLICIES) => `WITH ${policyArgs('$8', '$9')}, ${audienceCte(
  undefined,
  shape,
  undefined,
  '$7',
  {
    ...policies,
    reEngagement: '$8::boolean',
    blast: '$9',
  },
)}
  SELECT email FROM audience WHERE excluded IS NULL AND ${sandboxRefusedSql('email', '$6')} ORDER BY id LIMIT 5`;
