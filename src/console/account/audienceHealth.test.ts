import { describe, expect, it } from 'vitest';
import { policyBody, policyErrors, switchPolicy, toPolicyForm } from './audienceHealth.ts';

const OFF = { sunset_days: null, sunset_min_emails: null, frequency_cap_emails: null, frequency_cap_days: null };
const SUGGESTED = { sunset_days: 180, sunset_min_emails: 5, frequency_cap_emails: 3, frequency_cap_days: 7 };

describe('audience health form', () => {
  it('starts off, fills the suggested values when switched on, and saves null for a policy off', () => {
    const off = toPolicyForm(OFF);
    expect(off).toMatchObject({ sunsetOn: false, frequencyOn: false });
    expect(policyBody(off).body).toEqual(OFF);
    const on = switchPolicy(switchPolicy(off, 'sunset', true, SUGGESTED), 'frequency', true, SUGGESTED);
    expect(policyBody(on).body).toEqual(SUGGESTED);
    // Typed values stay when switched off and on again; off saves nulls.
    const typed = { ...on, values: { ...on.values, sunset_days: '90' } };
    const again = switchPolicy(switchPolicy(typed, 'sunset', false, SUGGESTED), 'sunset', true, SUGGESTED);
    expect(policyBody(again).body?.sunset_days).toBe(90);
    expect(policyBody(switchPolicy(typed, 'frequency', false, SUGGESTED)).body).toMatchObject({ frequency_cap_emails: null, frequency_cap_days: null });
  });

  it('refuses what is not a whole number under its field, and sorts the server’s lines to their fields', () => {
    const on = switchPolicy(toPolicyForm(OFF), 'sunset', true, SUGGESTED);
    const bad = policyBody({ ...on, values: { ...on.values, sunset_min_emails: 'five' } });
    expect(bad.body).toBeUndefined();
    expect(bad.errors.sunset_min_emails).toBe('Enter a whole number from 1 to 1000');
    const refused = Object.assign(new Error('x'), {
      body: {
        errors: [
          'sunset_days: must be >= 7',
          'frequency_cap_days must be a whole number from 1 to 365, or null for off',
          'frequency_cap_emails must be given with frequency_cap_days (both null turns the policy off)',
          'something else',
        ],
      },
    });
    expect(policyErrors(refused)).toEqual({
      sunset_days: 'Must be a whole number from 7 to 3650',
      frequency_cap_days: 'Must be a whole number from 1 to 365',
      frequency_cap_emails: 'Must be given with frequency_cap_days (both null turns the policy off)',
      form: 'something else',
    });
  });
});
