/**
 * The send wizard's rules (spec part 2 §2 Send wizard, §3, §4 Wizard launch, §5 Campaign, §8, §9),
 * free of React and I/O so every rule is unit-tested: which pages each campaign type walks through, what blocks
 * Continue on each page (with the spec's messages), the drip and A/B rules (counts, delays, weights, templates chosen
 * once), the preview request of the review, the estimated cost, and the payloads and ordered steps of the launch —
 * campaign, email blast and a workflow built as a display graph and turned into its tree by displayToTree, so it
 * follows the same rules as the workflow editor's.
 */
import { CAMPAIGN_NAME_TAKEN, type CampaignType } from '../../domain/campaigns';
import { sendCost } from '../../domain/pricing';
import { CONTACT_LOCAL_TIMEZONE, isValidTimezone, parseWallClock, sendNowMoment, wallClockToInstant } from '../../domain/sendTime';
import { MESSAGES, checkEmail, checkRequired } from '../../domain/validation';
import { CONTACT_ZONE, displayToTree, type Display, type DisplayNode, type WorkflowBody } from '../../domain/workflowGraph';
import type { OperationBody, Schema } from '../data/apiTypes';

/** The campaign types of page 1 (part 2 §2 Send wizard). */
export const WIZARD_TYPES = ['scheduled_email_blast', 'a_b_test', 'event_trigger_campaign', 'event_triggered_drip_campaign', 'drip_campaign'] as const;
export type WizardType = (typeof WIZARD_TYPES)[number];

/** How page 1 names and explains each type. */
export const WIZARD_TYPE_INFO: Record<WizardType, { label: string; description: string }> = {
  scheduled_email_blast: { label: 'One-time blast', description: 'One email to segments and contacts at a date and time (a newsletter).' },
  a_b_test: { label: 'A/B test', description: 'A one-time blast split between two or more templates by weight.' },
  event_trigger_campaign: { label: 'Event-triggered email', description: 'A transactional email sent each time an event you post names a contact.' },
  event_triggered_drip_campaign: { label: 'Event-triggered drip campaign', description: 'A series of emails, spaced out, started by an event.' },
  drip_campaign: { label: 'Drip campaign', description: 'Existing segments into a new drip campaign: a series of emails, spaced out.' },
};

/** The campaign type each wizard type creates (part 2 §3 Campaign types; §4 Wizard launch). */
export function campaignTypeOf(type: WizardType): CampaignType {
  if (type === 'scheduled_email_blast') return 'scheduled_email_group';
  if (type === 'a_b_test') return 'a_b_test';
  return 'workflow';
}

/** isBlastType is true for the types that schedule an email blast; the others build a workflow. */
export function isBlastType(type: WizardType | undefined): boolean {
  return type === 'scheduled_email_blast' || type === 'a_b_test';
}
/** isDripType is true for the types with several emails (per-email pages). */
export function isDripType(type: WizardType | undefined): boolean {
  return type === 'event_triggered_drip_campaign' || type === 'drip_campaign';
}
/** isEventType is true for the types an event starts (their audience is not known in advance). */
export function isEventType(type: WizardType | undefined): boolean {
  return type === 'event_trigger_campaign' || type === 'event_triggered_drip_campaign';
}

/** Recipient types (part 2 §2): segments, contacts (users) or both. */
export type RecipientType = 'segments' | 'users' | 'both';

/** Send-at types (part 2 §4): a blast's are the first two, a drip email's the last three. */
export type SendAtType = 'users_timezone' | 'specific_timezone' | 'time_of_day_specific_timezone' | 'time_of_day_users_timezone' | 'delay';
export const BLAST_SEND_AT_TYPES: SendAtType[] = ['specific_timezone', 'users_timezone'];
export const DRIP_SEND_AT_TYPES: SendAtType[] = ['delay', 'time_of_day_specific_timezone', 'time_of_day_users_timezone'];
export const SEND_AT_LABELS: Record<SendAtType, string> = {
  specific_timezone: 'At a date and time in a timezone',
  users_timezone: "At a date and time in each contact's own timezone",
  delay: 'After a delay',
  time_of_day_specific_timezone: 'At a time of day in a timezone',
  time_of_day_users_timezone: "At a time of day in each contact's own timezone",
};

/** Drip delay units (part 2 §5, §9): their length in seconds. */
export const DELAY_UNITS = { minute: 60, hour: 3600, day: 86400 } as const;
export type DelayUnit = keyof typeof DELAY_UNITS;

/** Wizard defaults (part 2 §5, §9): 2 emails, send time 12:00 in the default timezone. */
export const WIZARD_DEFAULTS = { emails: 2, time: '12:00', timezone: 'UTC', templates: 2 } as const;
/** The most emails a drip campaign may have (the preview's emails_per_recipient limit). */
export const MAX_DRIP_EMAILS = 100;
/** The most templates an A/B test may split between (the blast's template_ids_with_weights limit). */
export const MAX_AB_TEMPLATES = 10;
/** Weight slider bounds (part 2 §5). */
export const WEIGHT_MIN = 1;
export const WEIGHT_MAX = 99;

/** The campaign-name lookup's debounce (part 2 §5, §9). */
export const NAME_CHECK_DEBOUNCE_MS = 500;
/** The wizard's segment and contact pickers show this many per page (part 2 §2 Pick lists, §9). */
export const WIZARD_PICKER_PAGE_SIZE = 5;
/** The wizard's wait for the workflow's JOB_CREATE_WORKFLOW entry (part 2 §4, §9): every 2 s, up to 450 polls. */
export const WIZARD_WORKFLOW_WAIT = { pollMs: 2000, entries: 100, attempts: 450 } as const;

