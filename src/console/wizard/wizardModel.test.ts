import { describe, expect, it } from 'vitest';
import { sendCost } from '../../domain/pricing.ts';
import { CONTACT_LOCAL_TIMEZONE } from '../../domain/sendTime.ts';
import {
  pastSendTime,
  WIZARD_MESSAGES,
  blastBody,
  capCheckedAgain,
  campaignBody,
  defaultWeights,
  describeTiming,
  delaySeconds,
  delayWarning,
  firstInvalidPage,
  formatDollars,
  initialState,
  launchSteps,
  newPersonaBody,
  newPersonaErrors,
  pageError,
  pageKey,
  stepCounter,
  personaSavedToast,
  previewRequest,
  reviewCost,
  setEmail,
  setNumEmails,
  setNumTemplates,
  setRecipientType,
  setType,
  successLinks,
  templateTaken,
  wizardPages,
  workflowBody,
  type WizardState,
  type WizardType,
} from './wizardModel.ts';

const TODAY = '2030-03-04';
const T1 = '11111111-1111-4111-8111-111111111111';
const T2 = '22222222-2222-4222-8222-222222222222';
const P1 = '33333333-3333-4333-8333-333333333333';
const P2 = '44444444-4444-4444-8444-444444444444';
const S1 = '55555555-5555-4555-8555-555555555555';
const U1 = '66666666-6666-4666-8666-666666666666';
const IDS = { campaignId: 'c-1', blastId: 'b-1', workflowId: 'w-1' };

function counter() {
  let n = 0;
  return () => `n${++n}`;
}

function state(type: WizardType, change: Partial<WizardState> = {}): WizardState {
  return { ...setType(initialState(TODAY), type), name: 'Spring', ...change };
}

const kinds = (s: WizardState) => wizardPages(s).map(pageKey);

describe('wizard pages per type (part 2 §2)', () => {
  it('asks type and name first, then the type’s pages, then review', () => {
    expect(kinds(initialState(TODAY))).toEqual(['type', 'name']);
    expect(kinds(state('scheduled_email_blast'))).toEqual(['type', 'name', 'persona', 'template', 'recipient_type', 'segments', 'timing', 'review']);
    expect(kinds(state('a_b_test'))).toEqual([
      'type',
      'name',
      'num_templates',
      'ab_template:0',
      'ab_template:1',
      'weights',
      'persona',
      'recipient_type',
      'segments',
      'timing',
      'review',
    ]);
    expect(kinds(state('event_trigger_campaign'))).toEqual(['type', 'name', 'event_name', 'persona', 'template', 'review']);
    expect(kinds(state('event_triggered_drip_campaign'))).toEqual([
      'type',
      'name',
      'event_name',
      'num_emails',
      'email_persona:0',
      'email_persona:1',
      'email_template:0',
      'email_template:1',
      'email_timing:0',
      'email_timing:1',
      'review',
    ]);
    expect(kinds(state('drip_campaign'))).toEqual([
      'type',
      'name',
      'num_emails',
      'email_persona:0',
      'email_persona:1',
      'email_template:0',
      'email_template:1',
      'email_timing:0',
      'email_timing:1',
      'segments',
      'review',
    ]);
  });

  it('follows the recipient type, and choosing segments or users clears the other’s selection', () => {
    const s = state('scheduled_email_blast', { segmentIds: [S1], userIds: [U1], recipientType: 'both' });
    expect(kinds(s)).toContain('contacts');
    expect(kinds(s)).toContain('segments');
    const users = setRecipientType(s, 'users');
    expect(users.segmentIds).toEqual([]);
    expect(users.userIds).toEqual([U1]);
    expect(kinds(users).filter((k) => k === 'segments' || k === 'contacts')).toEqual(['contacts']);
    const segments = setRecipientType(s, 'segments');
    expect(segments.userIds).toEqual([]);
    expect(segments.segmentIds).toEqual([S1]);
    expect(setRecipientType(s, 'both')).toMatchObject({ segmentIds: [S1], userIds: [U1] });
  });

  it('keeps choices across a type change (Back keeps choices)', () => {
    const s = state('scheduled_email_blast', { personaId: P1, templateId: T1 });
    expect(setType(setType(s, 'a_b_test'), 'scheduled_email_blast')).toMatchObject({ personaId: P1, templateId: T1, name: 'Spring' });
  });
});

