/**
 * Campaign rules shared by the campaign gateway and the campaign screens (spec part 2 §2 Campaigns, §3 Campaign, §4
 * Campaign type and Campaign archive, §5 Campaign): the types and their labels, which associations each type may
 * hold, the selection-clearing rules of the form, and the ordered archive steps. Pure.
 */

/** The campaign types the campaign form's type handler accepts (part 2 §5), plus a_b_test made by the send wizard. */
export const CAMPAIGN_TYPES = ['', 'workflow', 'scheduled_email_group', 'template', 'a_b_test'] as const;
export type CampaignType = (typeof CAMPAIGN_TYPES)[number];

/** The types the campaign form offers (part 2 §4: empty, workflow, scheduled_email_group, template). */
export const FORM_CAMPAIGN_TYPES: CampaignType[] = ['', 'workflow', 'scheduled_email_group', 'template'];

/** campaignTypeLabel is a type's label in lists and selects (part 2 §3 Type labels). */
export function campaignTypeLabel(type: string): string {
  switch (type) {
    case 'a_b_test':
      return 'A/B Test';
    case 'scheduled_email_group':
      return 'Scheduled Email Blast / Newsletter';
    case 'workflow':
      return 'Workflow / Drip';
    case 'template':
      return 'Template';
    case '':
      return 'None';
    default:
      return type;
  }
}

/** A campaign's associations: the blasts (scheduled email groups), workflows and templates its reports cover. */
export interface CampaignAssociations {
  type: CampaignType;
  scheduled_email_blast_group_ids: string[];
  workflow_ids: string[];
  template_ids: string[];
}

/**
 * changeCampaignType applies the form's type change (part 2 §4): changing type clears every selection the new type
 * cannot hold — workflow keeps only workflows, scheduled_email_group keeps blasts and templates, template keeps
 * templates, empty keeps nothing.
 */
export function changeCampaignType(c: CampaignAssociations, type: CampaignType): CampaignAssociations {
  if (type === c.type) return c;
  return { type, scheduled_email_blast_group_ids: [], workflow_ids: [], template_ids: [] };
}

/**
 * selectAssociations applies one multi-select change with the clearing rules of part 2 §4: selecting workflows clears
 * templates and blast groups; selecting blasts clears workflows; selecting templates clears workflows.
 */
export function selectAssociations(
  c: CampaignAssociations,
  field: 'workflow_ids' | 'scheduled_email_blast_group_ids' | 'template_ids',
  ids: string[],
): CampaignAssociations {
  const next = { ...c, [field]: [...new Set(ids)] };
  if (!ids.length) return next;
  if (field === 'workflow_ids') return { ...next, template_ids: [], scheduled_email_blast_group_ids: [] };
  return { ...next, workflow_ids: [] };
}

/**
 * campaignProblems lists what is wrong with a campaign's name, type and associations, each message naming its field
 * (the server answers them as a 400; the form shows them under the fields). An association list a type cannot
 * hold is a problem rather than silently dropped.
 */
export function campaignProblems(c: { name?: string | null; type?: string | null } & Partial<CampaignAssociations>): string[] {
  const problems: string[] = [];
  if (!c.name?.trim()) problems.push('name: Required field');
  else if (c.name.trim().length > 200) problems.push('name: at most 200 characters');
  const type = c.type ?? '';
  if (!(CAMPAIGN_TYPES as readonly string[]).includes(type)) {
    problems.push(`type: must be one of empty, workflow, scheduled_email_group, template or a_b_test, not ${JSON.stringify(type)}`);
    return problems;
  }
  const workflows = c.workflow_ids ?? [];
  const blasts = c.scheduled_email_blast_group_ids ?? [];
  const templates = c.template_ids ?? [];
  if (workflows.length && (blasts.length || templates.length)) {
    problems.push('workflow_ids: a campaign of workflows cannot also hold email blasts or templates');
  }
  if (type === '' && (workflows.length || blasts.length || templates.length))
    problems.push('type: choose a type before adding workflows, email blasts or templates');
  if (type === 'workflow' && (blasts.length || templates.length)) problems.push('type: a workflow campaign holds workflows only');
  if (type === 'template' && blasts.length) problems.push('scheduled_email_blast_group_ids: a template campaign holds templates only');
  if ((type === 'scheduled_email_group' || type === 'template' || type === 'a_b_test') && workflows.length) {
    problems.push(`workflow_ids: a ${type} campaign cannot hold workflows`);
  }
  return problems;
}

