/**
 * Campaigns (spec part 2 §3 Campaign, §5, §7): named groups of email blasts, workflows or templates, and
 * their metrics from the report aggregates (docs/architecture.md §14). Every query is scoped to one project.
 */
import { randomUUID } from 'node:crypto';
import type { QueryFn } from '../../db/client.ts';
import type { components } from '../../../../generated/types/campaign.gen.ts';
import { BadRequest, HttpError } from '../../errors.ts';
import { CAMPAIGN_NAME_TAKEN, campaignProblems, type CampaignType } from '../../../domain/campaigns.ts';
import { splitList } from '../../../domain/validation.ts';
import { likePattern, orderSql, uuidList } from '../listing.ts';
import { EVENT } from '../../../domain/events.ts';

type Campaign = components['schemas']['Campaign'];
type CampaignInput = components['schemas']['CampaignInput'];
type CampaignWithMetrics = components['schemas']['CampaignWithMetrics'];

interface CampaignRow {
  id: string;
  name: string;
  type: string;
  scheduled_email_blast_group_ids: string[];
  workflow_ids: string[];
  template_ids: string[];
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, name, type, scheduled_email_blast_group_ids, workflow_ids, template_ids, created_at, updated_at';

function toCampaign(r: CampaignRow): Campaign {
  return {
    id: r.id,
    name: r.name,
    type: r.type as CampaignType,
    scheduled_email_blast_group_ids: r.scheduled_email_blast_group_ids ?? [],
    workflow_ids: r.workflow_ids ?? [],
    template_ids: r.template_ids ?? [],
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

/** The report scope of a campaign: the blasts, templates and workflows whose events are its numbers. */
export interface CampaignScope {
  id: string;
  name: string;
  blastIds: string[];
  templateIds: string[];
  workflowIds: string[];
}

/**
 * campaignScope returns the associations of campaign `id` in the project (archived ones too: their reports stay
 * readable), or undefined when the project has no such campaign.
 */
export async function campaignScope(query: QueryFn, projectId: string, id: string): Promise<CampaignScope | undefined> {
  const [row] = await query<CampaignRow>(`SELECT ${COLUMNS} FROM campaigns WHERE project_id = $1 AND id = $2`, [projectId, id]);
  return (
    row && {
      id: row.id,
      name: row.name,
      blastIds: row.scheduled_email_blast_group_ids ?? [],
      templateIds: row.template_ids ?? [],
      workflowIds: row.workflow_ids ?? [],
    }
  );
}

/** The sort keys of the campaign list, as SQL over its columns. */
const LIST_SORT: Record<string, string> = { name: 'lower(name)', type: 'type', created_at: 'created_at', updated_at: 'updated_at' };

/**
 * listCampaigns lists live campaigns: by ids, exact names (case-insensitive; the wizard's name check), a name
 * substring (pick lists), sorted (default newest first) and paged.
 */
export async function listCampaigns(
  query: QueryFn,
  projectId: string,
  q: {
    ids?: string;
    names?: string;
    search_value?: string;
    limit?: number;
    offset?: number;
    sort_columns?: string;
  },
): Promise<Campaign[]> {
  const ids = uuidList(q.ids, 'ids');
  const names = splitList(q.names).map((n) => n.toLowerCase());
  const rows = await query<CampaignRow>(
    `SELECT ${COLUMNS} FROM campaigns
      WHERE project_id = $1 AND archived_at IS NULL
        AND (cardinality($2::uuid[]) = 0 OR id = ANY($2::uuid[]))
        AND (cardinality($3::text[]) = 0 OR lower(name) = ANY($3::text[]))
        AND ($4::text IS NULL OR name ILIKE $4)
      ORDER BY ${orderSql(q.sort_columns, LIST_SORT, 'created_at DESC')}, id
      LIMIT $5 OFFSET $6`,
    [projectId, ids, names, q.search_value?.trim() ? likePattern(q.search_value.trim()) : null, q.limit ?? 10, q.offset ?? 0],
  );
  return rows.map(toCampaign);
}

/**
 * saveCampaign creates campaign `input` (a new id when none is given) or updates the live campaign with its id, after
 * checking the name, type and associations (src/domain/campaigns.ts), that the name is free among the project's live
 * campaigns, and that every blast and template is the project's. Throws BadRequest naming the field.
 */
export async function saveCampaign(query: QueryFn, projectId: string, input: CampaignInput): Promise<Campaign> {
  const c = {
    id: input.id?.toLowerCase() ?? randomUUID(),
    name: input.name.trim(),
    type: (input.type ?? '') as CampaignType,
    scheduled_email_blast_group_ids: [...new Set((input.scheduled_email_blast_group_ids ?? []).map((x) => x.toLowerCase()))],
    workflow_ids: [...new Set((input.workflow_ids ?? []).map((x) => x.toLowerCase()))],
    template_ids: [...new Set((input.template_ids ?? []).map((x) => x.toLowerCase()))],
  };
  const problems = campaignProblems(c);
  if (problems.length) throw new BadRequest(problems);
  const [existing] = await query<{ archived: boolean }>('SELECT archived_at IS NOT NULL AS archived FROM campaigns WHERE id = $1 AND project_id = $2', [
    c.id,
    projectId,
  ]);
  if (existing?.archived) throw new BadRequest([`id: campaign ${c.id} is archived; create a new campaign instead`]);
  if (!existing) {
    const [taken] = await query('SELECT 1 FROM campaigns WHERE id = $1', [c.id]);
    if (taken) throw new BadRequest([`id: ${c.id} is already used; generate a new id`]);
  }
  const [{ blasts, templates }] = await query<{ blasts: string[]; templates: string[] }>(
    `SELECT ARRAY(SELECT id::text FROM email_blasts WHERE project_id = $1 AND id = ANY($2::uuid[])) AS blasts,
            ARRAY(SELECT id::text FROM templates WHERE project_id = $1 AND id = ANY($3::uuid[]) AND archived_at IS NULL) AS templates`,
    [projectId, c.scheduled_email_blast_group_ids, c.template_ids],
  );
  const missing = [
    ...c.scheduled_email_blast_group_ids.filter((id) => !blasts.includes(id)).map((id) => `scheduled_email_blast_group_ids: no email blast with id ${id}`),
    ...c.template_ids.filter((id) => !templates.includes(id)).map((id) => `template_ids: no template with id ${id}`),
  ];
  if (missing.length) throw new BadRequest(missing);
  try {
    const [row] = await query<CampaignRow>(
      `INSERT INTO campaigns (id, project_id, name, type, scheduled_email_blast_group_ids, workflow_ids, template_ids)
       VALUES ($1, $2, $3, $4, $5::uuid[], $6::uuid[], $7::uuid[])
       ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, type = EXCLUDED.type,
         scheduled_email_blast_group_ids = EXCLUDED.scheduled_email_blast_group_ids, workflow_ids = EXCLUDED.workflow_ids,
         template_ids = EXCLUDED.template_ids, updated_at = now()
         WHERE campaigns.project_id = EXCLUDED.project_id AND campaigns.archived_at IS NULL
       RETURNING ${COLUMNS}`,
      [c.id, projectId, c.name, c.type, c.scheduled_email_blast_group_ids, c.workflow_ids, c.template_ids],
    );
    if (!row) throw new BadRequest([`id: ${c.id} cannot be saved in this project`]);
    return toCampaign(row);
  } catch (err) {
    if (
      (err as { code?: string }).code === '23505' &&
      /campaigns_project_name_idx/.test(String((err as Error).message) + String((err as { constraint?: string }).constraint))
    ) {
      throw new BadRequest([`name: ${CAMPAIGN_NAME_TAKEN}`]);
    }
    throw err;
  }
}

/** archiveCampaign archives one campaign of the project (again: the same answer). Throws 404 for another's or none. */
export async function archiveCampaign(query: QueryFn, projectId: string, id: string): Promise<{ campaign_id: string; errors: string[] }> {
  const rows = await query<{ id: string }>(
    'UPDATE campaigns SET archived_at = coalesce(archived_at, now()), updated_at = now() WHERE project_id = $1 AND id = $2 RETURNING id',
    [projectId, id.toLowerCase()],
  );
  if (!rows.length) throw new HttpError(404, [`id: no campaign with id ${id}`]);
  return { campaign_id: rows[0].id, errors: [] };
}

/** countCampaigns counts the project's live campaigns (optionally among `ids`). */
export async function countCampaigns(query: QueryFn, projectId: string, idsParam?: string): Promise<number> {
  const ids = uuidList(idsParam, 'ids');
  const [{ n }] = await query<{ n: number }>(
    `SELECT count(*)::int AS n FROM campaigns WHERE project_id = $1 AND archived_at IS NULL AND (cardinality($2::uuid[]) = 0 OR id = ANY($2::uuid[]))`,
    [projectId, ids],
  );
  return Number(n);
}

/** The metric columns of campaign_metrics and the event each counts (distinct emails). */
const METRICS = {
  sends: EVENT.sendSuccess,
  opens: EVENT.open,
  clicks: EVENT.click,
  unsubscribes: EVENT.unsubscribed,
  bounces: EVENT.bounce,
  unsuccessful_sends: EVENT.sendFailure,
} as const;

/** The metrics counting only what people did (distinct emails opened or clicked by a person), from num_unique_human. */
const HUMAN_METRICS = { human_opens: EVENT.open, human_clicks: EVENT.click } as const;
type MetricColumn = keyof typeof METRICS | keyof typeof HUMAN_METRICS;
const METRIC_COLUMNS = [...Object.keys(METRICS), ...Object.keys(HUMAN_METRICS)] as MetricColumn[];

const METRIC_SORT: Record<string, string> = {
  name: 'lower(c.name)',
  type: 'c.type',
  created_at: 'c.created_at',
  updated_at: 'c.updated_at',
  ...Object.fromEntries(METRIC_COLUMNS.map((m) => [m, m])),
};

const metricSums = (alias: string) =>
  [
    ...Object.entries(METRICS).map(([col, name]) => `coalesce(sum(${alias}.n) FILTER (WHERE ${alias}.name = '${name}'), 0)::bigint AS ${col}`),
    ...Object.entries(HUMAN_METRICS).map(([col, name]) => `coalesce(sum(${alias}.h) FILTER (WHERE ${alias}.name = '${name}'), 0)::bigint AS ${col}`),
  ].join(', ');

/**
 * campaignMetrics lists live campaigns with their metrics (distinct emails per event, all time), sorted by any
 * column (default newest first) and paged. With `splitTemplates` an A/B test campaign is answered as one row per
 * template it sent, each with that template's metrics. A campaign's events are those of its blasts, templates and
 * workflows, summed once each (an event matching two associations counts once).
 */
export async function campaignMetrics(
  query: QueryFn,
  projectId: string,
  q: {
    ids?: string;
    limit?: number;
    offset?: number;
    sort_columns?: string;
    split_templates?: boolean;
  },
): Promise<CampaignWithMetrics[]> {
  const ids = uuidList(q.ids, 'ids');
  const sources = `src AS (
      SELECT blast_id, template_id, workflow_id, name, sum(num_unique) AS n, sum(num_unique_human) AS h FROM report_totals_v
       WHERE project_id = $1 AND name IN (${Object.values(METRICS)
         .map((n) => `'${n}'`)
         .join(', ')})
       GROUP BY 1, 2, 3, 4)`;
  const joinSources = `LEFT JOIN src s ON (s.blast_id = ANY(c.scheduled_email_blast_group_ids) OR s.template_id = ANY(c.template_ids)
                                 OR s.workflow_id = ANY(c.workflow_ids::text[]))`;
  const rows = await query<CampaignRow & Record<MetricColumn, string>>(
    `WITH ${sources}
     SELECT c.id, c.name, c.type, c.scheduled_email_blast_group_ids, c.workflow_ids, c.template_ids, c.created_at, c.updated_at, ${metricSums('s')}
       FROM campaigns c ${joinSources}
      WHERE c.project_id = $1 AND c.archived_at IS NULL AND (cardinality($2::uuid[]) = 0 OR c.id = ANY($2::uuid[]))
      GROUP BY c.id
      ORDER BY ${orderSql(q.sort_columns, METRIC_SORT, 'created_at DESC')}, c.id
      LIMIT $3 OFFSET $4`,
    [projectId, ids, q.limit ?? 10, q.offset ?? 0],
  );
  const metrics = (r: Partial<Record<MetricColumn, string>>) =>
    Object.fromEntries(METRIC_COLUMNS.map((m) => [m, Number(r[m] ?? 0)])) as Record<MetricColumn, number>;
  const out: CampaignWithMetrics[] = [];
  const split = q.split_templates ? rows.filter((r) => r.type === 'a_b_test').map((r) => r.id) : [];
  const perTemplate = split.length
    ? await query<{ campaign_id: string; template_id: string; template_name: string | null } & Record<MetricColumn, string>>(
        `WITH ${sources}
     SELECT c.id AS campaign_id, s.template_id, t.name AS template_name, ${metricSums('s')}
       FROM campaigns c ${joinSources}
       LEFT JOIN templates t ON t.id = s.template_id AND t.project_id = c.project_id
      WHERE c.project_id = $1 AND c.id = ANY($2::uuid[]) AND s.template_id <> '00000000-0000-0000-0000-000000000000'
      GROUP BY c.id, s.template_id, t.name
      ORDER BY c.id, t.name, s.template_id`,
        [projectId, split],
      )
    : [];
  for (const r of rows) {
    const parts = perTemplate.filter((p) => p.campaign_id === r.id);
    if (!parts.length) {
      out.push({ ...toCampaign(r), ...metrics(r), template_id: null, template_name: null });
      continue;
    }
    for (const p of parts) out.push({ ...toCampaign(r), ...metrics(p), template_id: p.template_id, template_name: p.template_name });
  }
  return out;
}