describe('page checks (part 2 §5)', () => {
  it('needs a type and a free, non-empty campaign name (looked up for the name as typed)', () => {
    const s = initialState(TODAY);
    expect(pageError(s, { kind: 'type' })).toBe(WIZARD_MESSAGES.chooseType);
    expect(pageError({ ...s, name: '  ' }, { kind: 'name' })).toBe('Required field');
    const named = { ...s, name: 'Spring ' };
    expect(pageError(named, { kind: 'name' })).toMatch(/^Checking/);
    expect(pageError(named, { kind: 'name' }, { nameCheck: { name: 'Other', status: 'free' } })).toMatch(/^Checking/);
    expect(pageError(named, { kind: 'name' }, { nameCheck: { name: 'Spring', status: 'checking' } })).toMatch(/^Checking/);
    expect(pageError(named, { kind: 'name' }, { nameCheck: { name: 'Spring', status: 'taken' } })).toBe(
      'A campaign with this name already exists. Please choose a different name!',
    );
    expect(pageError(named, { kind: 'name' }, { nameCheck: { name: 'Spring', status: 'free' } })).toBeUndefined();
  });

  it('needs a persona, a template, the event name, and segments or contacts with the spec’s warnings', () => {
    const s = state('scheduled_email_blast');
    expect(pageError(s, { kind: 'persona' })).toBe('Required field');
    expect(pageError(s, { kind: 'template' })).toBe('Required field');
    expect(pageError(s, { kind: 'event_name' })).toBe('Required field');
    expect(pageError(s, { kind: 'segments' })).toBe('Please select one or more segments');
    expect(pageError(s, { kind: 'contacts' })).toBe('Please select one or more contacts');
    expect(pageError({ ...s, segmentIds: [S1] }, { kind: 'segments' })).toBeUndefined();
  });

  it('checks the timing: a date and time, and a timezone for specific_timezone', () => {
    const s = state('scheduled_email_blast');
    expect(s.timing).toMatchObject({ type: 'specific_timezone', date: TODAY, time: '12:00', timezone: 'UTC' });
    expect(pageError(s, { kind: 'timing' })).toBeUndefined();
    expect(pageError({ ...s, timing: { ...s.timing, timezone: '' } }, { kind: 'timing' })).toBe(WIZARD_MESSAGES.invalidTimezone);
    expect(pageError({ ...s, timing: { ...s.timing, type: 'users_timezone', timezone: '' } }, { kind: 'timing' })).toBeUndefined();
    expect(pageError({ ...s, timing: { ...s.timing, date: '2030-02-30' } }, { kind: 'timing' })).toBe(WIZARD_MESSAGES.invalidDate);
    expect(pageError({ ...s, timing: { ...s.timing, time: '' } }, { kind: 'timing' })).toBe(WIZARD_MESSAGES.invalidTime);
  });

  it('sends the review back to the first page that is not valid', () => {
    const s = state('scheduled_email_blast', { personaId: P1 });
    const pages = wizardPages(s);
    const ctx = { nameCheck: { name: 'Spring', status: 'free' as const } };
    expect(pages[firstInvalidPage(s, pages, pages.length - 1, ctx)]).toEqual({ kind: 'template' });
  });
});

