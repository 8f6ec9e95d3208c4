/**
 * Template variables (spec part 2 §3 Template variables): {{user.<field>}} (not id, created_at), {{user.json.<key>}},
 * {{sender_persona.<field>}} (not id, created_at, updated_at, version), {{unsubscribe_link}}, and for emails of an
 * event-triggered workflow {{event.<field>}} (not id, created_at, user_id) and {{event.json.<key>}}. A missing value
 * renders blank. This module builds the render context; the server compiles templates with Handlebars.
 */

/** The contact fields a template may use. */
export const USER_VARIABLE_FIELDS = ['email', 'first_name', 'last_name', 'timezone', 'date_of_birth', 'unsubscribed_at', 'updated_at', 'version'] as const;
/** The sender persona fields a template may use. */
export const SENDER_PERSONA_VARIABLE_FIELDS = ['email', 'first_name', 'last_name'] as const;
/** The event fields an event-triggered workflow's email may use (part 2 §3: not id, created_at, user_id). */
export const EVENT_VARIABLE_FIELDS = ['name', 'email', 'emitted_at', 'metric1', 'metric2', 'metric3'] as const;

/** The render input of one recipient. Dates are ISO strings in UTC. */
export interface RenderContext {
  user: Record<string, unknown> & { json: Record<string, unknown> };
  sender_persona: Record<string, unknown> & { json: Record<string, unknown> };
  unsubscribe_link: string;
  /** The triggering event of an event-triggered workflow's email; absent otherwise (its variables render blank). */
  event?: Record<string, unknown> & { json: Record<string, unknown> };
}

function pick(source: Record<string, unknown> | null | undefined, fields: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = source?.[f];
    out[f] = v instanceof Date ? v.toISOString() : (v ?? '');
  }
  return out;
}

/**
 * buildRenderContext returns the variables for one recipient (and, for an event-triggered workflow's email, its
 * event). Fields the spec excludes (ids, created_at, …) are left out so they render blank; json keys are copied as
 * they are.
 */
export function buildRenderContext(
  user: Record<string, unknown> | null | undefined,
  senderPersona: Record<string, unknown> | null | undefined,
  unsubscribeLink: string,
  event?: Record<string, unknown> | null,
): RenderContext {
  return {
    ...(event ? { event: { ...pick(event, EVENT_VARIABLE_FIELDS), json: { ...((event.json as Record<string, unknown>) ?? {}) } } } : {}),
    user: { ...pick(user, USER_VARIABLE_FIELDS), json: { ...((user?.json as Record<string, unknown>) ?? {}) } },
    sender_persona: {
      ...pick(senderPersona, SENDER_PERSONA_VARIABLE_FIELDS),
      json: { ...((senderPersona?.json as Record<string, unknown>) ?? {}) },
    },
    unsubscribe_link: unsubscribeLink,
  };
}