/** The spec's messages (part 2 §5, §8). */
export const WIZARD_MESSAGES = {
  nameTaken: CAMPAIGN_NAME_TAKEN,
  selectSegments: 'Please select one or more segments',
  selectContacts: 'Please select one or more contacts',
  chooseType: 'Please choose a campaign type',
  notInteger: 'Must be a whole number',
  abAtLeastTwo: 'An A/B test needs at least 2 templates',
  abAtMost: `An A/B test can split between at most ${MAX_AB_TEMPLATES} templates`,
  dripAtMost: `A drip campaign can have at most ${MAX_DRIP_EMAILS} emails`,
  weight: `Each weight must be a whole number from ${WEIGHT_MIN} to ${WEIGHT_MAX}`,
  invalidTime: 'Choose a time of day',
  invalidDate: 'Choose a date (YYYY-MM-DD)',
  invalidTimezone: 'Choose a timezone',
  workflowTimeout:
    'This workflow took a very long time to be created. Please check the notifications tab and campaign details to make sure it was created and succesfully associated with the campaign.',
} as const;

/** templateTaken is the A/B duplicate-template message (part 2 §5). */
export const templateTaken = (name: string) => `Template '${name}' has already been selected for this campaign! You can only select each template once.`;
/** personaSavedToast is the wizard's persona toast (part 2 §8). */
export const personaSavedToast = (email: string) => `Successfully saved sender persona, please log in to ${email} and verify the account.`;
/** usingZeroDelay is the warning of a drip delay that is not a whole number (part 2 §5: 'Using 0 delay'). */
export const usingZeroDelay = (email: number) => `missing delay for email ${email}. Using 0 delay`;

/** One email's send moment. */
export interface Timing {
  type: SendAtType;
  /** "Send now" (blasts): the emails go when the campaign is launched; date, time and zone are then set at launch. */
  sendNow?: boolean;
  /** YYYY-MM-DD (blasts). */
  date: string;
  /** HH:mm. */
  time: string;
  /** An IANA zone (specific_timezone, time_of_day_specific_timezone). */
  timezone: string;
  /** The delay's amount as typed (drip 'delay'). */
  delayAmount: string;
  delayUnit: DelayUnit;
}

/** One drip email: who sends it, what, and when (after the previous one). */
export interface DripEmail {
  personaId: string;
  templateId: string;
  timing: Timing;
}

/** Everything the wizard has chosen (kept in memory only: a refresh starts again, part 2 §2). */
export interface WizardState {
  type?: WizardType;
  name: string;
  eventName: string;
  personaId: string;
  templateId: string;
  /** The A/B template count as typed. */
  numTemplates: string;
  abTemplateIds: string[];
  weights: number[];
  recipientType: RecipientType;
  segmentIds: string[];
  userIds: string[];
  timing: Timing;
  /** The drip email count as typed. */
  numEmails: string;
  emails: DripEmail[];
  /** Blasts: each contact gets the email at its best hour within 24 h of the send time (EmailBlastInput.send_time_optimised). */
  sendTimeOptimised: boolean;
  /** Blasts: a re-engagement blast, which contacts past the sunset policy get once (EmailBlastInput.re_engagement). */
  reEngagement: boolean;
}

/**
 * defaultTiming is a new send moment: `slot` (the next quarter hour, nextSendSlot) in the default zone —
 * 12:00 on `today` when no slot is given — or for a drip email a delay (1 day after the previous, none for the first).
 */
export function defaultTiming(today: string, drip = false, first = true, slot?: { date: string; time: string }): Timing {
  return {
    type: drip ? 'delay' : 'specific_timezone',
    date: slot?.date ?? today,
    time: slot?.time ?? WIZARD_DEFAULTS.time,
    timezone: WIZARD_DEFAULTS.timezone,
    delayAmount: drip && !first ? '1' : '0',
    delayUnit: 'day',
  };
}

/** defaultWeights splits 100 equally between `n` templates (50/50 for two), each within the slider's bounds. */
export function defaultWeights(n: number): number[] {
  const each = Math.min(WEIGHT_MAX, Math.max(WEIGHT_MIN, Math.floor(100 / Math.max(1, n))));
  return Array.from({ length: n }, () => each);
}

/** initialState is the wizard before any choice; `today` is YYYY-MM-DD; `slot` the default send moment (UTC). */
export function initialState(today: string, slot?: { date: string; time: string }): WizardState {
  return {
    name: '',
    eventName: '',
    personaId: '',
    templateId: '',
    numTemplates: String(WIZARD_DEFAULTS.templates),
    abTemplateIds: Array(WIZARD_DEFAULTS.templates).fill(''),
    weights: defaultWeights(WIZARD_DEFAULTS.templates),
    recipientType: 'segments',
    segmentIds: [],
    userIds: [],
    timing: defaultTiming(today, false, true, slot),
    numEmails: String(WIZARD_DEFAULTS.emails),
    emails: Array.from({ length: WIZARD_DEFAULTS.emails }, (_, i) => ({ personaId: '', templateId: '', timing: defaultTiming(today, true, i === 0) })),
    sendTimeOptimised: false,
    reEngagement: false,
  };
}