describe('A/B rules (part 2 §5)', () => {
  it('needs a whole number of templates, at least 2, and resizes the choices with equal weights', () => {
    const s = state('a_b_test');
    expect(s.weights).toEqual([50, 50]);
    expect(pageError(setNumTemplates(s, '2.5'), { kind: 'num_templates' })).toBe('Must be a whole number');
    expect(pageError(setNumTemplates(s, '1'), { kind: 'num_templates' })).toBe('An A/B test needs at least 2 templates');
    const three = setNumTemplates({ ...s, abTemplateIds: [T1, T2] }, '3');
    expect(three.abTemplateIds).toEqual([T1, T2, '']);
    expect(three.weights).toEqual([33, 33, 33]);
    expect(defaultWeights(2)).toEqual([50, 50]);
  });

  it('refuses a template chosen twice, naming it', () => {
    const s = state('a_b_test', { abTemplateIds: [T1, T1] });
    expect(pageError(s, { kind: 'ab_template', index: 0 })).toBeUndefined();
    expect(pageError(s, { kind: 'ab_template', index: 1 }, { templateNames: { [T1]: 'Spring A' } })).toBe(
      "Template 'Spring A' has already been selected for this campaign! You can only select each template once.",
    );
    expect(templateTaken('X')).toMatch(/^Template 'X' has already been selected/);
  });

  it('keeps weights between 1 and 99', () => {
    const s = state('a_b_test');
    expect(pageError({ ...s, weights: [0, 50] }, { kind: 'weights' })).toBe(WIZARD_MESSAGES.weight);
    expect(pageError({ ...s, weights: [99, 100] }, { kind: 'weights' })).toBe(WIZARD_MESSAGES.weight);
    expect(pageError({ ...s, weights: [1, 99] }, { kind: 'weights' })).toBeUndefined();
  });
});

describe('drip rules (part 2 §5, §9)', () => {
  it('makes a count below 1 into 1, refuses one that is not whole, and keeps chosen emails', () => {
    const s = setEmail(state('drip_campaign'), 0, { personaId: P1 });
    expect(s.emails).toHaveLength(2);
    expect(setNumEmails(s, '0', TODAY).emails).toHaveLength(1);
    expect(setNumEmails(s, '-3', TODAY).numEmails).toBe('1');
    const odd = setNumEmails(s, '1.5', TODAY);
    expect(pageError(odd, { kind: 'num_emails' })).toBe('Must be a whole number');
    expect(odd.emails).toHaveLength(2);
    const four = setNumEmails(s, '4', TODAY);
    expect(four.emails).toHaveLength(4);
    expect(four.emails[0].personaId).toBe(P1);
  });

  it('counts delays in minutes (60 s), hours (3600 s) and days (86400 s), and uses 0 for a delay that is not whole', () => {
    expect(delaySeconds({ delayAmount: '2', delayUnit: 'minute' })).toBe(120);
    expect(delaySeconds({ delayAmount: '3', delayUnit: 'hour' })).toBe(10_800);
    expect(delaySeconds({ delayAmount: '1', delayUnit: 'day' })).toBe(86_400);
    expect(delaySeconds({ delayAmount: '1.5', delayUnit: 'hour' })).toBe(0);
    const t = { ...state('drip_campaign').emails[1].timing, delayAmount: 'soon' };
    expect(delayWarning(t, 1)).toBe('missing delay for email 2. Using 0 delay');
    expect(delayWarning({ ...t, delayAmount: '5' }, 1)).toBeUndefined();
    // A delay never blocks Continue; a time of day needs a time and (specific zone) a timezone.
    expect(pageError(setEmail(state('drip_campaign'), 1, { timing: t }), { kind: 'email_timing', index: 1 })).toBeUndefined();
    const tod = { ...t, type: 'time_of_day_specific_timezone' as const, timezone: 'Nowhere/Land' };
    expect(pageError(setEmail(state('drip_campaign'), 1, { timing: tod }), { kind: 'email_timing', index: 1 })).toBe(WIZARD_MESSAGES.invalidTimezone);
  });
});

