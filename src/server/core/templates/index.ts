/** Templates (spec part 2 §3 Template, §5 Template, §7 Templates): list, save (create/update by id), archive. */
import { and, count, eq, ilike, inArray, isNull, sql } from 'drizzle-orm';
import Handlebars from 'handlebars';
import type { Db } from '../../db/client.ts';
import { templates, topics } from '../../db/schema.ts';
import { checkRequired, checkTemplateContent } from '../../../domain/validation.ts';
import { FieldErrors } from '../../errors.ts';
import { isoRequired, likePattern, orderBy, uuidList } from '../listing.ts';
import type { components, operations } from '../../../../generated/types/template.gen.ts';

export type TemplateOut = components['schemas']['Template'];
type TemplateIn = components['schemas']['TemplateInput'];
type ListQuery = NonNullable<operations['listTemplates']['parameters']['query']>;
type Row = typeof templates.$inferSelect;

/** toTemplate maps a row to the API's Template. */
export function toTemplate(r: Row): TemplateOut {
  return {
    id: r.id,
    name: r.name,
    subject: r.subject,
    type: r.type as TemplateOut['type'],
    enabled: r.enabled,
    html_body: r.htmlBody,
    plain_text_body: r.plainTextBody,
    channel_id: r.channelId,
    topic_id: r.topicId,
    json: r.json ?? null,
    version: r.version,
    created_at: isoRequired(r.createdAt),
    updated_at: isoRequired(r.updatedAt),
  };
}

const SORTABLE = { name: templates.name, subject: templates.subject, created_at: templates.createdAt, updated_at: templates.updatedAt };

function where(projectId: string, ids: string[], search?: string) {
  return and(
    eq(templates.projectId, projectId),
    isNull(templates.archivedAt),
    ids.length ? inArray(templates.id, ids) : undefined,
    search?.trim() ? ilike(templates.name, likePattern(search.trim())) : undefined,
  );
}

/** listTemplates returns one page of live templates (default newest first). */
export async function listTemplates(db: Db, projectId: string, q: ListQuery): Promise<TemplateOut[]> {
  const rows = await db
    .select()
    .from(templates)
    .where(where(projectId, uuidList(q.ids, 'ids'), q.search_value))
    .orderBy(...orderBy(q.sort_columns, SORTABLE, 'created_at DESC'), templates.id)
    .limit(q.limit ?? 10)
    .offset(q.offset ?? 0);
  return rows.map(toTemplate);
}

/** countTemplates counts live templates (whose name contains `search`, when given). */
export async function countTemplates(db: Db, projectId: string, ids?: string, search?: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(templates)
    .where(where(projectId, uuidList(ids, 'ids'), search));
  return row.n;
}

/** handlebarsError returns the parse error of a template text, or undefined when it compiles. */
function handlebarsError(text: string | null | undefined): string | undefined {
  if (!text) return undefined;
  try {
    Handlebars.precompile(text);
    return undefined;
  } catch (err) {
    return `invalid template variables: ${(err as Error).message.split('\n')[0]}`;
  }
}

/**
 * saveTemplates validates every template (name, subject, type required; content and unsubscribe-link rules of spec
 * part 2 §5; variables must parse), then creates or updates (by id, bumping version) in one transaction.
 * Throws BadRequest naming `templates[i].field`.
 */
export async function saveTemplates(db: Db, projectId: string, input: TemplateIn[]): Promise<TemplateOut[]> {
  const errs = new FieldErrors();
  input.forEach((t, i) => {
    errs.add(`templates[${i}].name`, checkRequired(t.name));
    errs.add(`templates[${i}].subject`, checkRequired(t.subject) ?? handlebarsError(t.subject));
    errs.add(`templates[${i}].type`, checkRequired(t.type));
    errs.add(`templates[${i}].html_body`, checkTemplateContent(t.html_body, t.type) ?? handlebarsError(t.html_body));
    errs.add(`templates[${i}].plain_text_body`, handlebarsError(t.plain_text_body));
  });
  const topicIds = [...new Set(input.map((t) => t.topic_id).filter((id): id is string => !!id))];
  const liveTopics = new Set(
    topicIds.length
      ? (
          await db
            .select({ id: topics.id })
            .from(topics)
            .where(and(eq(topics.projectId, projectId), isNull(topics.archivedAt), inArray(topics.id, topicIds)))
        ).map((r) => r.id)
      : [],
  );
  input.forEach((t, i) =>
    errs.add(`templates[${i}].topic_id`, t.topic_id && !liveTopics.has(t.topic_id) ? `no topic ${t.topic_id} in this project` : undefined),
  );
  errs.throwIfAny();
  return db.transaction(async (tx) => {
    const ids = input.map((t) => t.id).filter((id): id is string => !!id);
    const existing = new Set(ids.length ? (await tx.select({ id: templates.id }).from(templates).where(where(projectId, ids))).map((r) => r.id) : []);
    const out: TemplateOut[] = [];
    for (const [i, t] of input.entries()) {
      const values = {
        name: t.name.trim(),
        subject: t.subject,
        type: t.type,
        enabled: t.enabled ?? true,
        htmlBody: t.html_body,
        plainTextBody: t.plain_text_body ?? null,
        channelId: t.channel_id ?? null,
        json: t.json ?? null,
        ...(t.topic_id !== undefined ? { topicId: t.topic_id } : {}),
      };
      if (t.id && existing.has(t.id)) {
        const [row] = await tx
          .update(templates)
          .set({ ...values, version: sql`${templates.version} + 1`, updatedAt: new Date() })
          .where(and(eq(templates.id, t.id), eq(templates.projectId, projectId)))
          .returning();
        out.push(toTemplate(row));
      } else {
        if (t.id) {
          const [taken] = await tx.select({ id: templates.id }).from(templates).where(eq(templates.id, t.id));
          if (taken) {
            const e = new FieldErrors();
            e.add(`templates[${i}].id`, 'id is already in use');
            e.throwIfAny();
          }
        }
        const [row] = await tx
          .insert(templates)
          .values({ ...values, projectId, ...(t.id ? { id: t.id } : {}) })
          .returning();
        out.push(toTemplate(row));
      }
    }
    return out;
  });
}

/** archiveTemplates archives live templates by id; unknown ids are reported in errors, the rest archived. */
export async function archiveTemplates(db: Db, projectId: string, idList: string): Promise<{ ids: string[]; errors: string[] }> {
  const ids = uuidList(idList, 'ids');
  const rows = ids.length ? await db.update(templates).set({ archivedAt: new Date() }).where(where(projectId, ids)).returning({ id: templates.id }) : [];
  const done = new Set(rows.map((r) => r.id));
  return { ids: [...done], errors: ids.filter((id) => !done.has(id)).map((id) => `ids: no template ${id} in this project`) };
}