/** The words of the send-time choices of a blast's timing page and its review. */
export const SEND_TIME_WORDS = {
  bestHour: "Send at each contact's best hour (within 24 h of the time above)",
  bestHourHint: "The hour most of the contact's opens fell in; a contact with no opens yet gets the project's best hour, else the time above.",
  bestHourNotLocal: "Not with each contact's own timezone: the best hour is already the contact's own time.",
  reEngagement: 'Re-engagement blast',
  reEngagementHint: 'Sends to contacts past the sunset policy once (they are left out of other marketing email).',
  bestHourSummary: 'Best hour per contact',
} as const;

/**
 * bestHourBlocked says why a blast's timing `t` cannot go at each contact's best hour (the contact's own timezone:
 * the server refuses the two together), or undefined when it can.
 */
export function bestHourBlocked(t: Timing): string | undefined {
  return !t.sendNow && t.type === 'users_timezone' ? SEND_TIME_WORDS.bestHourNotLocal : undefined;
}

/** usesBestHour is true when a blast of `s` goes at each contact's best hour: chosen, and its timing allows it. */
export function usesBestHour(s: WizardState): boolean {
  return isBlastType(s.type) && s.sendTimeOptimised && !bestHourBlocked(s.timing);
}

/** isReEngagement is true when a blast of `s` is a re-engagement blast. */
export function isReEngagement(s: WizardState): boolean {
  return isBlastType(s.type) && s.reEngagement;
}

/** parseCount reads a typed count: the integer, or undefined when the text is not a whole number. */
export function parseCount(text: string): number | undefined {
  const t = text.trim();
  if (!/^-?\d+$/.test(t)) return undefined;
  return Number(t);
}

/** setType picks the campaign type; choices that belong to one type only are kept (Back keeps choices). */
export function setType(s: WizardState, type: WizardType): WizardState {
  return { ...s, type };
}

/**
 * setRecipientType applies part 2 §4: choosing segments clears the selected contacts, choosing users clears the
 * selected segments; both keeps both.
 */
export function setRecipientType(s: WizardState, recipientType: RecipientType): WizardState {
  if (recipientType === 'segments') return { ...s, recipientType, userIds: [] };
  if (recipientType === 'users') return { ...s, recipientType, segmentIds: [] };
  return { ...s, recipientType };
}

/**
 * setNumEmails takes the typed drip email count (part 2 §5): a whole number below 1 becomes 1, above MAX_DRIP_EMAILS
 * becomes that; the per-email choices are kept for the emails that remain and new ones get the defaults. Text that is
 * not a whole number is kept as typed (its page shows the message) and the emails are left as they are.
 */
export function setNumEmails(s: WizardState, text: string, today: string): WizardState {
  const n = parseCount(text);
  if (n === undefined) return { ...s, numEmails: text };
  const count = Math.min(MAX_DRIP_EMAILS, Math.max(1, n));
  const emails = Array.from({ length: count }, (_, i) => s.emails[i] ?? { personaId: '', templateId: '', timing: defaultTiming(today, true, i === 0) });
  return { ...s, numEmails: String(count), emails };
}

/**
 * setNumTemplates takes the typed A/B template count: the template slots follow it (chosen ones kept) and the weights
 * go back to equal shares when the count changes. A count that is not a whole number, below 2 or above
 * MAX_AB_TEMPLATES is kept as typed for its page's message.
 */
export function setNumTemplates(s: WizardState, text: string): WizardState {
  const n = parseCount(text);
  if (n === undefined || n < 2 || n > MAX_AB_TEMPLATES) return { ...s, numTemplates: text };
  if (n === s.abTemplateIds.length) return { ...s, numTemplates: String(n) };
  return {
    ...s,
    numTemplates: String(n),
    abTemplateIds: Array.from({ length: n }, (_, i) => s.abTemplateIds[i] ?? ''),
    weights: defaultWeights(n),
  };
}

/** setEmail changes one drip email's persona, template or timing. */
export function setEmail(s: WizardState, index: number, change: Partial<DripEmail>): WizardState {
  return { ...s, emails: s.emails.map((e, i) => (i === index ? { ...e, ...change } : e)) };
}

/** One page of the wizard. `index` is the A/B template or drip email it is about. */
export type WizardPage =
  | { kind: 'type' }
  | { kind: 'name' }
  | { kind: 'event_name' }
  | { kind: 'persona' }
  | { kind: 'template' }
  | { kind: 'num_templates' }
  | { kind: 'ab_template'; index: number }
  | { kind: 'weights' }
  | { kind: 'recipient_type' }
  | { kind: 'segments' }
  | { kind: 'contacts' }
  | { kind: 'timing' }
  | { kind: 'num_emails' }
  | { kind: 'email_persona'; index: number }
  | { kind: 'email_template'; index: number }
  | { kind: 'email_timing'; index: number }
  | { kind: 'review' };

function audiencePages(s: WizardState): WizardPage[] {
  const pages: WizardPage[] = [{ kind: 'recipient_type' }];
  if (s.recipientType !== 'users') pages.push({ kind: 'segments' });
  if (s.recipientType !== 'segments') pages.push({ kind: 'contacts' });
  return pages;
}

/**
 * stepCounter words where the wizard is: "Step 3 of 8 · One-time blast". Before a type is chosen the number of pages
 * is not known (each type has its own), so it says only "Step 1"; `index` counts from 0.
 */
