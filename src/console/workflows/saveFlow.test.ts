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
const created = (id: string, ended: boolean, success = true, end: Record<string, unknown> = {}): JobEntry => ({
  id, job_name: 'JOB_CREATE_WORKFLOW', ended_at: ended ? '2026-01-01T00:00:00Z' : null, success, start_details: { workflow_id: ID }, end_details: end,
});
const httpError = (status: number, errors: string[]) => Object.assign(new Error(errors.join(', ')), { status, body: { errors } });

function deps(overrides: Partial<SaveDeps>, calls: string[]): SaveDeps {
  return {
    validate: async (body) => { calls.push(`validate ${body.name} ${body.tree.type}`); },
    save: async () => { calls.push('save'); return { behind_another_job: false, job_log_entry_id: 'j1' }; },
    listJobs: async () => { calls.push('jobs'); return [created('j1', true)]; },
    sleep: async () => { calls.push('sleep'); },
    ...overrides,
  };
}

describe('saving a workflow (spec part 2 §4 Workflow save, §5 Workflow)', () => {
  it('needs a name, before anything is sent', async () => {
    const calls: string[] = [];
    expect(await saveWorkflow(deps({}, calls), { id: ID, name: '  ', display: GRAPH, isNew: true }, WAIT))
      .toMatchObject({ ok: false, stage: 'name', message: 'You must provide a workflow name' });
    expect(calls).toEqual([]);
  });

  it('lists the graph errors naming the nodes, before anything is sent', async () => {
    const calls: string[] = [];
    const result = await saveWorkflow(deps({}, calls), { id: ID, name: 'Onboarding', display: { nodes: GRAPH.nodes.slice(1), links: [] }, isNew: true }, WAIT);
    expect(result).toMatchObject({ ok: false, stage: 'graph', message: 'Workflow ‘Onboarding’ failed workflow validation', errors: ['Please add a trigger node to the workflow'] });
    expect(calls).toEqual([]);
  });

  it('validates, saves and waits for the job of the save', async () => {
    const calls: string[] = [];
    let reads = 0;
    const result = await saveWorkflow(deps({ listJobs: async () => { calls.push('jobs'); return reads++ ? [created('j1', true)] : [created('j1', false)]; } }, calls),
      { id: ID, name: ' Onboarding ', display: GRAPH, isNew: true }, WAIT);
    expect(result).toEqual({ ok: true, id: ID });
    expect(calls).toEqual(['validate Onboarding event', 'save', 'jobs', 'sleep', 'jobs']);
  });

  it('shows the server validation errors under the spec heading and does not save', async () => {
    const calls: string[] = [];
    const result = await saveWorkflow(deps({ validate: async () => { throw httpError(400, ['node s: no template with id x in this project']); } }, calls),
      { id: ID, name: 'Onboarding', display: GRAPH, isNew: true }, WAIT);
    expect(result).toMatchObject({ ok: false, stage: 'validation', message: 'Workflow ‘Onboarding’ failed workflow validation', errors: ['node s: no template with id x in this project'] });
    expect(calls).not.toContain('save');
  });

  it('reports a refused save and a job that ended without success in the spec wording', async () => {
    const refused = await saveWorkflow(deps({ save: async () => { throw httpError(400, ['id: workflow is archived']); } }, []), { id: ID, name: 'W', display: GRAPH, isNew: true }, WAIT);
    expect(refused).toMatchObject({ ok: false, stage: 'save', message: 'Couldn’t save workflow ‘W’: id: workflow is archived' });
    const failed = await saveWorkflow(deps({ listJobs: async () => [created('j1', true, false, { error: 'node s: no template', errors: ['node s: no template'] })] }, []),
      { id: ID, name: 'W', display: GRAPH, isNew: true }, WAIT);
    expect(failed).toMatchObject({ ok: false, stage: 'job', message: 'Couldn’t save workflow ‘W’: node s: no template', errors: ['node s: no template'] });
  });

  it('tells the user when the save waits behind another job', async () => {
    const told: string[] = [];
    await saveWorkflow(deps({ save: async () => ({ behind_another_job: true, job_log_entry_id: 'j1' }), onBehind: () => told.push(BEHIND_ANOTHER_JOB) }, []),
      { id: ID, name: 'W', display: GRAPH, isNew: true }, WAIT);
    expect(told).toEqual([BEHIND_ANOTHER_JOB]);
  });

  it('after a 503 waits for a new entry of the workflow, not an earlier save of it', async () => {
    const calls: string[] = [];
    let reads = 0;
    const result = await saveWorkflow(deps({
      save: async () => { calls.push('save'); throw httpError(503, ['Service Unavailable']); },
      listJobs: async () => { calls.push('jobs'); reads++; return reads <= 2 ? [created('old', true)] : [created('new', true), created('old', true)]; },
    }, calls), { id: ID, name: 'W', display: GRAPH, isNew: false }, WAIT);
    expect(result).toEqual({ ok: true, id: ID });
    expect(calls).toEqual(['validate W event', 'jobs', 'save', 'jobs', 'sleep', 'jobs']);
  });

  it('gives up after the last check', async () => {
    const result = await saveWorkflow(deps({ listJobs: async () => [created('j1', false)] }, []), { id: ID, name: 'W', display: GRAPH, isNew: true }, WAIT);
    expect(result).toMatchObject({ ok: false, stage: 'timeout' });
  });
});