describe('the inline sender persona (part 2 §5, §8)', () => {
  it('needs a first name and a valid email; the last name is optional', () => {
    expect(newPersonaErrors({ first_name: '', last_name: '', email: 'a@b' })).toEqual({ first_name: 'Required field', email: 'Must contain dot' });
    expect(newPersonaErrors({ first_name: 'Ann', last_name: '', email: 'ann@shop.example' })).toEqual({});
    expect(newPersonaBody({ first_name: ' Ann ', last_name: '', email: 'ann@shop.example' })).toEqual({
      sender_personas: [{ first_name: 'Ann', email: 'ann@shop.example' }],
    });
    expect(personaSavedToast('ann@shop.example')).toBe('Successfully saved sender persona, please log in to ann@shop.example and verify the account.');
  });
});

describe('review: preview request and cost', () => {
  it('asks the preview for each type’s templates, personas and audience', () => {
    const blast = state('scheduled_email_blast', { personaId: P1, templateId: T1, segmentIds: [S1], userIds: [U1], recipientType: 'segments' });
    expect(previewRequest(blast)).toEqual({ template_id: T1, sender_persona_id: P1, to_segment_ids: [S1], to_user_ids: [] });
    const ab = state('a_b_test', { personaId: P1, abTemplateIds: [T1, T2], weights: [70, 30], userIds: [U1], recipientType: 'users' });
    expect(previewRequest(ab)).toEqual({
      template_ids_with_weights: [
        { template_id: T1, weight: 70 },
        { template_id: T2, weight: 30 },
      ],
      sender_persona_id: P1,
      to_segment_ids: [],
      to_user_ids: [U1],
    });
    expect(previewRequest(state('event_trigger_campaign', { personaId: P1, templateId: T1 }))).toEqual({ template_id: T1, sender_persona_id: P1 });
    let drip = state('drip_campaign', { segmentIds: [S1] });
    drip = setEmail(setEmail(drip, 0, { personaId: P1, templateId: T1 }), 1, { personaId: P2, templateId: T1 });
    expect(previewRequest(drip)).toEqual({ template_ids: [T1], sender_persona_ids: [P1, P2], to_segment_ids: [S1], emails_per_recipient: 2 });
  });

  it('shows the cost the pricing formula gives for the audience size and this month’s sends', () => {
    // 9,500 sent this month, 1,000 more: 500 past the free 10,000 at 51¢ per 1,000.
    const cost = reviewCost('a_b_test', { month_sends: 9500, emails: 1000 });
    expect(cost.dollars).toBe(sendCost(9500, 1000).dollars);
    expect(cost.text).toBe(formatDollars(sendCost(9500, 1000).dollars));
    expect(cost.text).toBe('$0.255');
    for (const [month, emails] of [
      [0, 10],
      [9_999, 2],
      [120_000, 3_000],
      [2_000_000, 1_000_000],
    ]) {
      expect(reviewCost('scheduled_email_blast', { month_sends: month, emails }).dollars).toBe(sendCost(month, emails).dollars);
    }
    // Event-triggered types: the price of 1,000 more emails this month.
    expect(reviewCost('event_trigger_campaign', { month_sends: 20_000, emails: 0 })).toMatchObject({ dollars: sendCost(20_000, 1000).dollars, text: '$0.51' });
    expect(formatDollars(0)).toBe('$0.00');
    expect(formatDollars(1234.5)).toBe('$1,234.50');
    expect(formatDollars(0.00051)).toBe('$0.00051');
  });
});