export function stepCounter(index: number, pageCount: number, type: WizardState['type']): string {
  return type ? `Step ${index + 1} of ${pageCount} · ${WIZARD_TYPE_INFO[type].label}` : `Step ${index + 1}`;
}

/**
 * wizardPages lists the pages of the chosen type in order (part 2 §2): type, name, then the type's own pages, then
 * review. Page indices differ by type, and the recipient pages follow the recipient type; drip types have their
 * per-email pages — every persona, then every template, then every timing.
 */
export function wizardPages(s: WizardState): WizardPage[] {
  const pages: WizardPage[] = [{ kind: 'type' }, { kind: 'name' }];
  const emails = s.emails.map((_, index) => index);
  switch (s.type) {
    case undefined:
      return pages;
    case 'scheduled_email_blast':
      pages.push({ kind: 'persona' }, { kind: 'template' }, ...audiencePages(s), { kind: 'timing' });
      break;
    case 'a_b_test':
      pages.push(
        { kind: 'num_templates' },
        ...s.abTemplateIds.map((_, index): WizardPage => ({ kind: 'ab_template', index })),
        { kind: 'weights' },
        { kind: 'persona' },
        ...audiencePages(s),
        { kind: 'timing' },
      );
      break;
    case 'event_trigger_campaign':
      pages.push({ kind: 'event_name' }, { kind: 'persona' }, { kind: 'template' });
      break;
    case 'event_triggered_drip_campaign':
    case 'drip_campaign':
      if (s.type === 'event_triggered_drip_campaign') pages.push({ kind: 'event_name' });
      pages.push(
        { kind: 'num_emails' },
        ...emails.map((index): WizardPage => ({ kind: 'email_persona', index })),
        ...emails.map((index): WizardPage => ({ kind: 'email_template', index })),
        ...emails.map((index): WizardPage => ({ kind: 'email_timing', index })),
      );
      if (s.type === 'drip_campaign') pages.push({ kind: 'segments' });
      break;
  }
  pages.push({ kind: 'review' });
  return pages;
}

/** pageKey names a page (the same page keeps its key when pages before it come and go). */
export function pageKey(p: WizardPage): string {
  return 'index' in p ? `${p.kind}:${p.index}` : p.kind;
}

/** What a page's check needs besides the state: the campaign-name lookup and the names of chosen templates. */
export interface PageContext {
  /** The name lookup for the current name: 'checking' until answered, 'taken' or 'free' for that name, or its error. */
  nameCheck?: { name: string; status: 'checking' | 'taken' | 'free' | 'error'; error?: string };
  templateNames?: Record<string, string>;
}

/** timingErrors checks one send moment: a blast's date, time and (specific_timezone) zone; a drip email's time and zone. Delays never block (see delayWarning). */
export function timingError(t: Timing): string | undefined {
  if (t.type === 'delay' || t.sendNow) return undefined;
  if (!/^\d{2}:\d{2}$/.test(t.time) || !parseWallClock(`2000-01-01T${t.time}`)) return WIZARD_MESSAGES.invalidTime;
  if ((t.type === 'specific_timezone' || t.type === 'users_timezone') && (!t.date || !parseWallClock(`${t.date}T${t.time}`)))
    return WIZARD_MESSAGES.invalidDate;
  if ((t.type === 'specific_timezone' || t.type === 'time_of_day_specific_timezone') && !isValidTimezone(t.timezone)) return WIZARD_MESSAGES.invalidTimezone;
  return undefined;
}

/** delaySeconds is a drip delay in seconds: amount × unit, or 0 when the amount is not a whole number ≥ 0. */
export function delaySeconds(t: Pick<Timing, 'delayAmount' | 'delayUnit'>): number {
  const n = parseCount(t.delayAmount);
  if (n === undefined || n < 0) return 0;
  return n * DELAY_UNITS[t.delayUnit];
}

/** delayWarning is the 'Using 0 delay' warning of a drip email whose delay is not a whole number (part 2 §5), or undefined. */
export function delayWarning(t: Timing, index: number): string | undefined {
  if (t.type !== 'delay') return undefined;
  const n = parseCount(t.delayAmount);
  return n === undefined || n < 0 ? usingZeroDelay(index + 1) : undefined;
}

/**
 * pageError is what blocks Continue on page `p` (part 2 §5), or undefined when the page is
 * valid. The name page also blocks while its lookup is pending or failed.
 */
