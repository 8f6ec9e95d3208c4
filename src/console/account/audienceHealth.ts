/**
 * The Audience health screen's pure part (openapi/companyauthwrapper.yaml getAudiencePolicies, setAudiencePolicies):
 * the sunset policy and the frequency cap as edited (a switch and two numbers each, kept as typed), the body saved from
 * them, and the server's 400 lines sorted to the fields they name.
 */
import type { OperationResponse } from '../data/apiTypes';

/** The four settings as the API gives and takes them (a policy is off while its two numbers are null). */
export type AudiencePolicies = OperationResponse<'getAudiencePolicies'>['data'];
/** One of the four settings. */
export type PolicyField = keyof AudiencePolicies;

/** The settings of each policy, in the order shown, with their labels and the range the server accepts (inclusive). */
export const POLICY_FIELDS: Record<'sunset' | 'frequency', Array<{ field: PolicyField; label: string; min: number; max: number; unit: string }>> = {
  sunset: [
    { field: 'sunset_days', label: 'Days without an open or click', min: 7, max: 3650, unit: 'days' },
    { field: 'sunset_min_emails', label: 'Emails sent in that time, at least', min: 1, max: 1000, unit: 'emails' },
  ],
  frequency: [
    { field: 'frequency_cap_emails', label: 'Marketing emails per contact, at most', min: 1, max: 1000, unit: 'emails' },
    { field: 'frequency_cap_days', label: 'In this many days', min: 1, max: 365, unit: 'days' },
  ],
};

/** The policies as edited: each switched on or off, its numbers as typed. */
export interface PolicyForm {
  sunsetOn: boolean;
  frequencyOn: boolean;
  values: Record<PolicyField, string>;
}

/** An error per field, and `form` for a line that names none. */
export type PolicyErrors = Partial<Record<PolicyField | 'form', string>>;

const text = (n: number | null) => (n === null ? '' : String(n));

/** toPolicyForm is the form of saved settings `p`: a policy is on when both its numbers are set. */
export function toPolicyForm(p: AudiencePolicies): PolicyForm {
  return {
    sunsetOn: p.sunset_days !== null && p.sunset_min_emails !== null,
    frequencyOn: p.frequency_cap_emails !== null && p.frequency_cap_days !== null,
    values: {
      sunset_days: text(p.sunset_days),
      sunset_min_emails: text(p.sunset_min_emails),
      frequency_cap_emails: text(p.frequency_cap_emails),
      frequency_cap_days: text(p.frequency_cap_days),
    },
  };
}

/**
 * switchPolicy turns policy `which` on or off; switched on, each of its numbers left empty takes the `suggested` value
 * (180 days after 5 emails; 3 emails per 7 days).
 */
export function switchPolicy(f: PolicyForm, which: 'sunset' | 'frequency', on: boolean, suggested: AudiencePolicies): PolicyForm {
  const values = { ...f.values };
  if (on) for (const { field } of POLICY_FIELDS[which]) if (!values[field].trim()) values[field] = text(suggested[field]);
  return which === 'sunset' ? { ...f, sunsetOn: on, values } : { ...f, frequencyOn: on, values };
}

/**
 * policyBody is what Save sends: null for each number of a policy switched off, else the whole number typed. A number
 * that is not a whole number is an error under its field (the ranges are the server's to check: its 400 names the
 * field); `body` is undefined while there is one.
 */
export function policyBody(f: PolicyForm): { body?: AudiencePolicies; errors: PolicyErrors } {
  const body = { sunset_days: null, sunset_min_emails: null, frequency_cap_emails: null, frequency_cap_days: null } as AudiencePolicies;
  const errors: PolicyErrors = {};
  for (const which of ['sunset', 'frequency'] as const) {
    if (!(which === 'sunset' ? f.sunsetOn : f.frequencyOn)) continue;
    for (const { field, min, max } of POLICY_FIELDS[which]) {
      const typed = f.values[field].trim();
      if (!/^\d+$/.test(typed)) errors[field] = `Enter a whole number from ${min} to ${max}`;
      else body[field] = Number(typed);
    }
  }
  return Object.keys(errors).length ? { errors } : { body, errors };
}

/**
 * policyErrors sorts the lines of a refusal (`{ errors: ["sunset_days: must be >= 7", "sunset_min_emails must be given
 * with sunset_days …"] }`) to the field each names, worded for the screen: a number out of range or not whole as the
 * field's range, other words as the server's without the field's name. A line that names no field, or an error without
 * such a body, goes under `form`.
 */
export function policyErrors(error: unknown): PolicyErrors {
  const listed = (error as { body?: { errors?: unknown } }).body?.errors;
  const lines = Array.isArray(listed) ? listed.map(String) : [(error as Error).message];
  const settings = [...POLICY_FIELDS.sunset, ...POLICY_FIELDS.frequency];
  const out: PolicyErrors = {};
  for (const line of lines) {
    // The field the line is about is the first it names ("frequency_cap_emails must be given with frequency_cap_days").
    const setting = settings.filter((x) => new RegExp(`\\b${x.field}\\b`).test(line)).sort((a, b) => line.indexOf(a.field) - line.indexOf(b.field))[0];
    const key = setting?.field ?? 'form';
    let shown = line;
    if (setting) {
      const words = line.slice(line.indexOf(setting.field) + setting.field.length).replace(/^:?\s*/, '');
      // A number out of range or not whole, in the schema's words (">= 7") or the policy's: said with the field's range.
      shown = /^must be (>|<|an? (whole number|integer))/.test(words)
        ? `Must be a whole number from ${setting.min} to ${setting.max}`
        : words.charAt(0).toUpperCase() + words.slice(1);
    }
    out[key] = out[key] ? `${out[key]}; ${shown}` : shown;
  }
  return out;
}