describe('launch payloads and steps (part 2 §4 Wizard launch)', () => {
  it('schedules a blast in the chosen zone or each contact’s own, and an A/B blast with its weights', () => {
    const s = state('scheduled_email_blast', {
      personaId: P1,
      templateId: T1,
      userIds: [U1],
      recipientType: 'users',
      timing: { ...initialState(TODAY).timing, time: '09:15', timezone: 'Europe/Paris' },
    });
    expect(blastBody(s, 'b-1')).toEqual({
      id: 'b-1',
      name: 'Spring',
      template_id: T1,
      sender_persona_id: P1,
      to_segment_ids: [],
      to_user_ids: [U1],
      send_at: `${TODAY}T09:15`,
      timezone: 'Europe/Paris',
      send_in_users_timezone: false,
    });
    const local = blastBody({ ...s, timing: { ...s.timing, type: 'users_timezone' } }, 'b-1');
    expect(local).toMatchObject({ timezone: CONTACT_LOCAL_TIMEZONE, send_in_users_timezone: true });
    const ab = blastBody(state('a_b_test', { personaId: P1, abTemplateIds: [T1, T2], weights: [70, 30], segmentIds: [S1] }), 'b-2');
    expect(ab.template_ids_with_weights).toEqual([
      { template_id: T1, weight: 70 },
      { template_id: T2, weight: 30 },
    ]);
    expect(ab.template_id).toBeUndefined();
    // Send now: the launch minute in UTC, whatever moment and zone were on the form.
    const now = blastBody({ ...s, timing: { ...s.timing, type: 'users_timezone', sendNow: true } }, 'b-3', new Date('2026-11-22T14:52:41Z'));
    expect(now).toMatchObject({ send_at: '2026-11-22T14:52', timezone: 'UTC', send_in_users_timezone: false });
  });

  it('sends at each contact’s best hour and as a re-engagement blast when chosen, never best hour in each contact’s own zone', () => {
    const s = state('scheduled_email_blast', {
      personaId: P1,
      templateId: T1,
      segmentIds: [S1],
      timing: { ...initialState(TODAY).timing, time: '09:15' },
      sendTimeOptimised: true,
      reEngagement: true,
    });
    expect(blastBody(s, 'b-1')).toMatchObject({ send_time_optimised: true, re_engagement: true, send_in_users_timezone: false });
    expect(previewRequest(s)).toMatchObject({ re_engagement: true });
    const local = blastBody({ ...s, timing: { ...s.timing, type: 'users_timezone' } }, 'b-1');
    expect(local.send_time_optimised).toBeUndefined();
    expect(local.re_engagement).toBe(true);
    const plain = blastBody({ ...s, sendTimeOptimised: false, reEngagement: false }, 'b-1');
    expect(plain).not.toHaveProperty('send_time_optimised');
    expect(plain).not.toHaveProperty('re_engagement');
  });

  it('says the frequency cap is checked again only for a blast scheduled for later that leaves some out by it', () => {
    const now = new Date(`${TODAY}T08:00:00Z`);
    const later = state('scheduled_email_blast', { timing: { ...initialState(TODAY).timing, time: '09:15', timezone: 'UTC' } });
    expect(capCheckedAgain(later, 2, now)).toMatch(/checked again when each email goes/);
    expect(capCheckedAgain(later, 0, now)).toBeUndefined();
    expect(capCheckedAgain({ ...later, timing: { ...later.timing, sendNow: true } }, 2, now)).toBeUndefined();
    expect(capCheckedAgain({ ...later, timing: { ...later.timing, time: '07:00' } }, 2, now)).toBeUndefined();
  });

  it('creates the campaign of each type and links it once the blast or workflow exists', () => {
    expect(campaignBody(state('scheduled_email_blast'), IDS)).toEqual({
      id: 'c-1',
      name: 'Spring',
      type: 'scheduled_email_group',
      scheduled_email_blast_group_ids: [],
      workflow_ids: [],
      template_ids: [],
    });
    expect(campaignBody(state('scheduled_email_blast'), IDS, true).scheduled_email_blast_group_ids).toEqual(['b-1']);
    expect(campaignBody(state('a_b_test', { abTemplateIds: [T1, T2] }), IDS, true)).toMatchObject({
      type: 'a_b_test',
      scheduled_email_blast_group_ids: ['b-1'],
      template_ids: [T1, T2],
    });
    expect(campaignBody(state('drip_campaign'), IDS, true)).toMatchObject({ type: 'workflow', workflow_ids: ['w-1'], scheduled_email_blast_group_ids: [] });
  });

  it('builds an event-triggered drip as event → sender → delay → sender, a valid tree', () => {
    let s = state('event_triggered_drip_campaign', { eventName: ' signed_up ' });
    s = setEmail(s, 0, { personaId: P1, templateId: T1 });
    s = setEmail(s, 1, { personaId: P2, templateId: T2, timing: { ...s.emails[1].timing, delayAmount: '2', delayUnit: 'hour' } });
    const { body, rootId } = workflowBody(s, { workflowId: 'w-1', nodeId: counter() }, TODAY);
    expect(body.tree).toMatchObject({
      id: rootId,
      type: 'event',
      event_topic: 'signed_up',
      children: [
        {
          type: 'sender',
          settings: { template_id: T1, sender_persona_id: P1 },
          children: [
            {
              type: 'delay',
              settings: { delay_ms: 7_200_000 },
              children: [{ type: 'sender', settings: { template_id: T2, sender_persona_id: P2 }, children: [] }],
            },
          ],
        },
      ],
    });
    expect(body.display.nodes.map((n) => n.type)).toEqual(['event', 'sender', 'delay', 'sender']);
  });

  it('builds a drip campaign from a root trigger, with time-of-day waits as delay-until nodes', () => {
    let s = state('drip_campaign', { segmentIds: [S1] });
    s = setEmail(s, 0, { personaId: P1, templateId: T1, timing: { ...s.emails[0].timing, delayAmount: '1', delayUnit: 'minute' } });
    s = setEmail(s, 1, { personaId: P1, templateId: T2, timing: { ...s.emails[1].timing, type: 'time_of_day_users_timezone', time: '08:30' } });
    const { body } = workflowBody(s, { workflowId: 'w-1', nodeId: counter() }, TODAY);
    expect(body.tree.type).toBe('root');
    const wait = body.tree.children[0].children[0].children[0];
    expect(body.tree.children[0]).toMatchObject({ type: 'delay', settings: { delay_ms: 60_000 } });
    expect(wait).toMatchObject({
      type: 'delay_until',
      settings: { delay_until: '2000-01-01T08:30', delay_until_users_timezone: true, delay_until_any_date: true, delay_until_exclusive: false },
    });
  });

  it('sends an event-triggered email at once: event → sender', () => {
    const s = state('event_trigger_campaign', { eventName: 'order_placed', personaId: P1, templateId: T1 });
    const { body } = workflowBody(s, { workflowId: 'w-1', nodeId: counter() }, TODAY);
    expect(body.display.nodes.map((n) => n.type)).toEqual(['event', 'sender']);
  });

  it('orders the launch steps per type', () => {
    expect(launchSteps(state('scheduled_email_blast')).map((s) => s.kind)).toEqual(['create_campaign', 'schedule_blast', 'link_blast']);
    expect(launchSteps(state('event_trigger_campaign')).map((s) => s.kind)).toEqual(['create_campaign', 'create_workflow', 'wait_workflow', 'link_workflow']);
    const drip = launchSteps(state('drip_campaign', { segmentIds: [S1, U1] }), { [S1]: 'Leads' });
    expect(drip.map((s) => s.kind)).toEqual(['create_campaign', 'create_workflow', 'wait_workflow', 'link_workflow', 'send_segment', 'send_segment']);
    expect(drip[4].label).toBe("Send segment 'Leads' to the workflow");
  });

  it('links the success page to every created object, and /account/api for event types', () => {
    const blast = successLinks(state('scheduled_email_blast', { personaId: P1, templateId: T1, segmentIds: [S1] }), IDS).map((l) => l.href);
    expect(blast).toEqual([
      '/campaigns',
      '/campaigns/edit/c-1',
      '/components/email-blasts/edit/b-1',
      `/components/templates/edit/${T1}`,
      `/components/templates/new/${T1}`,
      `/people/sender-personas/edit/${P1}`,
      `/people/segments/edit/${S1}`,
    ]);
    const event = successLinks(state('event_trigger_campaign', { personaId: P1, templateId: T1 }), IDS).map((l) => l.href);
    expect(event).toEqual([
      '/campaigns',
      '/campaigns/edit/c-1',
      '/components/workflows/edit/w-1',
      `/components/templates/edit/${T1}`,
      `/components/templates/new/${T1}`,
      `/people/sender-personas/edit/${P1}`,
      '/account/api',
    ]);
    const named = successLinks(state('event_trigger_campaign', { personaId: P1, templateId: T1 }), IDS, { [T1]: 'Receipt' });
    expect(named.filter((l) => l.href.includes('/templates/')).map((l) => l.label)).toEqual(["Template 'Receipt'", "Make a copy of template 'Receipt'"]);
  });
});

