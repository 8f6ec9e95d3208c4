import { describe, expect, it } from 'vitest';
import { CACHED_REPORTS, cacheClearError, fieldErrors, selectsFor } from './campaignForm.ts';

describe('campaign form rules (spec part 2 §2, §4, §7, §8)', () => {
  it('shows workflows for workflow campaigns, blasts and templates for blast campaigns, templates for template campaigns', () => {
    expect(selectsFor('workflow')).toEqual(['workflow_ids']);
    expect(selectsFor('scheduled_email_group')).toEqual(['scheduled_email_blast_group_ids', 'template_ids']);
    expect(selectsFor('template')).toEqual(['template_ids']);
    expect(selectsFor('')).toEqual([]);
  });

  it('clears the 24-hour cache, then the 31-day cache, and words a failure as the spec does', () => {
    expect(CACHED_REPORTS.map((r) => r.report)).toEqual(['sendslast24hours', 'sendslast31days']);
    expect(cacheClearError('24-hours', 'Unknown networking error')).toBe(
      'unable to clear 24-hours-report cache, Unknown networking error. Please contact support!',
    );
    expect(cacheClearError('31-days', '503')).toBe('unable to clear 31-days-report cache, 503. Please contact support!');
  });

  it('sorts field-named messages to their fields, first message wins, others kept', () => {
    const { fields, other } = fieldErrors([
      'name: A campaign with this name already exists. Please choose a different name!',
      'name: second',
      'campaign.template_ids[0]: must match format "uuid"',
      'scheduled_email_blast_group_ids: no email blast with id x',
      'id: campaign x is archived; create a new campaign instead',
      'something else',
    ]);
    expect(fields).toEqual({
      name: 'A campaign with this name already exists. Please choose a different name!',
      template_ids: 'must match format "uuid"',
      scheduled_email_blast_group_ids: 'no email blast with id x',
    });
    expect(other).toEqual(['id: campaign x is archived; create a new campaign instead', 'something else']);
  });
});
