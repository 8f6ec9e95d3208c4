import { describe, expect, it } from 'vitest';
import {
  ARCHIVE_WAIT,
  CAMPAIGN_NAME_TAKEN,
  FORM_CAMPAIGN_TYPES,
  archiveSteps,
  campaignProblems,
  campaignTypeLabel,
  changeCampaignType,
  runSteps,
  selectAssociations,
  type CampaignAssociations,
  type StepState,
} from './campaigns.ts';

const EMPTY: CampaignAssociations = { type: 'scheduled_email_group', scheduled_email_blast_group_ids: [], workflow_ids: [], template_ids: [] };

describe('campaign types (spec part 2 §3, §4)', () => {
  it('labels the types as the spec shows them and offers the form types', () => {
    expect(campaignTypeLabel('a_b_test')).toBe('A/B Test');
    expect(campaignTypeLabel('scheduled_email_group')).toBe('Scheduled Email Blast / Newsletter');
    expect(campaignTypeLabel('workflow')).toBe('Workflow / Drip');
    expect(campaignTypeLabel('template')).toBe('Template');
    expect(FORM_CAMPAIGN_TYPES).toEqual(['', 'workflow', 'scheduled_email_group', 'template']);
  });

  it('clears every selection when the type changes, and nothing when it does not', () => {
    const c = { ...EMPTY, scheduled_email_blast_group_ids: ['b1'], template_ids: ['t1'] };
    expect(changeCampaignType(c, 'scheduled_email_group')).toBe(c);
    expect(changeCampaignType(c, 'template')).toEqual({ type: 'template', scheduled_email_blast_group_ids: [], workflow_ids: [], template_ids: [] });
  });

  it('selecting workflows clears templates and blasts; selecting blasts or templates clears workflows', () => {
    const withBoth = { ...EMPTY, scheduled_email_blast_group_ids: ['b1'], template_ids: ['t1'] };
    expect(selectAssociations(withBoth, 'workflow_ids', ['w1'])).toEqual({ ...EMPTY, workflow_ids: ['w1'] });
    const withWorkflow = { ...EMPTY, workflow_ids: ['w1'] };
    expect(selectAssociations(withWorkflow, 'scheduled_email_blast_group_ids', ['b1', 'b1'])).toEqual({ ...EMPTY, scheduled_email_blast_group_ids: ['b1'] });
    expect(selectAssociations(withWorkflow, 'template_ids', ['t1'])).toEqual({ ...EMPTY, template_ids: ['t1'] });
    expect(selectAssociations(withBoth, 'template_ids', [])).toEqual({ ...withBoth, template_ids: [] });
  });
});

describe('campaign problems (spec part 2 §5 Campaign)', () => {
  it('needs a non-empty name and names the field of every problem', () => {
    expect(campaignProblems({ name: '  ', type: '' })).toEqual(['name: Required field']);
    expect(campaignProblems({ name: 'Spring', type: 'scheduled_email_group', scheduled_email_blast_group_ids: ['b1'] })).toEqual([]);
    expect(campaignProblems(JSON.parse('{"name": "Spring", "type": "bogus"}'))[0]).toMatch(/^type: /);
    expect(campaignProblems({ name: 'Spring', type: 'workflow', template_ids: ['t1'] })).toContain('type: a workflow campaign holds workflows only');
    expect(campaignProblems({ name: 'Spring', type: 'template', workflow_ids: ['w1'] }).every((p) => /^(workflow_ids|type): /.test(p))).toBe(true);
    expect(CAMPAIGN_NAME_TAKEN).toBe('A campaign with this name already exists. Please choose a different name!');
  });
});

describe('campaign archive (spec part 2 §4 Campaign archive)', () => {
  it('disables each blast, then archives the campaign', () => {
    const steps = archiveSteps({ id: 'c1', name: 'Spring', workflow_ids: [], scheduled_email_blast_group_ids: ['b1', 'b2'] }, { b1: 'Newsletter' });
    expect(steps.map((s) => [s.kind, s.id, s.label])).toEqual([
      ['disable_blast', 'b1', "Disable email blast 'Newsletter'"],
      ['disable_blast', 'b2', "Disable email blast 'b2'"],
      ['archive_campaign', 'c1', "Archive campaign 'Spring'"],
    ]);
  });

  it('archives each workflow and waits for it, then archives the campaign', () => {
    const steps = archiveSteps({ id: 'c1', name: 'Drip', workflow_ids: ['w1'], scheduled_email_blast_group_ids: [] });
    expect(steps.map((s) => s.kind)).toEqual(['archive_workflow', 'wait_workflow_deleted', 'archive_campaign']);
  });

  it('polls every 2 s, reading 100 entries, at most 100 times', () => {
    expect(ARCHIVE_WAIT).toEqual({ pollMs: 2000, entries: 100, attempts: 100 });
  });

  it('runs the steps in order and reports every state change', async () => {
    const seen: StepState[][] = [];
    const ran: string[] = [];
    const final = await runSteps(
      ['a', 'b'],
      async (s) => {
        ran.push(s);
      },
      (states) => seen.push(states),
    );
    expect(ran).toEqual(['a', 'b']);
    expect(final).toEqual([{ status: 'succeeded' }, { status: 'succeeded' }]);
    expect(seen[0]).toEqual([{ status: 'waiting' }, { status: 'waiting' }]);
    expect(seen[1]).toEqual([{ status: 'in_progress' }, { status: 'waiting' }]);
  });

  it('stops at a failure, keeping its error, and cancels the rest', async () => {
    const ran: string[] = [];
    const final = await runSteps(
      ['a', 'b', 'c'],
      async (s) => {
        ran.push(s);
        if (s === 'b') throw new Error('boom');
      },
      () => {},
    );
    expect(ran).toEqual(['a', 'b']);
    expect(final).toEqual([{ status: 'succeeded' }, { status: 'failed', error: 'boom' }, { status: 'cancelled' }]);
  });

  it('shows a timed-out wait as failed and cancels the next step', async () => {
    const final = await runSteps(
      ['wait', 'archive'],
      async (s) => (s === 'wait' ? 'timed_out' : 'done'),
      () => {},
      'took too long',
    );
    expect(final).toEqual([{ status: 'failed', error: 'took too long' }, { status: 'cancelled' }]);
  });
});
