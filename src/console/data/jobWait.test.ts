import { describe, expect, it } from 'vitest';
import {
  abortableSleep,
  gatewayJobWaitDeps,
  jobEndError,
  knownJobIds,
  requestJob,
  stillRunning,
  waitForJob,
  type JobEntry,
  type JobWaitDeps,
} from './jobWait.ts';

const WAIT = { pollMs: 2000, entries: 100, attempts: 3 };

const entry = (id: string, job: string, workflowId: string, ended: boolean, success: boolean | null = true, end: Record<string, unknown> = {}): JobEntry => ({
  id,
  job_name: job,
  ended_at: ended ? '2026-01-01T00:00:00Z' : null,
  success,
  start_details: { workflow_id: workflowId },
  end_details: end,
});

/** deps answers the pages in turn (the last one from then on); a page that is an Error is a failed read. */
function deps(pages: Array<JobEntry[] | Error>, calls: string[]): JobWaitDeps {
  let read = 0;
  return {
    listJobs: async (limit, ids) => {
      calls.push(ids ? `jobs ${limit} ids=${ids.join(',')}` : `jobs ${limit}`);
      const page = pages[Math.min(read++, pages.length - 1)];
      if (page instanceof Error) throw page;
      return page;
    },
    sleep: async (ms) => {
      calls.push(`sleep ${ms}`);
    },
  };
}

const httpError = (status: number) => Object.assign(new Error(`HTTP ${status}`), { status });

describe('waiting on a workflow job (spec part 2 §4 Workflow save, §9: 2 s polls of 100 entries, up to 200 checks)', () => {
  it('reads a known entry by its id until it has ended, passing over other jobs and workflows', async () => {
    const calls: string[] = [];
    const result = await waitForJob(
      deps([[entry('1', 'JOB_CREATE_WORKFLOW', 'w1', false)], [entry('1', 'JOB_CREATE_WORKFLOW', 'w1', true)]], calls),
      { jobName: 'JOB_CREATE_WORKFLOW', workflowId: 'W1', entryId: '1' },
      WAIT,
    );
    expect(result).toMatchObject({ status: 'succeeded', entry: { id: '1' } });
    expect(calls).toEqual(['jobs 1 ids=1', 'sleep 2000', 'jobs 1 ids=1']);
  });

  it('scans the newest entries when the id is unknown, passing over other jobs, workflows and earlier entries', async () => {
    const calls: string[] = [];
    const earlier = entry('old', 'JOB_CREATE_WORKFLOW', 'w1', true);
    const result = await waitForJob(
      deps(
        [
          [earlier, entry('2', 'JOB_DELETE_WORKFLOW', 'w1', true), entry('3', 'JOB_CREATE_WORKFLOW', 'w2', true)],
          [entry('new', 'JOB_CREATE_WORKFLOW', 'w1', true), earlier],
        ],
        calls,
      ),
      { jobName: 'JOB_CREATE_WORKFLOW', workflowId: 'w1', ignore: knownJobIds([earlier], 'JOB_CREATE_WORKFLOW', 'w1') },
      WAIT,
    );
    expect(result).toMatchObject({ status: 'succeeded', entry: { id: 'new' } });
    expect(calls).toEqual(['jobs 100', 'sleep 2000', 'jobs 100']);
  });

  it('reports a job that ended without success with its end_details error', async () => {
    const result = await waitForJob(
      deps(
        [[entry('1', 'JOB_CREATE_WORKFLOW', 'w1', true, false, { workflow_id: 'w1', error: 'node n1: no template', errors: ['node n1: no template'] })]],
        [],
      ),
      { jobName: 'JOB_CREATE_WORKFLOW', workflowId: 'w1' },
      WAIT,
    );
    expect(result).toMatchObject({ status: 'failed', error: 'node n1: no template' });
  });

  it('counts an ended job whose success is null as failed (part 1 §3: ended without success)', async () => {
    const result = await waitForJob(
      deps([[entry('1', 'JOB_DELETE_WORKFLOW', 'w1', true, null)]], []),
      { jobName: 'JOB_DELETE_WORKFLOW', workflowId: 'w1', entryId: '1' },
      WAIT,
    );
    expect(result).toMatchObject({ status: 'failed', error: '' });
  });

  it('times out after the last check, without sleeping after it', async () => {
    const calls: string[] = [];
    const result = await waitForJob(
      deps([[entry('1', 'JOB_DELETE_WORKFLOW', 'w1', false)]], calls),
      { jobName: 'JOB_DELETE_WORKFLOW', workflowId: 'w1' },
      WAIT,
    );
    expect(result).toEqual({ status: 'timed_out' });
    expect(calls).toEqual(['jobs 100', 'sleep 2000', 'jobs 100', 'sleep 2000', 'jobs 100']);
  });

  it('counts a failed read as a used check and goes on', async () => {
    const calls: string[] = [];
    const result = await waitForJob(
      deps([new Error('Unknown networking error'), [entry('1', 'JOB_CREATE_WORKFLOW', 'w1', true)]], calls),
      { jobName: 'JOB_CREATE_WORKFLOW', workflowId: 'w1', entryId: '1' },
      WAIT,
    );
    expect(result).toMatchObject({ status: 'succeeded' });
    expect(calls).toEqual(['jobs 1 ids=1', 'sleep 2000', 'jobs 1 ids=1']);
  });

  it('reports the read error only when the last read failed too', async () => {
    const calls: string[] = [];
    const unread = await waitForJob(deps([[], [], new Error('["Service Unavailable"]')], calls), { jobName: 'JOB_CREATE_WORKFLOW', workflowId: 'w1' }, WAIT);
    expect(unread).toEqual({ status: 'unreadable', error: 'Service Unavailable' });
    expect(calls.filter((c) => c.startsWith('jobs'))).toHaveLength(3);
    const timedOut = await waitForJob(deps([new Error('down'), new Error('down'), []], []), { jobName: 'JOB_CREATE_WORKFLOW', workflowId: 'w1' }, WAIT);
    expect(timedOut).toEqual({ status: 'timed_out' });
  });

  it('stops at once when aborted: before a read, and during its sleep', async () => {
    const calls: string[] = [];
    const aborted = new AbortController();
    aborted.abort(new Error('left the page'));
    await expect(waitForJob(deps([[]], calls), { jobName: 'JOB_CREATE_WORKFLOW', workflowId: 'w1' }, WAIT, aborted.signal)).rejects.toThrow('left the page');
    expect(calls).toEqual([]);

    const controller = new AbortController();
    const sleeping: JobWaitDeps = {
      listJobs: async () => {
        calls.push('jobs');
        return [];
      },
      sleep: (ms, signal) => {
        controller.abort(new Error('unmounted'));
        return abortableSleep(ms, signal);
      },
    };
    await expect(waitForJob(sleeping, { jobName: 'JOB_CREATE_WORKFLOW', workflowId: 'w1' }, WAIT, controller.signal)).rejects.toThrow('unmounted');
    expect(calls).toEqual(['jobs']);
  });

  it('does not report an entry read after the signal was aborted', async () => {
    const controller = new AbortController();
    const late: JobWaitDeps = {
      listJobs: async () => {
        controller.abort(new Error('unmounted'));
        return [entry('1', 'JOB_CREATE_WORKFLOW', 'w1', true)];
      },
      sleep: async () => {},
    };
    await expect(waitForJob(late, { jobName: 'JOB_CREATE_WORKFLOW', workflowId: 'w1' }, WAIT, controller.signal)).rejects.toThrow('unmounted');
  });

  it('gathers the error fields of end_details when there is no single error text', () => {
    expect(jobEndError({ end_details: { save_error: 'disk full', other: 'x' } })).toBe('disk full');
    expect(jobEndError({ end_details: null })).toBe('');
  });
});