export function pageError(s: WizardState, p: WizardPage, ctx: PageContext = {}): string | undefined {
  switch (p.kind) {
    case 'type':
      return s.type ? undefined : WIZARD_MESSAGES.chooseType;
    case 'name': {
      const required = checkRequired(s.name);
      if (required) return required;
      const check = ctx.nameCheck;
      if (!check || check.name !== s.name.trim()) return 'Checking that the name is free…';
      if (check.status === 'checking') return 'Checking that the name is free…';
      if (check.status === 'taken') return WIZARD_MESSAGES.nameTaken;
      if (check.status === 'error') return `Couldn't check the name: ${check.error ?? 'unknown error'}`;
      return undefined;
    }
    case 'event_name':
      return checkRequired(s.eventName) ?? (s.eventName.trim().length > 200 ? 'at most 200 characters' : undefined);
    case 'persona':
      return checkRequired(s.personaId);
    case 'template':
      return checkRequired(s.templateId);
    case 'num_templates': {
      const n = parseCount(s.numTemplates);
      if (n === undefined) return WIZARD_MESSAGES.notInteger;
      if (n < 2) return WIZARD_MESSAGES.abAtLeastTwo;
      if (n > MAX_AB_TEMPLATES) return WIZARD_MESSAGES.abAtMost;
      return undefined;
    }
    case 'ab_template': {
      const id = s.abTemplateIds[p.index];
      if (!id) return MESSAGES.required;
      if (s.abTemplateIds.slice(0, p.index).includes(id)) return templateTaken(ctx.templateNames?.[id] ?? id);
      return undefined;
    }
    case 'weights':
      return s.weights.every((w) => Number.isInteger(w) && w >= WEIGHT_MIN && w <= WEIGHT_MAX) ? undefined : WIZARD_MESSAGES.weight;
    case 'recipient_type':
      return undefined;
    case 'segments':
      return s.segmentIds.length ? undefined : WIZARD_MESSAGES.selectSegments;
    case 'contacts':
      return s.userIds.length ? undefined : WIZARD_MESSAGES.selectContacts;
    case 'timing':
      return timingError(s.timing);
    case 'num_emails': {
      const n = parseCount(s.numEmails);
      if (n === undefined) return WIZARD_MESSAGES.notInteger;
      if (n > MAX_DRIP_EMAILS) return WIZARD_MESSAGES.dripAtMost;
      return undefined;
    }
    case 'email_persona':
      return checkRequired(s.emails[p.index]?.personaId);
    case 'email_template':
      return checkRequired(s.emails[p.index]?.templateId);
    case 'email_timing':
      return s.emails[p.index] ? timingError(s.emails[p.index].timing) : MESSAGES.required;
    case 'review':
      return undefined;
  }
}

/** firstInvalidPage is the index of the first page before `upTo` that does not pass its check (the review sends the user back to it), or -1. */
export function firstInvalidPage(s: WizardState, pages: WizardPage[], upTo: number, ctx: PageContext = {}): number {
  for (let i = 0; i < Math.min(upTo, pages.length); i++) if (pageError(s, pages[i], ctx)) return i;
  return -1;
}

/** A new persona typed on the persona page (part 2 §5 Wizard sender step: first name and email, last name optional). */
export interface NewPersona {
  first_name: string;
  last_name: string;
  email: string;
}

/** newPersonaErrors checks the inline persona form: first name required, email valid (validation.ts's messages). */
export function newPersonaErrors(p: NewPersona): { first_name?: string; email?: string } {
  const errors: { first_name?: string; email?: string } = {};
  const first = checkRequired(p.first_name);
  if (first) errors.first_name = first;
  const email = checkEmail(p.email);
  if (email) errors.email = email;
  return errors;
}

/** newPersonaBody is the saveSenderPersonas body of the inline form (last name left out when empty). */
export function newPersonaBody(p: NewPersona): OperationBody<'saveSenderPersonas'> {
  const persona: Schema<'senderpersonawrapper', 'SenderPersonaInput'> = { first_name: p.first_name.trim(), email: p.email.trim() };
  if (p.last_name.trim()) persona.last_name = p.last_name.trim();
  return { sender_personas: [persona] };
}

/** The chosen templates and personas of a launch, each once, in order. */
export function chosenTemplateIds(s: WizardState): string[] {
  if (s.type === 'a_b_test') return [...new Set(s.abTemplateIds.filter(Boolean))];
  if (isDripType(s.type)) return [...new Set(s.emails.map((e) => e.templateId).filter(Boolean))];
  return s.templateId ? [s.templateId] : [];
}
/** personaOfTemplate: the sender persona a chosen template is sent from (a drip's first email using it). */
export function personaOfTemplate(s: WizardState, templateId: string): string | undefined {
  if (isDripType(s.type)) return s.emails.find((e) => e.templateId === templateId)?.personaId || undefined;
  return s.personaId || undefined;
}
export function chosenPersonaIds(s: WizardState): string[] {
  if (isDripType(s.type)) return [...new Set(s.emails.map((e) => e.personaId).filter(Boolean))];
  return s.personaId ? [s.personaId] : [];
}
/** The segments and contacts a launch sends to (blast types follow the recipient type; drip_campaign has segments). */
export function chosenSegmentIds(s: WizardState): string[] {
  if (s.type === 'drip_campaign') return s.segmentIds;
  if (isBlastType(s.type) && s.recipientType !== 'users') return s.segmentIds;
  return [];
}
export function chosenUserIds(s: WizardState): string[] {
  return isBlastType(s.type) && s.recipientType !== 'segments' ? s.userIds : [];
}

/** templateWeights is an A/B blast's template_ids_with_weights. */
export function templateWeights(s: WizardState): Array<Schema<'scheduler', 'TemplateWeight'>> {
  return s.abTemplateIds.map((template_id, i) => ({ template_id, weight: s.weights[i] }));
}

/**
 * The preview request of the review (openapi scheduler PreviewRequest, as generated), emails_per_recipient left out
 * unless a drip sets it and counts unless the review asks for an estimate: the spec defaults them (1, exact), which
 * the generated type lists as always set.
 */
export type PreviewRequest = Omit<Schema<'scheduler', 'PreviewRequest'>, 'emails_per_recipient' | 'counts'> &
  Partial<Pick<Schema<'scheduler', 'PreviewRequest'>, 'emails_per_recipient' | 'counts'>>;

