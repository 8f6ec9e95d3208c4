import { describe, expect, it } from 'vitest';
import type { Display } from '../../domain/workflowGraph.ts';
import type { JobEntry } from '../data/jobWait.ts';
import { BEHIND_ANOTHER_JOB, saveWorkflow, type SaveDeps } from './saveFlow.ts';

const ID = '33333333-3333-4333-8333-333333333333';
const WAIT = { pollMs: 2000, entries: 100, attempts: 3 };
const GRAPH: Display = {
  nodes: [
    { id: 'e', type: 'event', position: { x: 0, y: 0 }, properties: { eventName: 'signed_up' } },
    { id: 'd', type: 'delay', position: { x: 200, y: 0 }, properties: { delayMS: 2000 } },
  ],
  links: [{ id: 'l', from: { nodeId: 'e', portId: 'output' }, to: { nodeId: 'd', portId: 'input' } }],
};
const created = (id: string, ended: boolean, success: boolean | null = true, end: Record<string, unknown> = {}): JobEntry => ({
  id,
  job_name: 'JOB_CREATE_WORKFLOW',
  ended_at: ended ? '2026-01-01T00:00:00Z' : null,
  success,
  start_details: { workflow_id: ID },
  end_details: end,
});
const httpError = (status: number, errors: string[]) => Object.assign(new Error(errors.join(', ')), { status, body: { errors } });

function deps(overrides: Partial<SaveDeps>, calls: string[]): SaveDeps {
  return {
    validate: async (body) => {
      calls.push(`validate ${body.name} ${body.tree.type}`);
    },
    save: async () => {
      calls.push('save');
      return { behind_another_job: false, job_log_entry_id: 'j1' };
    },
    listJobs: async () => {
      calls.push('jobs');
      return [created('j1', true)];
    },
    sleep: async () => {
      calls.push('sleep');
    },
    ...overrides,
  };
}

