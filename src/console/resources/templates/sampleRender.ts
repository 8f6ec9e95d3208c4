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

/** renderSample fills `{{path}}` variables with sample values; a missing value renders blank (spec part 2 §3). */
export function renderSample(html: string): string {
  return html.replace(/\{\{\{?\s*([\w.]+)\s*\}?\}\}/g, (_, path: string) => {
    let value: unknown = SAMPLE_CONTEXT;
    for (const part of path.split('.')) value = (value as Record<string, unknown> | undefined)?.[part];
    return value === undefined || value === null || typeof value === 'object' ? '' : String(value);
  });
}
