import { describe, expect, it } from 'vitest';
import { jobEndError, knownJobIds, waitForJob, type JobEntry, type JobWaitDeps } from './jobWait.ts';

const WAIT = { pollMs: 2000, entries: 100, attempts: 3 };

const entry = (id: string, job: string, workflowId: string, ended: boolean, success: boolean | null = true, end: Record<string, unknown> = {}): JobEntry => ({
  id, job_name: job, ended_at: ended ? '2026-01-01T00:00:00Z' : null, success, start_details: { workflow_id: workflowId }, end_details: end,
});

function deps(pages: JobEntry[][], calls: string[]): JobWaitDeps {
  let read = 0;
  return {
    listJobs: async (limit) => { calls.push(`jobs ${limit}`); return pages[Math.min(read++, pages.length - 1)]; },
    sleep: async (ms) => { calls.push(`sleep ${ms}`); },
  };
}

describe('waiting on a workflow job (spec part 2 §4 Workflow save, §9: 2 s polls of 100 entries, up to 200 checks)', () => {
  it('waits for the named entry of the job to end, passing over other jobs and workflows', async () => {
    const calls: string[] = [];
    const result = await waitForJob(deps([
      [entry('1', 'JOB_CREATE_WORKFLOW', 'w1', false), entry('2', 'JOB_DELETE_WORKFLOW', 'w1', true), entry('3', 'JOB_CREATE_WORKFLOW', 'w2', true)],
      [entry('1', 'JOB_CREATE_WORKFLOW', 'w1', true)],
    ], calls), { jobName: 'JOB_CREATE_WORKFLOW', workflowId: 'W1', entryId: '1' }, WAIT);
    expect(result).toMatchObject({ status: 'succeeded', entry: { id: '1' } });
    expect(calls).toEqual(['jobs 100', 'sleep 2000', 'jobs 100']);
  });

  it('passes over entries of earlier jobs for the same workflow (a save answered 503)', async () => {
    const calls: string[] = [];
    const earlier = entry('old', 'JOB_CREATE_WORKFLOW', 'w1', true);
    const result = await waitForJob(deps([[earlier], [entry('new', 'JOB_CREATE_WORKFLOW', 'w1', true), earlier]], calls),
      { jobName: 'JOB_CREATE_WORKFLOW', workflowId: 'w1', ignore: knownJobIds([earlier], 'JOB_CREATE_WORKFLOW', 'w1') }, WAIT);
    expect(result).toMatchObject({ status: 'succeeded', entry: { id: 'new' } });
  });

  it('reports a job that ended without success with its end_details error', async () => {
    const result = await waitForJob(deps([[entry('1', 'JOB_CREATE_WORKFLOW', 'w1', true, false, { workflow_id: 'w1', error: 'node n1: no template', errors: ['node n1: no template'] })]], []),
      { jobName: 'JOB_CREATE_WORKFLOW', workflowId: 'w1' }, WAIT);
    expect(result).toMatchObject({ status: 'failed', error: 'node n1: no template' });
  });

  it('times out after the last check, without sleeping after it', async () => {
    const calls: string[] = [];
    const result = await waitForJob(deps([[entry('1', 'JOB_DELETE_WORKFLOW', 'w1', false)]], calls), { jobName: 'JOB_DELETE_WORKFLOW', workflowId: 'w1' }, WAIT);
    expect(result).toEqual({ status: 'timed_out' });
    expect(calls).toEqual(['jobs 100', 'sleep 2000', 'jobs 100', 'sleep 2000', 'jobs 100']);
  });

  it('gathers the error fields of end_details when there is no single error text', () => {
    expect(jobEndError({ end_details: { save_error: 'disk full', other: 'x' } })).toBe('disk full');
    expect(jobEndError({ end_details: null })).toBe('');
  });
});