/** The name-taken message of the wizard and the campaign gateway (part 2 §5 Campaign). */
export const CAMPAIGN_NAME_TAKEN = 'A campaign with this name already exists. Please choose a different name!';

/** The status of one step of a multi-step operation (campaign archive, wizard launch; part 2 §4). */
export type StepStatus = 'waiting' | 'in_progress' | 'succeeded' | 'failed' | 'cancelled';

/** One archive step of a campaign (part 2 §4 Campaign archive). */
export type ArchiveStep =
  | { kind: 'disable_blast'; id: string; label: string }
  | { kind: 'archive_workflow'; id: string; label: string }
  | { kind: 'wait_workflow_deleted'; id: string; label: string }
  | { kind: 'archive_campaign'; id: string; label: string };

/**
 * archiveSteps plans the archive of a campaign (part 2 §4): a campaign of workflows archives each workflow and waits
 * for its JOB_DELETE_WORKFLOW job, one after the other; any other campaign disables each of its email blasts; the
 * base campaign is archived last. `names` labels the steps (blast and workflow names by id).
 */
export function archiveSteps(
  campaign: { id: string; name: string } & Pick<CampaignAssociations, 'workflow_ids' | 'scheduled_email_blast_group_ids'>,
  names: Record<string, string> = {},
): ArchiveStep[] {
  const steps: ArchiveStep[] = [];
  const name = (id: string) => names[id] ?? id;
  if (campaign.workflow_ids.length) {
    for (const id of campaign.workflow_ids) {
      steps.push({ kind: 'archive_workflow', id, label: `Archive workflow '${name(id)}'` });
      steps.push({ kind: 'wait_workflow_deleted', id, label: `Wait for workflow '${name(id)}' to be archived` });
    }
  } else {
    for (const id of campaign.scheduled_email_blast_group_ids) steps.push({ kind: 'disable_blast', id, label: `Disable email blast '${name(id)}'` });
  }
  steps.push({ kind: 'archive_campaign', id: campaign.id, label: `Archive campaign '${campaign.name}'` });
  return steps;
}

/** Archive waits (part 2 §4): poll the job log every 2 s, reading 100 entries, at most 100 times. */
export const ARCHIVE_WAIT = { pollMs: 2000, entries: 100, attempts: 100 } as const;

/** A step's result: done, or a wait that ran out of time (the next step is then cancelled). */
export type StepOutcome = 'done' | 'timed_out';

/** The state of a step list as it runs: each step's status and, for a failed one, its error. */
export interface StepState {
  status: StepStatus;
  error?: string;
}

/**
 * runSteps runs `steps` in order with `run` (part 2 §4): each goes waiting → in_progress → succeeded or failed; a
 * failure marks every later step cancelled and stops; a step whose run answers 'timed_out' is shown failed with a
 * time-out error, and the step after it is cancelled with the rest. `onChange` gets the whole state after every change.
 * Resolves with the final states.
 */
export async function runSteps<S>(
  steps: S[],
  run: (step: S, index: number) => Promise<StepOutcome | void>,
  onChange: (states: StepState[]) => void,
  timeoutMessage = 'timed out waiting; check the notifications tab',
): Promise<StepState[]> {
  const states: StepState[] = steps.map(() => ({ status: 'waiting' }));
  const publish = () => onChange(states.map((s) => ({ ...s })));
  publish();
  for (let i = 0; i < steps.length; i++) {
    states[i] = { status: 'in_progress' };
    publish();
    let error: string | undefined;
    try {
      if ((await run(steps[i], i)) === 'timed_out') error = timeoutMessage;
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    if (error !== undefined) {
      states[i] = { status: 'failed', error };
      for (let j = i + 1; j < steps.length; j++) states[j] = { status: 'cancelled' };
      publish();
      return states;
    }
    states[i] = { status: 'succeeded' };
    publish();
  }
  return states;
}

/**
 * How far an A/B blast's split may stray from its weights: each recipient's template is chosen by a hash
 * of its contact id (pick_template, src/server/core/blasts/sql), so the split is a draw of one binomial: for 1,000 recipients
 * and a 70/30 split its standard deviation is 1.45 points, and 5 points is more than three of them.
 */
export const AB_SPLIT_TOLERANCE = 0.05;
