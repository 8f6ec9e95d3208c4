/**
 * Single sends (spec part 2 §7 test email; POST {event}/emit_send_single_email_event): one email to a few recipients,
 * queued in the outbox like any other send, so the sender delivers, tracks and counts it the same way.
 */
import { erasedAddresses } from '../privacy/erasure.ts';
import { and, eq, isNull } from 'drizzle-orm';
import type { Db, QueryFn } from '../../db/client.ts';
import { senderPersonas, templates } from '../../db/schema.ts';
import { insertOutboxSql } from './outbox.ts';
import { checkEmail, UUID_RE } from '../../../domain/validation.ts';
import { sandboxRejection } from '../../../domain/sandbox.ts';
import { BadRequest, FieldErrors } from '../../errors.ts';
import type { ProjectScope } from '../scope.ts';
import { liveContactsByEmail } from '../contacts/index.ts';
import { DEFAULT_STREAM, streamSettings } from './streams.ts';
import type { components } from '../../../../generated/types/event.gen.ts';

type SendRequest = components['schemas']['EmailSendRequest'];

/**
 * QUEUE_SINGLE_EMAIL: one outbox row per recipient, due now. $1 project, $2 template (or NULL), $3 persona, $4 subject
 * and $5 body (without a template), $6 is_test, $7 the persona's domain (the Message-IDs'), $8 contact ids (NULL for
 * an address that is not a contact) and $9 addresses, in parallel arrays; $10 the stream, $11 its tracking.
 */
const QUEUE_SINGLE_EMAIL = insertOutboxSql(
  {
    project_id: '$1',
    contact_id: 'u.contact_id',
    email: 'u.email',
    template_id: '$2::uuid',
    sender_persona_id: '$3::uuid',
    subject: '$4::text',
    body: '$5::text',
    is_test: '$6::boolean',
    stream: '$10::text',
    tracking: '$11::boolean',
  },
  '$7::text',
  'unnest($8::uuid[], $9::text[]) AS u(contact_id, email)',
);

/**
 * queueSingleEmail validates a send request and queues one outbox row per recipient (to, cc and bcc each get their
 * own copy), due now. The sender persona is from.user_id or the persona whose email is from.email; the content is
 * template_id, or subject + body. In the sandbox every recipient must be allowed. Throws BadRequest naming
 * `mailer_payload.<field>`; nothing is queued then. The stream is `stream`, else broadcast for a marketing template,
 * else transactional; its tracking applies. With `erasureKey` an erased recipient is refused (400, nothing queued).
 * Returns the number of rows queued.
 */
export async function queueSingleEmail(db: Db, query: QueryFn, project: ProjectScope, m: SendRequest, erasureKey?: string): Promise<number> {
  const errs = new FieldErrors();
  const recipients = [...(m.to ?? []), ...(m.cc ?? []), ...(m.bcc ?? [])];
  recipients.forEach((r, i) => errs.add(`mailer_payload.to[${i}].email`, checkEmail(r.email)));
  if (!m.template_id && (!m.subject || !m.body)) errs.add('mailer_payload.template_id', 'missing template');
  if (!m.from?.user_id && !m.from?.email) errs.add('mailer_payload.from', 'missing sender');
  if (!recipients.length) errs.add('mailer_payload.to', 'missing recipient');
  errs.throwIfAny();

  const personas = await db
    .select()
    .from(senderPersonas)
    .where(and(eq(senderPersonas.projectId, project.id), isNull(senderPersonas.archivedAt)));
  const persona = personas.find((p) => (m.from?.user_id ? p.id === m.from.user_id : p.email.toLowerCase() === m.from?.email?.toLowerCase()));
  if (!persona) throw new BadRequest(['mailer_payload.from: missing sender: no such sender persona in this project']);
  let templateType: string | undefined;
  if (m.template_id) {
    if (!UUID_RE.test(m.template_id)) throw new BadRequest(['mailer_payload.template_id: missing template']);
    const [t] = await db
      .select({ id: templates.id, type: templates.type })
      .from(templates)
      .where(and(eq(templates.id, m.template_id), eq(templates.projectId, project.id), isNull(templates.archivedAt)));
    if (!t) throw new BadRequest(['mailer_payload.template_id: missing template: no such template in this project']);
    templateType = t.type;
  }
  const streamName = m.stream ?? (templateType === 'TEMPLATE_MARKETING' ? 'broadcast' : DEFAULT_STREAM);
  const stream = await streamSettings(query, project.id, streamName);
  if (!stream) throw new BadRequest([`mailer_payload.stream: no stream ${streamName} in this project`]);
  if (!project.notInSandbox) {
    const rejected = recipients
      .map((r) =>
        sandboxRejection(
          r.email,
          personas.map((p) => p.email),
        ),
      )
      .filter((x): x is string => !!x);
    if (rejected.length) throw new BadRequest(rejected.map((msg) => `mailer_payload.to: ${msg}`));
  }
  const emails = recipients.map((r) => r.email.trim());
  // An address erased at the person's request is never sent to again, nor stored (core/privacy/erasure.ts).
  const erased = erasureKey ? await erasedAddresses(query, erasureKey, project.id, emails) : [];
  if (erased.length) throw new BadRequest(erased.map((e) => `mailer_payload.to: ${e} was erased at the person's request and is never sent to again`));
  const known = await liveContactsByEmail(db, project.id, emails);
  const contactByEmail = new Map(known.map((c) => [c.email.toLowerCase(), c.id]));
  await query(QUEUE_SINGLE_EMAIL, [
    project.id,
    m.template_id ?? null,
    persona.id,
    m.template_id ? null : (m.subject ?? null),
    m.template_id ? null : (m.body ?? null),
    m.is_test_email ?? false,
    persona.email.split('@')[1],
    emails.map((email) => contactByEmail.get(email.toLowerCase()) ?? null),
    emails,
    stream.name,
    stream.tracking,
  ]);
  return emails.length;
}
