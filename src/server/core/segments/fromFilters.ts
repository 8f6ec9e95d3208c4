/**
 * Segments made from filters (spec part 2 §7 Segments, POST {segmentwrapper}/segments/create_from_filters). The request checks the name and the filters, counts the contacts that match now, creates the segment invisible
 * and records a job-log entry (JOB_CREATE_SEGMENT_FROM_FILTERS); the job adds every matching contact in one
 * INSERT … SELECT over the same compiled filter (src/server/core/segments/filter.ts) and then shows the segment, in one
 * transaction, so a segment is never listed half-filled. The job is idempotent: a retry after a crash finds the
 * entry ended, or re-runs the insert (members are unique).
 */
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import { checkFilters, SEGMENT_FILTER_ATTRIBUTES, type Conjunction, type UserFilter } from '../../../domain/segmentFilter.ts';
import { checkRequired } from '../../../domain/validation.ts';
import { FieldErrors } from '../../errors.ts';
import { compileFilters, matchingContacts } from './filter.ts';

/** The job-log name of a segment build. */
export const JOB_CREATE_SEGMENT_FROM_FILTERS = 'JOB_CREATE_SEGMENT_FROM_FILTERS';

/** What the console sends (openapi/segmentwrapper.yaml createSegmentFromFilters). */
export interface FromFiltersRequest {
  name: string;
  conjunction?: Conjunction;
  user_filters: UserFilter[];
}

/** checked validates a request: BadRequest naming name and/or user_filters, else the checked filters. */
function checked(body: FromFiltersRequest) {
  const errs = new FieldErrors();
  errs.add('name', checkRequired(body.name));
  const filters = checkFilters(body.user_filters ?? [], SEGMENT_FILTER_ATTRIBUTES);
  const errors = 'errors' in filters ? filters.errors : [];
  for (const e of errors) errs.add('user_filters', e);
  errs.throwIfAny();
  return 'filters' in filters ? filters.filters : [];
}

/**
 * createSegmentFromFilters answers the create_from_filters call: {num_users (matching now), errors: [], segment_id,
 * job_log_id}. Throws BadRequest as described on `checked`.
 */
export async function createSegmentFromFilters(
  ctx: AppContext,
  projectId: string,
  body: FromFiltersRequest,
): Promise<{ num_users: number; errors: string[]; segment_id: string; job_log_id: string }> {
  const filters = checked(body);
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  const where = compileFilters(filters, body.conjunction ?? 'and', 2);
  const [{ n }] = await query<{ n: number }>(`SELECT count(*)::int AS n ${matchingContacts(where)}`, [projectId, ...where.params]);
  const name = body.name.trim();
  const [entry] = await query<{ segment_id: string; job_log_id: string }>(
    `WITH s AS (INSERT INTO segments (project_id, name, invisible) VALUES ($1, $2, true) RETURNING id)
     INSERT INTO job_log (project_id, job_name, start_details)
     SELECT $1, $3, jsonb_build_object('segment_id', s.id, 'name', $2::text, 'num_users', $4::int, 'conjunction', $5::text, 'user_filters', $6::jsonb) FROM s
     RETURNING start_details->>'segment_id' AS segment_id, id AS job_log_id`,
    [projectId, name, JOB_CREATE_SEGMENT_FROM_FILTERS, n, body.conjunction ?? 'and', JSON.stringify(body.user_filters)],
  );
  await ctx.queue.enqueue('segment-from-filters', { jobLogId: entry.job_log_id });
  return { num_users: n, errors: [], segment_id: entry.segment_id, job_log_id: String(entry.job_log_id) };
}

/**
 * buildSegmentFromFilters runs the job of entry `jobLogId`: adds the contacts matching the recorded filters (as they
 * are when the job runs), shows the segment and ends the entry (end_details {segment_id, num_users}), in one
 * transaction. A no-op when the entry has ended. Filters that no longer pass the checks (a catalog change) end the
 * entry unsuccessfully with the reasons and leave the segment invisible.
 */
export async function buildSegmentFromFilters(ctx: AppContext, jobLogId: string): Promise<void> {
  await ctx.database.transaction(async (tx) => {
    const [entry] = await tx<{
      project_id: string;
      start_details: { segment_id: string; conjunction: Conjunction; user_filters: UserFilter[] };
      ended: boolean;
    }>('SELECT project_id, start_details, ended_at IS NOT NULL AS ended FROM job_log WHERE id = $1 FOR UPDATE', [jobLogId]);
    if (!entry || entry.ended) return;
    const d = entry.start_details;
    const filters = checkFilters(d.user_filters, SEGMENT_FILTER_ATTRIBUTES);
    if ('errors' in filters) {
      await tx(`UPDATE job_log SET ended_at = now(), success = false, end_details = $2::jsonb WHERE id = $1`, [
        jobLogId,
        JSON.stringify({ segment_id: d.segment_id, errors: filters.errors }),
      ]);
      return;
    }
    const where = compileFilters(filters.filters, d.conjunction, 3);
    const inserted = await tx<{ n: number }>(
      `WITH ins AS (INSERT INTO segment_members (segment_id, contact_id)
         SELECT $2::uuid, c.id ${matchingContacts(where)}
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*)::int AS n FROM ins`,
      [entry.project_id, d.segment_id, ...where.params],
    );
    await tx('UPDATE segments SET invisible = false WHERE id = $1', [d.segment_id]);
    await tx(`UPDATE job_log SET ended_at = now(), success = true, end_details = $2::jsonb WHERE id = $1`, [
      jobLogId,
      JSON.stringify({ segment_id: d.segment_id, num_users: inserted[0].n }),
    ]);
  });
}