describe('saving a workflow (spec part 2 §4 Workflow save, §5 Workflow)', () => {
  it('needs a name, before anything is sent', async () => {
    const calls: string[] = [];
    expect(await saveWorkflow(deps({}, calls), { id: ID, name: '  ', display: GRAPH }, WAIT)).toMatchObject({
      ok: false,
      stage: 'name',
      message: 'You must provide a workflow name',
    });
    expect(calls).toEqual([]);
  });

  it('lists the graph errors naming the nodes, before anything is sent', async () => {
    const calls: string[] = [];
    const result = await saveWorkflow(deps({}, calls), { id: ID, name: 'Onboarding', display: { nodes: GRAPH.nodes.slice(1), links: [] } }, WAIT);
    expect(result).toMatchObject({
      ok: false,
      stage: 'graph',
      message: 'Workflow ‘Onboarding’ failed workflow validation',
      errors: ['Please add a trigger node to the workflow'],
    });
    expect(calls).toEqual([]);
  });

  it('validates, saves and waits for the job of the save', async () => {
    const calls: string[] = [];
    let reads = 0;
    const result = await saveWorkflow(
      deps(
        {
          listJobs: async (limit, ids) => {
            calls.push(`jobs ${ids ?? limit}`);
            return reads++ < 2 ? [created('j1', false)] : [created('j1', true)];
          },
        },
        calls,
      ),
      { id: ID, name: ' Onboarding ', display: GRAPH },
      WAIT,
    );
    expect(result).toEqual({ ok: true, id: ID });
    // The earlier entries are read first (100), then the save's own entry by the id it answered.
    expect(calls).toEqual(['validate Onboarding event', 'jobs 100', 'save', 'jobs j1', 'sleep', 'jobs j1']);
  });

  it('shows the server validation errors under the spec heading and does not save', async () => {
    const calls: string[] = [];
    const result = await saveWorkflow(
      deps(
        {
          validate: async () => {
            throw httpError(400, ['node s: no template with id x in this project']);
          },
        },
        calls,
      ),
      { id: ID, name: 'Onboarding', display: GRAPH },
      WAIT,
    );
    expect(result).toMatchObject({
      ok: false,
      stage: 'validation',
      message: 'Workflow ‘Onboarding’ failed workflow validation',
      errors: ['node s: no template with id x in this project'],
    });
    expect(calls).not.toContain('save');
  });

  it('reports a refused save and a job that ended without success in the spec wording', async () => {
    const refused = await saveWorkflow(
      deps(
        {
          save: async () => {
            throw httpError(400, ['id: workflow is archived']);
          },
        },
        [],
      ),
      { id: ID, name: 'W', display: GRAPH },
      WAIT,
    );
    expect(refused).toMatchObject({ ok: false, stage: 'save', message: 'Couldn’t save workflow ‘W’: id: workflow is archived' });
    const failed = await saveWorkflow(
      deps({ listJobs: async () => [created('j1', true, false, { error: 'node s: no template', errors: ['node s: no template'] })] }, []),
      { id: ID, name: 'W', display: GRAPH },
      WAIT,
    );
    expect(failed).toMatchObject({ ok: false, stage: 'job', message: 'Couldn’t save workflow ‘W’: node s: no template', errors: ['node s: no template'] });
  });

  it('tells the user when the save waits behind another job', async () => {
    const told: string[] = [];
    await saveWorkflow(
      deps({ save: async () => ({ behind_another_job: true, job_log_entry_id: 'j1' }), onBehind: () => told.push(BEHIND_ANOTHER_JOB) }, []),
      { id: ID, name: 'W', display: GRAPH },
      WAIT,
    );
    expect(told).toEqual([BEHIND_ANOTHER_JOB]);
  });

  it('after a 503 waits for a new entry of the workflow, not an earlier save of it', async () => {
    const calls: string[] = [];
    let reads = 0;
    const result = await saveWorkflow(
      deps(
        {
          save: async () => {
            calls.push('save');
            throw httpError(503, ['Service Unavailable']);
          },
          listJobs: async () => {
            calls.push('jobs');
            reads++;
            return reads <= 2 ? [created('old', true)] : [created('new', true), created('old', true)];
          },
        },
        calls,
      ),
      { id: ID, name: 'W', display: GRAPH },
      WAIT,
    );
    expect(result).toEqual({ ok: true, id: ID });
    expect(calls).toEqual(['validate W event', 'jobs', 'save', 'jobs', 'sleep', 'jobs']);
  });

  it('reads the earlier entries before a first save too (a failed first save may have left one)', async () => {
    const calls: string[] = [];
    let reads = 0;
    const result = await saveWorkflow(
      deps(
        {
          save: async () => {
            calls.push('save');
            throw httpError(503, ['Service Unavailable']);
          },
          listJobs: async () => {
            calls.push('jobs');
            return reads++ < 2 ? [created('first-try', true)] : [created('retry', false), created('first-try', true)];
          },
        },
        calls,
      ),
      { id: ID, name: 'W', display: GRAPH },
      WAIT,
    );
    // The old entry of the first try never counts; the new one has not ended within the checks.
    expect(result).toMatchObject({ ok: false, stage: 'timeout' });
    expect(calls.slice(0, 3)).toEqual(['validate W event', 'jobs', 'save']);
  });

  it('counts an ended save job whose success is null as failed', async () => {
    const result = await saveWorkflow(deps({ listJobs: async () => [created('j1', true, null)] }, []), { id: ID, name: 'W', display: GRAPH }, WAIT);
    expect(result).toMatchObject({ ok: false, stage: 'job', message: 'Couldn’t save workflow ‘W’: the save job failed' });
  });

  it('points to the notifications tab when the job log could not be read at the last check', async () => {
    let reads = 0;
    const result = await saveWorkflow(
      deps(
        {
          listJobs: async () => {
            if (reads++ === 0) return [];
            throw httpError(502, ['Bad Gateway']);
          },
        },
        [],
      ),
      { id: ID, name: 'W', display: GRAPH },
      WAIT,
    );
    expect(result).toEqual({
      ok: false,
      stage: 'unreadable',
      errors: [],
      message: 'Couldn’t read the job log to confirm that workflow ‘W’ was saved (Bad Gateway). Please check the notifications tab to make sure it was saved.',
    });
  });

  it('stops waiting when aborted, and says nothing of a save behind another job once aborted', async () => {
    const controller = new AbortController();
    const told: string[] = [];
    const pending = saveWorkflow(
      deps(
        {
          save: async () => {
            controller.abort(new Error('left the editor'));
            return { behind_another_job: true, job_log_entry_id: 'j1' };
          },
          listJobs: async () => [created('j1', false)],
          onBehind: () => told.push('behind'),
        },
        [],
      ),
      { id: ID, name: 'W', display: GRAPH },
      WAIT,
      controller.signal,
    );
    await expect(pending).rejects.toThrow('left the editor');
    expect(told).toEqual([]);
  });

  it('gives up after the last check', async () => {
    const result = await saveWorkflow(deps({ listJobs: async () => [created('j1', false)] }, []), { id: ID, name: 'W', display: GRAPH }, WAIT);
    expect(result).toMatchObject({ ok: false, stage: 'timeout' });
  });
});
