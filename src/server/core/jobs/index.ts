/**
 * The job log (spec part 1 §6 Notifications; openapi/joblog.yaml): every long piece of work — imports, blast
 * expansions and distributions, workflow saves — leaves an entry its feature writes when it starts and ends; the
 * console lists them and waits on them. The queues that run the work are src/server/core/jobs/registry.ts.
 */
import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { jobLog } from '../../db/schema.ts';
import { iso, isoRequired } from '../listing.ts';
import type { components } from '../../../../generated/types/joblog.gen.ts';

type JobLogEntry = components['schemas']['JobLogEntry'];

/** listJobLog returns one page of the project's job-log entries (all, or those of `ids`), newest first. */
export async function listJobLog(db: Db, projectId: string, page: { ids: string[]; limit: number; offset: number }): Promise<JobLogEntry[]> {
  const rows = await db
    .select()
    .from(jobLog)
    .where(and(eq(jobLog.projectId, projectId), page.ids.length ? inArray(jobLog.id, page.ids) : undefined))
    .orderBy(desc(jobLog.startedAt), jobLog.id)
    .limit(page.limit)
    .offset(page.offset);
  return rows.map((r) => ({
    id: r.id,
    job_name: r.jobName,
    started_at: isoRequired(r.startedAt),
    ended_at: iso(r.endedAt),
    success: r.success,
    start_details: r.startDetails,
    end_details: r.endDetails,
  }));
}
