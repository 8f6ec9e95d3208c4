/**
 * The JSON schema a generated resource's form renders and validates (STYLE.md 1): the spec's input schema without
 * its title, its description and its fields' descriptions (rjsf would print them; they are written for API users). Pure, so that codegen (scripts/codegen.ts) compiles
 * the form's validator from exactly this schema at build time: the console validates with that precompiled code and
 * never evaluates a string, as its Content-Security-Policy (no 'unsafe-eval') requires.
 */
import type { RJSFSchema } from '@rjsf/utils';

/** formSchema derives the form's schema from a resource's `form.jsonSchema` (a new object; the input is not changed). */
export function formSchema(jsonSchema: Record<string, unknown>): RJSFSchema {
  const {
    title: _title,
    description: _description,
    properties = {},
    ...rest
  } = jsonSchema as {
    title?: string;
    description?: string;
    properties?: Record<string, object>;
  };
  const shown = Object.fromEntries(
    Object.entries(properties).map(([key, prop]) => {
      const { description: _d, ...visible } = prop as { description?: string };
      return [key, visible];
    }),
  );
  return { ...rest, properties: shown } as RJSFSchema;
}

/**
 * shownFields hides (`ui:widget: hidden`) each field whose `ui:options.showWhen` — other fields' values, e.g.
 * `{ type: TEMPLATE_MARKETING }` — does not match `values` (a new object; the input is not changed).
 */
export function shownFields(uiSchema: Record<string, unknown> | undefined, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...uiSchema };
  for (const [key, entry] of Object.entries(out)) {
    const when = (entry as { 'ui:options'?: { showWhen?: Record<string, unknown> } } | null)?.['ui:options']?.showWhen;
    if (when && !Object.entries(when).every(([field, value]) => values[field] === value)) out[key] = { ...(entry as object), 'ui:widget': 'hidden' };
  }
  return out;
}
