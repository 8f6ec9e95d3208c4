/**
 * A blast's end (spec part 1 §6 job log JOB_DISTRIBUTE_EMAIL_BLAST): logged once every recipient row of a fully
 * expanded blast has settled.
 */
import type { QueryFn } from '../../db/client.ts';
import { FINISHED_BLASTS, LOG_FINISHED_BLASTS } from './queries.ts';

/**
 * logFinishedBlasts writes one JOB_DISTRIBUTE_EMAIL_BLAST entry for each fully expanded blast whose rows are all
 * settled (a blast still being expanded has more rows to come). The open
 * check is an index probe per blast; the counts are only computed for a blast that has just finished.
 */
export async function logFinishedBlasts(query: QueryFn, blastIds: string[]): Promise<void> {
  if (!blastIds.length) return;
  const finished = (await query<{ id: string }>(FINISHED_BLASTS, [blastIds])).map((r) => r.id);
  if (!finished.length) return;
  await query(LOG_FINISHED_BLASTS, [finished]);
}