/**
 * previewRequest is what the review asks the preview: a blast's template (or weights), persona and audience (and
 * re_engagement for a re-engagement blast, whose sunset contacts are then counted in); an
 * event-triggered email's template and persona (no audience); a drip's templates and personas, with drip_campaign's
 * segments and emails per recipient for the cost.
 */
export function previewRequest(s: WizardState): PreviewRequest {
  switch (s.type) {
    case 'scheduled_email_blast':
      return {
        template_id: s.templateId,
        sender_persona_id: s.personaId,
        to_segment_ids: chosenSegmentIds(s),
        to_user_ids: chosenUserIds(s),
        ...(isReEngagement(s) ? { re_engagement: true } : {}),
      };
    case 'a_b_test':
      return {
        template_ids_with_weights: templateWeights(s),
        sender_persona_id: s.personaId,
        to_segment_ids: chosenSegmentIds(s),
        to_user_ids: chosenUserIds(s),
        ...(isReEngagement(s) ? { re_engagement: true } : {}),
      };
    case 'event_trigger_campaign':
      return { template_id: s.templateId, sender_persona_id: s.personaId };
    case 'event_triggered_drip_campaign':
      return { template_ids: chosenTemplateIds(s), sender_persona_ids: chosenPersonaIds(s) };
    case 'drip_campaign':
      return {
        template_ids: chosenTemplateIds(s),
        sender_persona_ids: chosenPersonaIds(s),
        to_segment_ids: s.segmentIds,
        emails_per_recipient: Math.min(MAX_DRIP_EMAILS, s.emails.length),
      };
    default:
      return {};
  }
}

/** The preview's answer (openapi scheduler BlastPreview, as generated). */
export type Preview = Schema<'scheduler', 'BlastPreview'>;

/** formatDollars shows an amount in dollars with at least 2 decimals and up to 5 (the pricing's exact thousandths of a cent), e.g. $0.255. */
export function formatDollars(dollars: number): string {
  const fixed = Math.abs(dollars)
    .toFixed(5)
    .replace(/0{1,3}$/, '');
  const [whole, frac] = fixed.split('.');
  return `${dollars < 0 ? '-' : ''}$${Number(whole).toLocaleString('en-US')}.${frac}`;
}

/**
 * reviewCost is the review's estimated cost, by the pricing formula (sendCost) over this month's sends so
 * far: for a known audience (blasts, A/B, drip_campaign), what its emails add to this month's bill; for the
 * event-triggered types, whose audience is not known, what 1,000 more emails would add this month.
 */
export function reviewCost(
  type: WizardType | undefined,
  p: Pick<Preview, 'month_sends' | 'emails'>,
): { label: string; dollars: number; text: string; emails: number } {
  if (isEventType(type)) {
    const dollars = sendCost(p.month_sends, 1000).dollars;
    return { label: 'Price per 1,000 emails this month', dollars, text: formatDollars(dollars), emails: 1000 };
  }
  const dollars = sendCost(p.month_sends, p.emails).dollars;
  return { label: 'Estimated cost of this send', dollars, text: formatDollars(dollars), emails: p.emails };
}

/** How the review names the preview's audience-policy reasons (excluded.sunset, excluded.frequency). */
export const EXCLUDED_POLICY_LABELS = {
  sunset: 'Sunset (no opens or clicks in a long time)',
  frequency: 'Frequency cap (already got enough marketing email)',
} as const;

/**
 * capCheckedAgain is the review's note for a blast scheduled for later whose preview leaves `frequency` contacts out
 * by the frequency cap: the count is today's, and the cap is checked again as each email goes. Undefined otherwise
 * (sent now, a moment already past, not a blast, or nobody over the cap).
 */
export function capCheckedAgain(s: WizardState, frequency: number, now: Date = new Date()): string | undefined {
  if (!isBlastType(s.type) || frequency <= 0 || s.timing.sendNow || pastSendTime(s.timing, now)) return undefined;
  return 'This blast goes later: the frequency cap is checked again when each email goes, so who is left out by it may change by then.';
}

/** The ids a launch creates, made before it starts so every step can name the others (and a retry re-uses them). */
export interface LaunchIds {
  campaignId: string;
  blastId: string;
  workflowId: string;
  /** Makes node ids for the workflow's display graph. */
  nodeId: () => string;
}

type BlastInput = Schema<'scheduler', 'EmailBlastInput'>;
/** The blast body (openapi scheduler EmailBlastInput, as generated): the fields the wizard sends, its audience always given. */
export type BlastBody = Pick<
  BlastInput,
  | 'id'
  | 'name'
  | 'template_id'
  | 'template_ids_with_weights'
  | 'sender_persona_id'
  | 'send_at'
  | 'timezone'
  | 'send_in_users_timezone'
  | 're_engagement'
  | 'send_time_optimised'
> &
  Required<Pick<BlastInput, 'to_segment_ids' | 'to_user_ids'>>;

/**
 * blastBody is the email blast a blast or A/B launch schedules: wall-clock send_at in the chosen zone, or in each
 * contact's own; send_time_optimised and re_engagement when chosen (and, for the first, allowed: usesBestHour).
 */