describe('asking for a workflow job (requestJob)', () => {
  const job = { jobName: 'JOB_DELETE_WORKFLOW', workflowId: 'w1' };

  it('reads the earlier entries first, then waits for the id the request answered', async () => {
    const calls: string[] = [];
    const d = deps([[entry('old', 'JOB_DELETE_WORKFLOW', 'w1', true), entry('x', 'JOB_DELETE_WORKFLOW', 'w2', true)]], calls);
    const match = await requestJob(
      d,
      job,
      async () => {
        calls.push('send');
        return 'j9';
      },
      WAIT,
    );
    expect(calls).toEqual(['jobs 100', 'send']);
    expect(match).toEqual({ ...job, entryId: 'j9', ignore: new Set(['old']) });
  });

  it('after a 503 or 504 leaves the id unknown and passes over the earlier entries', async () => {
    const d = deps([[entry('old', 'JOB_DELETE_WORKFLOW', 'w1', true)]], []);
    for (const status of [503, 504]) {
      const match = await requestJob(
        d,
        job,
        async () => {
          throw httpError(status);
        },
        WAIT,
      );
      expect(match).toEqual({ ...job, entryId: undefined, ignore: new Set(['old']) });
    }
  });

  it('throws any other failure of the request, and treats a failed earlier read as no earlier entries', async () => {
    await expect(
      requestJob(
        deps([[]], []),
        job,
        async () => {
          throw httpError(400);
        },
        WAIT,
      ),
    ).rejects.toThrow('HTTP 400');
    const match = await requestJob(deps([new Error('down')], []), job, async () => undefined, WAIT);
    expect(match).toEqual({ ...job, entryId: undefined, ignore: new Set() });
    expect(stillRunning(httpError(503))).toBe(true);
    expect(stillRunning(new Error('offline'))).toBe(false);
  });
});

describe('the joblog binding and the sleep', () => {
  it('reads a known entry with ids= and otherwise the newest limit', async () => {
    const asked: unknown[] = [];
    const d = gatewayJobWaitDeps({
      callGateway: (async (op: string, params: unknown) => {
        asked.push([op, params]);
        return { data: [] };
      }) as never,
    });
    await d.listJobs(1, ['j1']);
    await d.listJobs(100);
    expect(asked).toEqual([
      ['listJobLog', { query: { limit: 1, ids: 'j1' } }],
      ['listJobLog', { query: { limit: 100, ids: undefined } }],
    ]);
  });

  it('sleeps, or rejects with the reason as soon as the signal is aborted', async () => {
    await expect(abortableSleep(1)).resolves.toBeUndefined();
    const controller = new AbortController();
    const pending = abortableSleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
    await expect(abortableSleep(1, controller.signal)).rejects.toThrow('stop');
  });
});
