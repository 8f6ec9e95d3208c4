import { describe, expect, it } from 'vitest';
import { archiveSteps, runSteps } from '../../../domain/campaigns.ts';
import { archiveStepRunner, waitForWorkflowDeleted, type ArchiveDeps, type JobEntry } from './archive.ts';

const WAIT = { pollMs: 2000, entries: 100, attempts: 3 };

function deps(overrides: Partial<ArchiveDeps> = {}, calls: string[] = []): ArchiveDeps {
  return {
    disableBlast: async (id) => { calls.push(`disable ${id}`); },
    archiveWorkflow: async (id) => { calls.push(`archive workflow ${id}`); },
    listJobs: async (limit) => { calls.push(`jobs ${limit}`); return []; },
    archiveCampaign: async (id) => { calls.push(`archive campaign ${id}`); },
    sleep: async (ms) => { calls.push(`sleep ${ms}`); },
    ...overrides,
  };
}

const deleted = (workflowId: string, ended: boolean, success: boolean | null = true): JobEntry => ({
  job_name: 'JOB_DELETE_WORKFLOW', ended_at: ended ? '2026-01-01T00:00:00Z' : null, success, start_details: { workflow_id: workflowId }, end_details: {},
});

describe('campaign archive steps (spec part 2 §4)', () => {
  it('disables each blast, then archives the campaign', async () => {
    const calls: string[] = [];
    const steps = archiveSteps({ id: 'c1', name: 'Spring', workflow_ids: [], scheduled_email_blast_group_ids: ['b1', 'b2'] });
    const final = await runSteps(steps, archiveStepRunner(deps({}, calls), WAIT), () => {});
    expect(calls).toEqual(['disable b1', 'disable b2', 'archive campaign c1']);
    expect(final.map((s) => s.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  });

  it('stops at a failed blast and does not archive the campaign', async () => {
    const calls: string[] = [];
    const steps = archiveSteps({ id: 'c1', name: 'Spring', workflow_ids: [], scheduled_email_blast_group_ids: ['b1'] });
    const final = await runSteps(steps, archiveStepRunner(deps({ disableBlast: async () => { throw new Error('gateway down'); } }, calls), WAIT), () => {});
    expect(final).toEqual([{ status: 'failed', error: 'gateway down' }, { status: 'cancelled' }]);
    expect(calls).not.toContain('archive campaign c1');
  });

  it('stops at a workflow that cannot be archived, before waiting or archiving the campaign', async () => {
    const calls: string[] = [];
    const steps = archiveSteps({ id: 'c1', name: 'Drip', workflow_ids: ['w1'], scheduled_email_blast_group_ids: [] });
    const final = await runSteps(steps, archiveStepRunner(deps({ archiveWorkflow: async () => { throw new Error('id: no workflow with id w1'); } }, calls), WAIT), () => {});
    expect(final).toEqual([{ status: 'failed', error: 'id: no workflow with id w1' }, { status: 'cancelled' }, { status: 'cancelled' }]);
    expect(calls).not.toContain('archive campaign c1');
  });
});

describe('waiting for a workflow archive (spec part 2 §4: JOB_DELETE_WORKFLOW with ended_at and the workflow_id)', () => {
  it('polls until the matching job has ended, reading 100 entries each time', async () => {
    const calls: string[] = [];
    let reads = 0;
    const outcome = await waitForWorkflowDeleted(deps({
      listJobs: async (limit) => {
        calls.push(`jobs ${limit}`);
        reads++;
        return reads === 1 ? [deleted('w1', false), deleted('w2', true)] : [deleted('w1', true)];
      },
    }, calls), 'w1', WAIT);
    expect(outcome).toBe('done');
    expect(calls).toEqual(['jobs 100', 'sleep 2000', 'jobs 100']);
  });

  it('times out after the last attempt, and the next step is cancelled', async () => {
    const calls: string[] = [];
    const steps = archiveSteps({ id: 'c1', name: 'Drip', workflow_ids: ['w1'], scheduled_email_blast_group_ids: [] });
    const final = await runSteps(steps, archiveStepRunner(deps({}, calls), WAIT), () => {}, 'too long');
    expect(final).toEqual([{ status: 'succeeded' }, { status: 'failed', error: 'too long' }, { status: 'cancelled' }]);
    expect(calls.filter((c) => c.startsWith('jobs'))).toHaveLength(3);
    expect(calls).not.toContain('archive campaign c1');
  });

  it('reports a job that ended without success as a failure', async () => {
    await expect(waitForWorkflowDeleted(deps({ listJobs: async () => [{ ...deleted('w1', true, false), end_details: { error: 'still running in a segment' } }] }), 'w1', WAIT))
      .rejects.toThrow(/archiving workflow w1 failed: still running in a segment/);
  });
});
