/**
 * Single sends (spec part 2 §7 test email; POST {event}/emit_send_single_email_event): one email to a few recipients,
 * queued in the outbox like any other send, so the sender delivers, tracks and counts it the same way.
 */
import { randomUUID } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { outbox, senderPersonas, templates } from '../../db/schema.ts';
import { checkEmail, UUID_RE } from '../../../domain/validation.ts';
import { sandboxRejection } from '../../../domain/sandbox.ts';
import { BadRequest, FieldErrors } from '../../errors.ts';
import type { ProjectScope } from '../scope.ts';
import { liveContactsByEmail } from '../contacts/index.ts';
import type { components } from '../../../../generated/types/event.gen.ts';

type SendRequest = components['schemas']['EmailSendRequest'];

/**
 * queueSingleEmail validates a send request and queues one outbox row per recipient (to, cc and bcc each get their
 * own copy), due now. The sender persona is from.user_id or the persona whose email is from.email; the content is
 * template_id, or subject + body. In the sandbox every recipient must be allowed. Throws BadRequest naming
 * `mailer_payload.<field>`; nothing is queued then. Returns the number of rows queued.
 */
export async function queueSingleEmail(db: Db, project: ProjectScope, m: SendRequest): Promise<number> {
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
  if (m.template_id) {
    if (!UUID_RE.test(m.template_id)) throw new BadRequest(['mailer_payload.template_id: missing template']);
    const [t] = await db
      .select({ id: templates.id })
      .from(templates)
      .where(and(eq(templates.id, m.template_id), eq(templates.projectId, project.id), isNull(templates.archivedAt)));
    if (!t) throw new BadRequest(['mailer_payload.template_id: missing template: no such template in this project']);
  }
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
  const known = await liveContactsByEmail(db, project.id, emails);
  const contactByEmail = new Map(known.map((c) => [c.email.toLowerCase(), c.id]));
  const domain = persona.email.split('@')[1];
  const now = new Date();
  await db.insert(outbox).values(
    emails.map((email) => ({
      projectId: project.id,
      blastId: null,
      contactId: contactByEmail.get(email.toLowerCase()) ?? null,
      email,
      templateId: m.template_id ?? null,
      senderPersonaId: persona.id,
      subject: m.template_id ? null : (m.subject ?? null),
      body: m.template_id ? null : (m.body ?? null),
      isTest: m.is_test_email ?? false,
      sendAt: now,
      nextAttemptAt: now,
      messageId: `<${randomUUID()}@${domain}>`,
    })),
  );
  return emails.length;
}
