/**
 * The console's sample rendering of a template (spec part 2 §3 Template variables): variables filled with a sample
 * contact (Jane Doe) and sender persona, for the editor's 'Render variables' preview and the send wizard's review.
 */
import { buildRenderContext } from '../../../domain/templateVariables';

const SAMPLE_CONTEXT = buildRenderContext(
  { email: 'jane.doe@example.com', first_name: 'Jane', last_name: 'Doe', timezone: 'America/New_York', json: { plan: 'Pro' } },
  { email: 'news@example.com', first_name: 'Sam', last_name: 'Sender' },
  'https://example.com/unsubscribe',
);

/**
 * renderSample fills `{{path}}` variables with sample values; a missing value renders blank (spec part 2 §3). With
 * `persona` (a sender persona record: email, first_name, last_name, json) its values replace the sample persona's, so
 * a preview signs off as the persona the email will be sent from.
 */
export function renderSample(html: string, persona?: Record<string, unknown>): string {
  const context = persona ? { ...SAMPLE_CONTEXT, sender_persona: buildRenderContext(null, persona, '').sender_persona } : SAMPLE_CONTEXT;
  return html.replace(/\{\{\{?\s*([\w.]+)\s*\}?\}\}/g, (_, path: string) => {
    let value: unknown = context;
    for (const part of path.split('.')) value = (value as Record<string, unknown> | undefined)?.[part];
    return value === undefined || value === null || typeof value === 'object' ? '' : String(value);
  });
}