describe('describeTiming', () => {
  it('says when each email goes', () => {
    const t = initialState(TODAY).timing;
    expect(describeTiming(t)).toBe(`${TODAY} at 12:00 pm (UTC)`);
    expect(describeTiming({ ...t, type: 'users_timezone', time: '09:15' })).toBe(`${TODAY} at 9:15 am in each contact's own timezone`);
    expect(describeTiming({ ...t, type: 'delay', delayAmount: '1', delayUnit: 'minute' }, 1)).toBe('1 minute after the previous email');
    expect(describeTiming({ ...t, type: 'delay', delayAmount: 'x' }, 0)).toBe('at once when the contact enters');
    expect(describeTiming({ ...t, type: 'time_of_day_specific_timezone', time: '00:00', timezone: 'Asia/Tokyo' })).toBe('the next 12:00 am (Asia/Tokyo)');
  });
});

describe('the default send moment and a past one', () => {
  it('starts a blast at the slot it is given, and a drip with its delays', () => {
    const s = initialState('2026-11-22', { date: '2026-11-22', time: '15:00' });
    expect(s.timing).toMatchObject({ type: 'specific_timezone', date: '2026-11-22', time: '15:00', timezone: 'UTC' });
    expect(s.emails[0].timing).toMatchObject({ type: 'delay', delayAmount: '0' });
  });

  it('warns of a fixed moment already past, and of nothing else', () => {
    const now = new Date('2026-11-22T14:52:00Z');
    const s = initialState('2026-11-22', { date: '2026-11-22', time: '12:00' });
    expect(pastSendTime(s.timing, now)).toBe(
      '2026-11-22 at 12:00 pm (UTC) has already passed: launching sends at once. To send later, go back to "When to send" and choose a later time.',
    );
    expect(pastSendTime({ ...s.timing, time: '15:00' }, now)).toBeUndefined();
    // 12:00 in Los Angeles is 20:00 UTC: still ahead.
    expect(pastSendTime({ ...s.timing, timezone: 'America/Los_Angeles' }, now)).toBeUndefined();
    expect(pastSendTime({ ...s.timing, type: 'users_timezone' }, now)).toBeUndefined();
    expect(pastSendTime({ ...s.timing, date: 'not a date' }, now)).toBeUndefined();
    // Send now is never "past": it goes at launch, and the review says so.
    expect(pastSendTime({ ...s.timing, sendNow: true }, now)).toBeUndefined();
    expect(describeTiming({ ...s.timing, sendNow: true })).toBe('now, as soon as you launch');
  });
});

describe('stepCounter', () => {
  it('counts the pages only once a type says how many there are', () => {
    expect(stepCounter(0, 2, undefined)).toBe('Step 1');
    expect(stepCounter(0, 8, 'scheduled_email_blast')).toBe('Step 1 of 8 · One-time blast');
    expect(stepCounter(1, 8, 'scheduled_email_blast')).toBe('Step 2 of 8 · One-time blast');
  });
});
