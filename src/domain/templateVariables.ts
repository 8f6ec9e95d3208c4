/**
 * Template variables (spec part 2 §3 Template variables): {{user.<field>}} (not id, created_at), {{user.json.<key>}},
 * {{sender_persona.<field>}} (not id, created_at, updated_at, version), {{unsubscribe_link}}. A missing value renders
 * blank. This module builds the render context; the server compiles templates with Handlebars.
 */

/** The contact fields a template may use. */
export const USER_VARIABLE_FIELDS = ['email', 'first_name', 'last_name', 'timezone', 'date_of_birth', 'unsubscribed_at', 'updated_at', 'version'] as const;
/** The sender persona fields a template may use. */
export const SENDER_PERSONA_VARIABLE_FIELDS = ['email', 'first_name', 'last_name'] as const;

/** The render input of one recipient. Dates are ISO strings in UTC. */
export interface RenderContext {
  user: Record<string, unknown> & { json: Record<string, unknown> };
  sender_persona: Record<string, unknown> & { json: Record<string, unknown> };
  unsubscribe_link: string;
}

function pick(source: Record<string, unknown> | null | undefined, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = source?.[f];
    out[f] = v instanceof Date ? v.toISOString() : v ?? '';
  }
  return out;
}

/**
 * buildRenderContext returns the variables for one recipient. Fields the spec excludes (ids, created_at, …) are left
 * out so they render blank; json keys are copied as they are.
 */
export function buildRenderContext(
  user: Record<string, unknown> | null | undefined,
  senderPersona: Record<string, unknown> | null | undefined,
  unsubscribeLink: string,
): RenderContext {
  return {
    user: { ...pick(user, USER_VARIABLE_FIELDS), json: { ...((user?.json as Record<string, unknown>) ?? {}) } },
    sender_persona: {
      ...pick(senderPersona, SENDER_PERSONA_VARIABLE_FIELDS),
      json: { ...((senderPersona?.json as Record<string, unknown>) ?? {}) },
    },
    unsubscribe_link: unsubscribeLink,
  };
}
