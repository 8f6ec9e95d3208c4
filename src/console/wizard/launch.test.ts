import { describe, expect, it } from 'vitest';
import type { StepState } from '../../domain/campaigns.ts';
import type { JobEntry } from '../data/jobWait.ts';
import { planLaunch, runLaunch, type LaunchDeps } from './launch.ts';
import { WIZARD_MESSAGES, WIZARD_WORKFLOW_WAIT, initialState, setEmail, setType, type WizardState } from './wizardModel.ts';

const TODAY = '2030-03-04';
const T1 = '11111111-1111-4111-8111-111111111111';
const P1 = '33333333-3333-4333-8333-333333333333';
const S1 = '55555555-5555-4555-8555-555555555555';
const S2 = '77777777-7777-4777-8777-777777777777';
const W = '88888888-8888-4888-8888-888888888888';

function ids() {
  let n = 0;
  return { campaignId: 'c-1', blastId: 'b-1', workflowId: W, nodeId: () => `n${++n}` };
}

function drip(): WizardState {
  let s: WizardState = { ...setType(initialState(TODAY), 'drip_campaign'), name: 'Drip', segmentIds: [S1, S2] };
  s = setEmail(s, 0, { personaId: P1, templateId: T1 });
  return setEmail(s, 1, { personaId: P1, templateId: T1 });
}

/** fakeDeps records every call; the job log answers the workflow's entry after `polls` reads. */
function fakeDeps(opts: { polls?: number; failSave?: unknown; jobFails?: boolean; readFails?: boolean } = {}) {
  const calls: string[] = [];
  const asked: string[] = [];
  let reads = 0;
  const entry = (): JobEntry => ({
    id: 'j-1',
    job_name: 'JOB_CREATE_WORKFLOW',
    ended_at: '2030-03-04T00:00:00Z',
    success: !opts.jobFails,
    start_details: { workflow_id: W },
    end_details: opts.jobFails ? { error: 'template x is archived' } : {},
  });
  const deps: LaunchDeps = {
    async saveCampaign(body) {
      calls.push(`campaign ${body.workflow_ids.join(',') || body.scheduled_email_blast_group_ids.join(',') || '-'}`);
    },
    async saveBlast(body) {
      calls.push(`blast ${body.id}`);
    },
    async saveWorkflow(body) {
      calls.push(`workflow ${body.id}`);
      if (opts.failSave) throw opts.failSave;
      return { job_log_entry_id: 'j-1', behind_another_job: false };
    },
    async sendSegment(body) {
      calls.push(`segment ${body.segment_id} root ${body.root_node_id}`);
    },
    async listJobs(limit, ids) {
      reads++;
      asked.push(ids ? `ids=${ids.join(',')}` : `limit=${limit}`);
      if (opts.readFails) throw new Error('Unknown networking error');
      return reads > (opts.polls ?? 0) ? [entry()] : [];
    },
    async sleep(ms) {
      calls.push(`sleep ${ms}`);
    },
  };
  return { deps, calls, asked, reads: () => reads };
}

