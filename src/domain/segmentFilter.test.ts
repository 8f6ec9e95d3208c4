import { describe, expect, it } from 'vitest';
import {
  aboutCount,
  BLANK_ROW,
  builderErrors,
  countsMachines,
  checkFilters,
  dayOf,
  FILTER_ATTRIBUTES,
  isBlankFilter,
  normalizeRows,
  operatorLabel,
  SEGMENT_EDIT_FILTER_ATTRIBUTES,
  SEGMENT_FILTER_ATTRIBUTES,
  toUserFilters,
  valueTypes,
} from './segmentFilter.ts';

const ID = '0b6c4bde-5d5e-4b9a-9a53-2f3f3f0c1a11';

describe('the filter catalog', () => {
  it('has every count attribute with its per-campaign, per-blast, per-workflow and per-template variants', () => {
    for (const base of ['num_sends', 'num_opens', 'num_clicks']) {
      expect(FILTER_ATTRIBUTES[base]).toEqual({ kind: 'count', keys: [], value: 'number' });
      expect(FILTER_ATTRIBUTES[`${base}_via_campaign`].keys).toEqual(['campaign_id']);
      expect(FILTER_ATTRIBUTES[`${base}_via_scheduled_email_blast`].keys).toEqual(['scheduled_email_blast_id']);
      expect(FILTER_ATTRIBUTES[`${base}_via_workflow`].keys).toEqual(['workflow_id']);
      expect(FILTER_ATTRIBUTES[`${base}_with_template`].keys).toEqual(['template_id']);
    }
  });

  it('splits the Filter Contacts set from the segment-edit set', () => {
    expect(SEGMENT_FILTER_ATTRIBUTES).toContain('num_in_segment');
    expect(SEGMENT_FILTER_ATTRIBUTES).not.toContain('is_in_segment');
    expect(SEGMENT_EDIT_FILTER_ATTRIBUTES).toContain('is_in_segment');
    for (const a of ['num_in_segment', 'contact_state', 'contact_city', 'contact_json', 'date_workflow_started', 'date_workflow_completed']) {
      expect(SEGMENT_EDIT_FILTER_ATTRIBUTES).not.toContain(a);
    }
  });

  it('labels date comparisons before / after and other operators in words', () => {
    expect(operatorLabel('less_than', 'date')).toBe('before');
    expect(operatorLabel('greater_than', 'date')).toBe('after');
    expect(operatorLabel('less_than', 'count')).toBe('less than');
    expect(operatorLabel('is_not_missing', 'text')).toBe('is not missing');
  });

  it('asks for no compared value on the missing tests, keys first otherwise', () => {
    expect(valueTypes(FILTER_ATTRIBUTES.contact_json, 'equals')).toEqual(['string', 'string']);
    expect(valueTypes(FILTER_ATTRIBUTES.contact_json, 'is_missing')).toEqual(['string']);
    expect(valueTypes(FILTER_ATTRIBUTES.date_workflow_started, 'less_than')).toEqual(['workflow_id', 'date']);
    expect(valueTypes(FILTER_ATTRIBUTES.is_in_segment, undefined)).toEqual(['segment_id']);
  });
});

describe('dayOf', () => {
  it('truncates ISO timestamps to their UTC day', () => {
    expect(dayOf('2026-03-01')).toBe('2026-03-01');
    expect(dayOf('2026-03-01T23:30:00+00:00')).toBe('2026-03-01');
    expect(dayOf('2026-03-01T23:30:00-02:00')).toBe('2026-03-02');
    expect(dayOf('2026-03-01T00:10:00.000Z')).toBe('2026-03-01');
  });
  it('refuses what is not a date', () => {
    expect(dayOf('yesterday')).toBeUndefined();
    expect(dayOf('2026-13-45')).toBeUndefined();
    expect(dayOf('')).toBeUndefined();
    expect(dayOf(null)).toBeUndefined();
  });
});

describe('checkFilters', () => {
  it('needs at least one filter', () => {
    expect(checkFilters([])).toEqual({ errors: ['you must provide at least 1 filter'] });
  });

  it('converts values to their types', () => {
    const out = checkFilters([
      { attribute: 'num_opens_with_template', operator: 'greater_than', values: [ID.toUpperCase(), '3'] },
      { attribute: 'date_added', operator: 'less_than', values: ['2026-03-01T23:30:00Z'] },
      { attribute: 'contact_email', operator: 'is_missing', values: [] },
    ]);
    expect(out).toEqual({
      filters: [
        { attribute: 'num_opens_with_template', spec: FILTER_ATTRIBUTES.num_opens_with_template, operator: 'greater_than', values: [ID, 3] },
        { attribute: 'date_added', spec: FILTER_ATTRIBUTES.date_added, operator: 'less_than', values: ['2026-03-01'] },
        { attribute: 'contact_email', spec: FILTER_ATTRIBUTES.contact_email, operator: 'is_missing', values: [] },
      ],
    });
  });

  it('names each bad filter by number', () => {
    const out = checkFilters([
      { attribute: 'contact_phone', operator: 'equals', values: ['1'] },
      { attribute: 'num_sends', operator: 'contains', values: ['1'] },
      { attribute: 'num_sends', operator: 'equals', values: [1.5] },
      { attribute: 'num_sends', operator: 'equals', values: [-1] },
      { attribute: 'num_sends_via_campaign', operator: 'equals', values: ['not-an-id', 1] },
      { attribute: 'contact_email', operator: 'equals', values: ['  '] },
      { attribute: 'contact_email', values: ['a'] },
      { attribute: 'contact_email', operator: 'is_missing', values: ['extra'] },
    ]);
    expect(out).toEqual({
      errors: [
        'filter 1: unknown attribute "contact_phone"',
        'filter 2: the operator "contains" does not apply to num_sends (use equals, not_equals, less_than, greater_than)',
        'filter 3 is not fully filled out',
        'filter 4 is not fully filled out',
        'filter 5 is not fully filled out',
        'filter 6 is not fully filled out',
        'filter 7 is not fully filled out',
        'filter 8 is not fully filled out',
      ],
    });
  });

  it('keeps is_in_segment to the segment-edit set, which takes no operator', () => {
    expect(checkFilters([{ attribute: 'is_in_segment', values: [ID] }])).toEqual({ errors: ['filter 1: unknown attribute "is_in_segment"'] });
    expect(checkFilters([{ attribute: 'is_in_segment', values: [ID] }], SEGMENT_EDIT_FILTER_ATTRIBUTES)).toEqual({
      filters: [{ attribute: 'is_in_segment', spec: FILTER_ATTRIBUTES.is_in_segment, operator: undefined, values: [ID] }],
    });
  });
});

