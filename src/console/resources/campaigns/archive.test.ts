import { describe, expect, it } from 'vitest';
import { archiveSteps, runSteps } from '../../../domain/campaigns.ts';
import { archiveStepRunner, planArchive, waitForWorkflowDeleted, type ArchiveDeps, type ArchivedCampaign, type JobEntry, type PlanDeps } from './archive.ts';

const WAIT = { pollMs: 2000, entries: 100, attempts: 3 };

function deps(overrides: Partial<ArchiveDeps> = {}, calls: string[] = []): ArchiveDeps {
  return {
    disableBlast: async (id) => {
      calls.push(`disable ${id}`);
    },
    archiveWorkflow: async (id) => {
      calls.push(`archive workflow ${id}`);
      return undefined;
    },
    listJobs: async (limit, ids) => {
      calls.push(ids ? `jobs ids=${ids.join(',')}` : `jobs ${limit}`);
      return [];
    },
    archiveCampaign: async (id) => {
      calls.push(`archive campaign ${id}`);
    },
    sleep: async (ms) => {
      calls.push(`sleep ${ms}`);
    },
    ...overrides,
  };
}

const deleted = (workflowId: string, ended: boolean, success: boolean | null = true, id = `job-${workflowId}`): JobEntry => ({
  id,
  job_name: 'JOB_DELETE_WORKFLOW',
  ended_at: ended ? '2026-01-01T00:00:00Z' : null,
  success,
  start_details: { workflow_id: workflowId },
  end_details: {},
});
const httpError = (status: number, message: string) => Object.assign(new Error(message), { status });
const DRIP = { id: 'c1', name: 'Drip', workflow_ids: ['w1'], scheduled_email_blast_group_ids: [] };

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
    const final = await runSteps(
      steps,
      archiveStepRunner(
        deps(
          {
            disableBlast: async () => {
              throw new Error('gateway down');
            },
          },
          calls,
        ),
        WAIT,
      ),
      () => {},
    );
    expect(final).toEqual([{ status: 'failed', error: 'gateway down' }, { status: 'cancelled' }]);
    expect(calls).not.toContain('archive campaign c1');
  });

  it('stops at a workflow that cannot be archived, before waiting or archiving the campaign', async () => {
    const calls: string[] = [];
    const final = await runSteps(
      archiveSteps(DRIP),
      archiveStepRunner(
        deps(
          {
            archiveWorkflow: async () => {
              throw httpError(400, 'id: no workflow with id w1');
            },
          },
          calls,
        ),
        WAIT,
      ),
      () => {},
    );
    expect(final).toEqual([{ status: 'failed', error: 'id: no workflow with id w1' }, { status: 'cancelled' }, { status: 'cancelled' }]);
    expect(calls).not.toContain('archive campaign c1');
  });

  it('waits for the entry the archive answered, read by its id', async () => {
    const calls: string[] = [];
    let reads = 0;
    const final = await runSteps(
      archiveSteps(DRIP),
      archiveStepRunner(
        deps(
          {
            archiveWorkflow: async (id) => {
              calls.push(`archive workflow ${id}`);
              return 'j7';
            },
            listJobs: async (limit, ids) => {
              calls.push(ids ? `jobs ids=${ids.join(',')}` : `jobs ${limit}`);
              return ids ? [deleted('w1', reads++ > 0, true, 'j7')] : [];
            },
          },
          calls,
        ),
        WAIT,
      ),
      () => {},
    );
    expect(final.map((s) => s.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(calls).toEqual(['jobs 100', 'archive workflow w1', 'jobs ids=j7', 'sleep 2000', 'jobs ids=j7', 'archive campaign c1']);
  });

  it('after a 503 on the archive (sent once) waits for a new entry of the workflow, not an earlier one', async () => {
    const calls: string[] = [];
    let reads = 0;
    const old = deleted('w1', true, false, 'old');
    const final = await runSteps(
      archiveSteps(DRIP),
      archiveStepRunner(
        deps(
          {
            archiveWorkflow: async (id) => {
              calls.push(`archive workflow ${id}`);
              throw httpError(503, 'Service Unavailable');
            },
            listJobs: async (limit) => {
              calls.push(`jobs ${limit}`);
              return reads++ < 2 ? [old] : [deleted('w1', true, true, 'new'), old];
            },
          },
          calls,
        ),
        WAIT,
      ),
      () => {},
    );
    expect(final.map((s) => s.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(calls.filter((c) => c.startsWith('archive workflow'))).toEqual(['archive workflow w1']);
  });

  it('stops before the next step once the signal is aborted (the list was left)', async () => {
    const calls: string[] = [];
    const controller = new AbortController();
    const final = await runSteps(
      archiveSteps({ id: 'c1', name: 'Spring', workflow_ids: [], scheduled_email_blast_group_ids: ['b1'] }),
      archiveStepRunner(
        deps(
          {
            disableBlast: async (id) => {
              calls.push(`disable ${id}`);
              controller.abort(new Error('left the page'));
            },
          },
          calls,
        ),
        WAIT,
        controller.signal,
      ),
      () => {},
    );
    expect(calls).toEqual(['disable b1']);
    expect(final).toEqual([{ status: 'succeeded' }, { status: 'failed', error: 'left the page' }]);
  });
});

describe('waiting for a workflow archive (spec part 2 §4: JOB_DELETE_WORKFLOW with ended_at and the workflow_id)', () => {
  const match = { jobName: 'JOB_DELETE_WORKFLOW', workflowId: 'w1' };

  it('polls until the matching job has ended, reading 100 entries each time when the entry id is unknown', async () => {
    const calls: string[] = [];
    let reads = 0;
    const outcome = await waitForWorkflowDeleted(
      deps(
        {
          listJobs: async (limit) => {
            calls.push(`jobs ${limit}`);
            reads++;
            return reads === 1 ? [deleted('w1', false), deleted('w2', true)] : [deleted('w1', true)];
          },
        },
        calls,
      ),
      match,
      WAIT,
    );
    expect(outcome).toBe('done');
    expect(calls).toEqual(['jobs 100', 'sleep 2000', 'jobs 100']);
  });

  it('times out after the last attempt, and the next step is cancelled', async () => {
    const calls: string[] = [];
    const final = await runSteps(archiveSteps(DRIP), archiveStepRunner(deps({}, calls), WAIT), () => {}, 'too long');
    expect(final).toEqual([{ status: 'succeeded' }, { status: 'failed', error: 'too long' }, { status: 'cancelled' }]);
    expect(calls.filter((c) => c.startsWith('jobs'))).toHaveLength(1 + 3); // the earlier entries, then three checks
    expect(calls).not.toContain('archive campaign c1');
  });

  it('reports a job that ended without success (or with success null) as a failure', async () => {
    await expect(
      waitForWorkflowDeleted(
        deps({ listJobs: async () => [{ ...deleted('w1', true, false), end_details: { error: 'still running in a segment' } }] }),
        match,
        WAIT,
      ),
    ).rejects.toThrow(/archiving workflow w1 failed: still running in a segment/);
    await expect(waitForWorkflowDeleted(deps({ listJobs: async () => [deleted('w1', true, null)] }), match, WAIT)).rejects.toThrow(
      /archiving workflow w1 failed; see the notifications tab/,
    );
  });

  it('points to the notifications tab when the job log could not be read at the last check', async () => {
    await expect(
      waitForWorkflowDeleted(
        deps({
          listJobs: async () => {
            throw new Error('Unknown networking error');
          },
        }),
        match,
        WAIT,
      ),
    ).rejects.toThrow('the job log could not be read (Unknown networking error); please check the notifications tab before trying again');
  });
});

describe('planning a campaign archive (part 2 §8)', () => {
  const plan = (over: Partial<PlanDeps<ArchivedCampaign>>) =>
    planArchive<ArchivedCampaign>(
      {
        findCampaign: async () => DRIP,
        blastNames: async () => ({}),
        workflowNames: async () => ({ w1: 'Welcome flow' }),
        ...over,
      },
      'c1',
    );

  it('names the workflow steps after the workflows', async () => {
    const ready = await plan({});
    expect(ready.kind === 'ready' && ready.steps.map((s) => s.label)).toEqual([
      "Archive workflow 'Welcome flow'",
      "Wait for workflow 'Welcome flow' to be archived",
      "Archive campaign 'Drip'",
    ]);
  });

  it('falls back to the ids when a name look-up fails', async () => {
    const blasts = await plan({
      findCampaign: async () => ({ id: 'c2', name: 'News', workflow_ids: [], scheduled_email_blast_group_ids: ['b1'] }),
      blastNames: async () => {
        throw new Error('down');
      },
    });
    expect(blasts.kind === 'ready' && blasts.steps.map((s) => s.label)).toEqual(["Disable email blast 'b1'", "Archive campaign 'News'"]);
    const flows = await plan({
      workflowNames: async () => {
        throw new Error('down');
      },
    });
    expect(flows.kind === 'ready' && flows.steps[0].label).toBe("Archive workflow 'w1'");
  });

  it('says to reload only when the campaigns answer lacks the campaign, and that campaigns could not be fetched otherwise', async () => {
    expect(await plan({ findCampaign: async () => undefined })).toEqual({
      kind: 'gone',
      message: 'an error has occurred, please reload the page and try again',
    });
    expect(
      await plan({
        findCampaign: async () => {
          throw new Error('Failed to fetch');
        },
      }),
    ).toEqual({ kind: 'unreadable', message: "Couldn't fetch campaigns: Unknown networking error" });
  });
});