describe('wizard launch (part 2 §4 Wizard launch)', () => {
  it('runs a drip campaign: campaign, workflow, its job wait (2 s polls), the link, then each segment one by one', async () => {
    const plan = planLaunch(drip(), ids(), TODAY, { [S1]: 'Leads' });
    const { deps, calls, asked } = fakeDeps({ polls: 2 });
    const seen: StepState[][] = [];
    const final = await runLaunch(deps, plan, (s) => seen.push(s));
    expect(final.map((s) => s.status)).toEqual(Array(6).fill('succeeded'));
    expect(calls).toEqual([
      'campaign -',
      `workflow ${W}`,
      'sleep 2000',
      'sleep 2000',
      `campaign ${W}`,
      `segment ${S1} root ${plan.rootId}`,
      `segment ${S2} root ${plan.rootId}`,
    ]);
    expect(asked).toEqual(['ids=j-1', 'ids=j-1', 'ids=j-1']); // the save's entry, read by its id
    expect(seen[0].map((s) => s.status)).toEqual(Array(6).fill('waiting'));
    expect(seen[1][0].status).toBe('in_progress');
  });

  it('shows a failed workflow save under its step and cancels the later steps', async () => {
    const plan = planLaunch(drip(), ids(), TODAY);
    const { deps, calls } = fakeDeps({ failSave: Object.assign(new Error("Couldn't save: template_id: no template"), { status: 400 }) });
    const final = await runLaunch(deps, plan, () => {});
    expect(final.map((s) => s.status)).toEqual(['succeeded', 'failed', 'cancelled', 'cancelled', 'cancelled', 'cancelled']);
    expect(final[1].error).toBe('Couldnt save: template_id: no template');
    expect(calls.some((c) => c.startsWith('segment'))).toBe(false);
  });

  it('waits out a 503 on the workflow save on the job log, scanning the newest entries', async () => {
    const plan = planLaunch(drip(), ids(), TODAY);
    const { deps, asked } = fakeDeps({ failSave: Object.assign(new Error('Service Unavailable'), { status: 503 }) });
    expect((await runLaunch(deps, plan, () => {})).every((s) => s.status === 'succeeded')).toBe(true);
    expect(asked).toEqual(['limit=100']);
  });

  it('points to the notifications tab when the job log could not be read at the last poll', async () => {
    const plan = planLaunch(drip(), ids(), TODAY);
    const { deps, reads } = fakeDeps({ readFails: true });
    const final = await runLaunch(deps, plan, () => {}, { pollMs: 2000, entries: 100, attempts: 3 });
    expect(reads()).toBe(3);
    expect(final[2]).toEqual({
      status: 'failed',
      error:
        'the job log could not be read (Unknown networking error); please check the notifications tab and campaign details to make sure the workflow was created',
    });
  });

  it('stops before the next step once the page is left', async () => {
    const plan = planLaunch(drip(), ids(), TODAY);
    const controller = new AbortController();
    const { deps, calls } = fakeDeps({ polls: 1 });
    const saveWorkflow = deps.saveWorkflow;
    deps.saveWorkflow = async (body) => {
      const answer = await saveWorkflow(body);
      controller.abort(new Error('left the wizard'));
      return answer;
    };
    const final = await runLaunch(deps, plan, () => {}, WIZARD_WORKFLOW_WAIT, controller.signal);
    expect(final.map((s) => s.status)).toEqual(['succeeded', 'succeeded', 'failed', 'cancelled', 'cancelled', 'cancelled']);
    expect(calls).toEqual(['campaign -', `workflow ${W}`]);
  });

  it('says the spec’s long-wait message when the job never ends (450 polls), and cancels the link', async () => {
    const plan = planLaunch(drip(), ids(), TODAY);
    const { deps, reads } = fakeDeps({ polls: Infinity });
    const final = await runLaunch(deps, plan, () => {});
    expect(reads()).toBe(WIZARD_WORKFLOW_WAIT.attempts);
    expect(WIZARD_WORKFLOW_WAIT).toEqual({ pollMs: 2000, entries: 100, attempts: 450 });
    expect(final[2]).toEqual({ status: 'failed', error: WIZARD_MESSAGES.workflowTimeout });
    expect(final.slice(3).every((s) => s.status === 'cancelled')).toBe(true);
  });

  it('fails the wait with the job’s error when the save job ends without success', async () => {
    const plan = planLaunch(drip(), ids(), TODAY);
    const { deps } = fakeDeps({ jobFails: true });
    const final = await runLaunch(deps, plan, () => {});
    expect(final[2]).toEqual({ status: 'failed', error: 'the workflow was not created: template x is archived' });
  });

  it('schedules a blast then links the campaign to it', async () => {
    const s: WizardState = { ...setType(initialState(TODAY), 'scheduled_email_blast'), name: 'News', personaId: P1, templateId: T1, segmentIds: [S1] };
    const { deps, calls } = fakeDeps();
    const final = await runLaunch(deps, planLaunch(s, ids(), TODAY), () => {});
    expect(final.map((x) => x.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(calls).toEqual(['campaign -', 'blast b-1', 'campaign b-1']);
  });
});

describe('sendingTime', () => {
  it('says how long the emails take and what sets it (relay, provider, warm-up), or that no limit applies', async () => {
    const { sendingTime } = await import('./ReviewLaunch.tsx');
    const relay = "the relay's limit of 14 emails/s";
    expect(sendingTime({ estimated_duration_s: 10, estimate_limited_by: "the relay's limit of 50 emails/s" })).toBe(
      "About 10 s (the relay's limit of 50 emails/s)",
    );
    expect(sendingTime({ estimated_duration_s: 715, estimate_limited_by: relay })).toBe(`About 12 min (${relay})`);
    expect(sendingTime({ estimated_duration_s: 7143, estimate_limited_by: relay })).toBe(`About 2 h (${relay})`);
    const warmup = 'the warm-up of news.example.com: 50 more today, the rest over the next 3 UTC days';
    expect(sendingTime({ estimated_duration_s: 3 * 86_400 + 3600, estimate_limited_by: warmup })).toBe(`About 3 days (${warmup})`);
    expect(sendingTime({ estimated_duration_s: null, estimate_limited_by: null })).toBe('As fast as the relay takes them (no rate limit or warm-up applies)');
  });
});