describe('isBlankFilter', () => {
  it('is true only for a row with nothing chosen', () => {
    expect(isBlankFilter({ attribute: '', values: [] })).toBe(true);
    expect(isBlankFilter({ attribute: '', operator: null, values: [null, ''] })).toBe(true);
    expect(isBlankFilter({ attribute: 'contact_email', values: [] })).toBe(false);
    expect(isBlankFilter({ attribute: '', values: [0] })).toBe(false);
  });
});

describe('the filter builder', () => {
  it('strips blank rows and keeps one blank trailing row', () => {
    const a = { attribute: 'contact_email', operator: 'contains', values: ['ann'] };
    expect(normalizeRows([])).toEqual([BLANK_ROW]);
    expect(normalizeRows([a])).toEqual([a, BLANK_ROW]);
    expect(normalizeRows([BLANK_ROW, a, { attribute: '', operator: '', values: [''] }, BLANK_ROW])).toEqual([a, BLANK_ROW]);
  });

  it('sends numbers as numbers, dates cut to their UTC day, and segment membership as a count above 0', () => {
    expect(
      toUserFilters([
        { attribute: 'num_opens_with_template', operator: 'greater_than', values: [ID, '2'] },
        { attribute: 'date_added', operator: 'less_than', values: ['2026-03-01T23:30:00-02:00'] },
        { attribute: 'is_in_segment', operator: '', values: [ID] },
        { attribute: 'contact_email', operator: 'is_missing', values: ['left over'] },
        BLANK_ROW,
      ]),
    ).toEqual([
      { attribute: 'num_opens_with_template', operator: 'greater_than', values: [ID, 2] },
      { attribute: 'date_added', operator: 'less_than', values: ['2026-03-02'] },
      { attribute: 'num_in_segment', operator: 'greater_than', values: [ID, 0] },
      { attribute: 'contact_email', operator: 'is_missing', values: [] },
    ]);
  });

  it('reports what the server would refuse, numbered as sent', () => {
    expect(builderErrors([BLANK_ROW])).toEqual(['you must provide at least 1 filter']);
    expect(
      builderErrors([
        { attribute: 'contact_email', operator: 'contains', values: ['a'] },
        { attribute: 'num_sends', operator: '', values: ['1'] },
      ]),
    ).toEqual(['filter 2 is not fully filled out']);
    expect(builderErrors([{ attribute: 'num_clicks', operator: 'equals', values: ['-1'] }])).toEqual(['filter 1 is not fully filled out']);
    expect(builderErrors([{ attribute: 'is_in_segment', operator: '', values: [ID] }], SEGMENT_EDIT_FILTER_ATTRIBUTES)).toEqual([]);
    expect(builderErrors([{ attribute: 'contact_email', operator: 'equals', values: ['a@b.co'] }, BLANK_ROW])).toEqual([]);
  });
});

describe('include_machine in the builder', () => {
  it('is offered on opens and clicks rows only and sent as include_machine: true', () => {
    expect(['num_opens', 'num_clicks_via_campaign', 'num_opens_with_template'].every(countsMachines)).toBe(true);
    expect(['num_sends', 'num_in_segment', 'contact_email'].some(countsMachines)).toBe(false);
    expect(
      toUserFilters([
        { attribute: 'num_opens', operator: 'greater_than', values: ['0'], includeMachine: true },
        { attribute: 'num_sends', operator: 'greater_than', values: ['0'], includeMachine: true },
        { attribute: 'num_clicks', operator: 'equals', values: ['0'] },
      ]),
    ).toEqual([
      { attribute: 'num_opens', operator: 'greater_than', values: [0], include_machine: true },
      { attribute: 'num_sends', operator: 'greater_than', values: [0] },
      { attribute: 'num_clicks', operator: 'equals', values: [0] },
    ]);
  });
});

describe('aboutCount', () => {
  it('words an estimate with three significant figures', () => {
    expect(aboutCount(296_988)).toBe('297,000');
    expect(aboutCount(1_234_567)).toBe('1,230,000');
    expect(aboutCount(35_294)).toBe('35,300');
    expect(aboutCount(999)).toBe('999');
    expect(aboutCount(1000)).toBe('1,000');
  });
});