export function blastBody(s: WizardState, id: string, now: Date = new Date()): BlastBody {
  const users = !s.timing.sendNow && s.timing.type === 'users_timezone';
  // Send now: the current minute in UTC, fixed at launch, so the blast is due at once.
  const at = s.timing.sendNow ? { ...sendNowMoment(now), timezone: 'UTC' } : s.timing;
  const body: BlastBody = {
    id,
    name: s.name.trim(),
    sender_persona_id: s.personaId,
    to_segment_ids: chosenSegmentIds(s),
    to_user_ids: chosenUserIds(s),
    send_at: `${at.date}T${at.time}`,
    timezone: users ? CONTACT_LOCAL_TIMEZONE : at.timezone,
    send_in_users_timezone: users,
  };
  if (s.type === 'a_b_test') body.template_ids_with_weights = templateWeights(s);
  else body.template_id = s.templateId;
  if (usesBestHour(s)) body.send_time_optimised = true;
  if (isReEngagement(s)) body.re_engagement = true;
  return body;
}

/** The campaign body (openapi campaign CampaignInput, as generated), every field given. */
export type CampaignBody = Required<Schema<'campaign', 'CampaignInput'>>;

/**
 * campaignBody is the base campaign: type scheduled_email_group, a_b_test or workflow; an A/B campaign holds its
 * templates from the start. `linked` adds the blast (blast types) or the workflow (the other types) once it exists.
 */
export function campaignBody(s: WizardState, ids: Pick<LaunchIds, 'campaignId' | 'blastId' | 'workflowId'>, linked = false): CampaignBody {
  const type = campaignTypeOf(s.type!);
  return {
    id: ids.campaignId,
    name: s.name.trim(),
    type,
    scheduled_email_blast_group_ids: linked && isBlastType(s.type) ? [ids.blastId] : [],
    workflow_ids: linked && !isBlastType(s.type) ? [ids.workflowId] : [],
    template_ids: type === 'a_b_test' ? chosenTemplateIds(s) : [],
  };
}

/** The emails a workflow launch sends, in order (one for the event-triggered email). */
function workflowEmails(s: WizardState): DripEmail[] {
  if (s.type === 'event_trigger_campaign') {
    return [{ personaId: s.personaId, templateId: s.templateId, timing: { ...s.timing, type: 'delay', delayAmount: '0' } }];
  }
  return s.emails;
}

/**
 * workflowDisplay builds the workflow of an event or drip launch as the editor's display graph (part 2 §3: in the
 * wizard, drip workflows use event, delay, delay_until and sender nodes): the trigger — an event trigger on the event
 * name, or for drip_campaign a root trigger that the segments enter — then for each email its wait and its sender, in
 * a chain. A wait is a delay node (amount × unit; none when it is 0) or, for a time of day, a delay-until node that
 * waits for the next time that time of day comes round in the zone or in each contact's own.
 */
export function workflowDisplay(s: WizardState, nodeId: () => string, today: string): { display: Display; rootId: string } {
  const nodes: DisplayNode[] = [];
  const links: Display['links'] = [];
  const add = (node: Omit<DisplayNode, 'id' | 'position'>) => {
    const id = nodeId();
    const prev = nodes[nodes.length - 1];
    nodes.push({ ...node, id, position: { x: 60 + nodes.length * 240, y: 120 } });
    if (prev) links.push({ id: nodeId(), from: { nodeId: prev.id, portId: 'output' }, to: { nodeId: id, portId: 'input' } });
    return id;
  };
  const rootId = s.type === 'drip_campaign' ? add({ type: 'root', properties: {} }) : add({ type: 'event', properties: { eventName: s.eventName.trim() } });
  for (const email of workflowEmails(s)) {
    const t = email.timing;
    if (t.type === 'delay') {
      const seconds = delaySeconds(t);
      if (seconds > 0) add({ type: 'delay', properties: { delayMS: seconds * 1000 } });
    } else {
      add({
        type: 'delay_until',
        properties: {
          timeHelper: { date: today, time: t.time, timezone: t.type === 'time_of_day_users_timezone' ? CONTACT_ZONE : t.timezone },
          delayUntilAnyDate: true,
          delayUntilExclusive: false,
        },
      });
    }
    add({ type: 'sender', properties: { templateId: email.templateId, senderPersonaId: email.personaId } });
  }
  return { display: { nodes, links }, rootId };
}

/** workflowBody turns the wizard's workflow into the save body through displayToTree; throws with its errors if the graph breaks a rule. */
export function workflowBody(s: WizardState, ids: Pick<LaunchIds, 'workflowId' | 'nodeId'>, today: string): { body: WorkflowBody; rootId: string } {
  const { display, rootId } = workflowDisplay(s, ids.nodeId, today);
  const built = displayToTree(display);
  if (!built.tree) throw new Error(`the workflow breaks a rule: ${built.errors.join('; ')}`);
  return { body: { id: ids.workflowId, name: s.name.trim(), display, tree: built.tree }, rootId };
}

/** One launch step (part 2 §4 Wizard launch). */
export type LaunchStep =
  | { kind: 'create_campaign'; label: string }
  | { kind: 'schedule_blast'; label: string }
  | { kind: 'link_blast'; label: string }
  | { kind: 'create_workflow'; label: string }
  | { kind: 'wait_workflow'; label: string }
  | { kind: 'link_workflow'; label: string }
  | { kind: 'send_segment'; segmentId: string; label: string };

/**
 * launchSteps lists the launch in order (part 2 §4): create the base campaign; for blasts and A/B tests schedule the
 * email blast and link the campaign to it (a campaign can only name a blast that exists); for event and drip types
 * create the workflow, wait for its creation, link the campaign to it; for drip_campaign send each selected segment
 * to the workflow, one by one. `segmentNames` labels the segment steps.
 */
