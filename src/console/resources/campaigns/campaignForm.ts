/**
 * Pure rules of the campaign form at /campaigns/new and /campaigns/edit/{id} (spec part 2 §2 Campaigns, §4 Campaign
 * type, §5 Campaign, §7 Campaigns, §8 Campaign errors): which multi-selects a type shows, the report caches cleared
 * before a save and the message when that fails, and the 400's field-named messages sorted to their fields.
 */
import type { CampaignType } from '../../../domain/campaigns';

/** The form's fields a server message can name. */
export const CAMPAIGN_FIELDS = ['name', 'type', 'workflow_ids', 'scheduled_email_blast_group_ids', 'template_ids'] as const;
/** A form field a server message can name. */
export type CampaignField = (typeof CAMPAIGN_FIELDS)[number];
/** A multi-select of the form: workflows, email blasts or templates. */
export type AssociationField = Exclude<CampaignField, 'name' | 'type'>;

/**
 * selectsFor lists the multi-selects a type shows (part 2 §2, §4): workflow → workflows; scheduled_email_group →
 * email blasts and templates; template (and the wizard's a_b_test) → templates; none before a type is chosen.
 */
export function selectsFor(type: CampaignType | string): AssociationField[] {
  switch (type) {
    case 'workflow':
      return ['workflow_ids'];
    case 'scheduled_email_group':
      return ['scheduled_email_blast_group_ids', 'template_ids'];
    case 'template':
    case 'a_b_test':
      return ['template_ids'];
    default:
      return [];
  }
}

/** The two sends reports whose cache a campaign save clears first, in order, with their names in the error text. */
export const CACHED_REPORTS = [
  { report: 'sendslast24hours', name: '24-hours' },
  { report: 'sendslast31days', name: '31-days' },
] as const;

/** cacheClearError is the save-stopping message of a failed cache clear (part 1 §8, part 2 §8). */
export function cacheClearError(name: (typeof CACHED_REPORTS)[number]['name'], reason: string): string {
  return `unable to clear ${name}-report cache, ${reason}. Please contact support!`;
}

/**
 * fieldErrors sorts field-named messages ('name: …', 'campaign.template_ids[0]: …') to their fields, keeping the
 * first message of each field without its prefix; messages that name no form field are returned in `other`.
 */
export function fieldErrors(messages: string[]): { fields: Partial<Record<CampaignField, string>>; other: string[] } {
  const fields: Partial<Record<CampaignField, string>> = {};
  const other: string[] = [];
  for (const message of messages) {
    const m = /^(?:campaign\.)?([a-z_]+)(?:\[\d+\])?: (.*)$/s.exec(message.trim());
    const field = m?.[1] as CampaignField | undefined;
    if (m && field && (CAMPAIGN_FIELDS as readonly string[]).includes(field)) {
      fields[field] ??= m[2];
    } else {
      other.push(message);
    }
  }
  return { fields, other };
}