export function launchSteps(s: WizardState, segmentNames: Record<string, string> = {}): LaunchStep[] {
  const name = s.name.trim();
  const steps: LaunchStep[] = [{ kind: 'create_campaign', label: `Create campaign '${name}'` }];
  if (isBlastType(s.type)) {
    steps.push({ kind: 'schedule_blast', label: s.type === 'a_b_test' ? 'Schedule the A/B email blast' : 'Schedule the email blast' });
    steps.push({ kind: 'link_blast', label: 'Link the campaign to the email blast' });
    return steps;
  }
  steps.push({ kind: 'create_workflow', label: 'Create the workflow' });
  steps.push({ kind: 'wait_workflow', label: 'Wait for the workflow to be created' });
  steps.push({ kind: 'link_workflow', label: 'Link the campaign to the workflow' });
  if (s.type === 'drip_campaign') {
    for (const segmentId of s.segmentIds)
      steps.push({ kind: 'send_segment', segmentId, label: `Send segment '${segmentNames[segmentId] ?? segmentId}' to the workflow` });
  }
  return steps;
}

/** The created objects the success page links to (part 2 §2 Send wizard), each opening in a new tab. */
export interface SuccessLink {
  label: string;
  href: string;
}

/**
 * successLinks lists the success page's links (part 2 §2 Send wizard): the campaigns list, the campaign, the email
 * blast (blast types) or the workflow (workflow types), each template with a link that starts a new template from a
 * copy of it (/components/templates/new/{id}), each sender persona, each segment, and /account/api for the event
 * types (where the events endpoint and key are). `names` labels them.
 */
export function successLinks(s: WizardState, ids: Pick<LaunchIds, 'campaignId' | 'blastId' | 'workflowId'>, names: Record<string, string> = {}): SuccessLink[] {
  const label = (id: string) => names[id] ?? id;
  const links: SuccessLink[] = [
    { label: 'All campaigns', href: '/campaigns' },
    { label: `Campaign '${s.name.trim()}'`, href: `/campaigns/edit/${ids.campaignId}` },
  ];
  if (isBlastType(s.type)) links.push({ label: `Email blast '${s.name.trim()}'`, href: `/components/email-blasts/edit/${ids.blastId}` });
  else links.push({ label: `Workflow '${s.name.trim()}'`, href: `/components/workflows/edit/${ids.workflowId}` });
  for (const id of chosenTemplateIds(s)) {
    links.push({ label: `Template '${label(id)}'`, href: `/components/templates/edit/${id}` });
    links.push({ label: `Make a copy of template '${label(id)}'`, href: `/components/templates/new/${id}` });
  }
  for (const id of chosenPersonaIds(s)) links.push({ label: `Sender persona ${label(id)}`, href: `/people/sender-personas/edit/${id}` });
  for (const id of chosenSegmentIds(s)) links.push({ label: `Segment '${label(id)}'`, href: `/people/segments/edit/${id}` });
  if (isEventType(s.type)) links.push({ label: 'Events API endpoint and key', href: '/account/api' });
  return links;
}

/** timeLabel12 renders 'HH:mm' as the time options do, e.g. '12:30 pm'. */
export function timeLabel12(value: string): string {
  const [h, m] = value.split(':').map(Number);
  if (!Number.isInteger(h) || !Number.isInteger(m)) return value;
  return `${h % 12 === 0 ? 12 : h % 12}:${String(m).padStart(2, '0')} ${h < 12 ? 'am' : 'pm'}`;
}

/** describeTiming says when an email goes, for the review: a date and time in a zone or the contact's own, a delay after the previous step, or a time of day. */
export function describeTiming(t: Timing, index = 0): string {
  if (t.sendNow) return 'now, as soon as you launch';
  switch (t.type) {
    case 'specific_timezone':
      return `${t.date} at ${timeLabel12(t.time)} (${t.timezone})`;
    case 'users_timezone':
      return `${t.date} at ${timeLabel12(t.time)} in each contact's own timezone`;
    case 'time_of_day_specific_timezone':
      return `the next ${timeLabel12(t.time)} (${t.timezone})`;
    case 'time_of_day_users_timezone':
      return `the next ${timeLabel12(t.time)} in each contact's own timezone`;
    case 'delay': {
      const n = parseCount(t.delayAmount);
      const after = index === 0 ? 'after the contact enters' : 'after the previous email';
      if (n === undefined || n < 0 || n === 0) return index === 0 ? 'at once when the contact enters' : 'at once after the previous email';
      return `${n} ${t.delayUnit}${n === 1 ? '' : 's'} ${after}`;
    }
  }
}

/**
 * pastSendTime says, for a blast sent at a fixed moment (`specific_timezone`), when that moment is already past at
 * `now` (a review at 14:52 for "today 12:00 pm" launched at once without a word): a sentence for the
 * review, or undefined (a future moment, a contact-local or time-of-day timing, or a moment that does not parse).
 */
export function pastSendTime(timing: Timing, now: Date = new Date()): string | undefined {
  if (timing.sendNow || timing.type !== 'specific_timezone') return undefined;
  let at: Date;
  try {
    at = wallClockToInstant(`${timing.date}T${timing.time}`, timing.timezone);
  } catch {
    return undefined;
  }
  if (at.getTime() > now.getTime()) return undefined;
  return `${describeTiming(timing)} has already passed: launching sends at once. To send later, go back to "When to send" and choose a later time.`;
}
