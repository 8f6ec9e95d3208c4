/**
 * Messages handed in by applications (openapi/email.yaml; docs/architecture.md "Transactional sending"): the one
 * definition of what the sending API (`POST /api/email`, `/api/email/batch`) and SMTP submission
 * (gateways/submission/server.ts) accept and queue. A message is checked whole — its From must be a verified sender
 * persona or on a verified sending domain of the project, its recipients at most 50 and valid, the sandbox rule, its
 * content, header fields that cannot inject others — and then, in one transaction, stored once in `submissions` with
 * one outbox row per recipient (To, Cc and Bcc alike; the header lists never name a Bcc). A recipient the send-time
 * rule already refuses (core/audience/exclusion.ts, read through ACCEPT_EXCLUSIONS) gets a row marked `suppressed`,
 * never sent. Everything after is the pipeline every email takes (the sender renders the stored content: compose.ts).
 */
import addressparser from 'nodemailer/lib/addressparser/index.js';
import type { Database, QueryFn } from '../../db/client.ts';
import { checkEmail } from '../../../domain/validation.ts';
import { sandboxRejection } from '../../../domain/sandbox.ts';
import { exclusionSql } from '../audience/exclusion.ts';
import { sendRefusal } from './eligibility.ts';
import { insertOutboxSql } from './outbox.ts';
import { DEFAULT_STREAM, streamSettings } from './streams.ts';
import type { ProjectScope } from '../scope.ts';

/** An address with its display name. */
export interface Mailbox {
  address: string;
  name?: string;
}

/** An attachment as stored: base64 content. */
export interface Attachment {
  filename: string;
  content: string;
  contentType?: string;
  /** Content-ID, for an inline image the HTML names as cid:… */
  cid?: string;
}

/** What every recipient's copy is composed from (submissions.content). */
export interface SubmissionContent {
  from: Mailbox;
  to: Mailbox[];
  cc: Mailbox[];
  replyTo: Mailbox[];
  subject?: string;
  html?: string;
  text?: string;
  /** Extra header fields, in order (In-Reply-To, References, X-…). */
  headers: Array<[string, string]>;
  attachments: Attachment[];
  /** Values for a template's variables (top-level names). */
  variables?: Record<string, unknown>;
}

/** A message to queue: its content, recipients and how it is filed. */
export interface SubmissionInput extends SubmissionContent {
  bcc: Mailbox[];
  /** The envelope's recipients (SMTP's RCPT TO); default To, Cc and Bcc. */
  recipients?: string[];
  templateId?: string;
  tags: string[];
  metadata: Record<string, string>;
  stream?: string;
}

/** One recipient's copy: its Message-ID and whether it is on its way. */
export interface QueuedRecipient {
  email: string;
  message_id: string;
  status: 'queued' | 'suppressed';
  reason?: string;
}

/** The answer to a queued message. */
export interface SubmissionResult {
  id: string;
  message_id: string;
  stream: string;
  recipients: QueuedRecipient[];
}

/** SubmissionRefused: the message was refused whole (nothing queued); `errors` name fields as `field: message`. */
export class SubmissionRefused extends Error {
  constructor(
    readonly errors: string[],
    /** What kind of refusal, for SMTP's reply codes: the sender, a recipient, the content or the size. */
    readonly kind: 'sender' | 'recipient' | 'content' = 'content',
  ) {
    super(errors.join('; '));
  }
}

/** At most this many recipients per message (To, Cc and Bcc together). */
export const MAX_RECIPIENTS = 50;

/** Header fields the service writes itself: a message may not set them. */
const RESERVED_HEADERS = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'date',
  'message-id',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'content-disposition',
  'dkim-signature',
  'return-path',
  'sender',
  'reply-to',
  'list-unsubscribe',
  'list-unsubscribe-post',
]);

const HEADER_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,75}$/;

/**
 * parseMailboxes reads `Ann <ann@example.com>, bob@example.com` (or a list of such strings) into mailboxes with
 * nodemailer's RFC 5322 address parser; group syntax is flattened. An empty value gives [].
 */
export function parseMailboxes(value: string | string[] | undefined): Mailbox[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  const out: Mailbox[] = [];
  const walk = (items: ReturnType<typeof addressparser>) => {
    for (const a of items) {
      if ('group' in a && a.group) walk(a.group);
      else if ('address' in a && a.address) out.push({ address: a.address, ...(a.name ? { name: a.name } : {}) });
      // Something that is no address at all (`not-an-address`) is kept as the address, so its check names it.
      else out.push({ address: a.name ?? '' });
    }
  };
  for (const v of list) walk(addressparser(v));
  return out;
}

/**
 * checkSubmission returns the errors of a message before anything is looked up (`field: message`, in the API's field
 * names), and the recipients it goes to (deduplicated ignoring case, in order): a From, 1 to MAX_RECIPIENTS valid
 * recipients, content (html or text with a subject, or a template), one-line subject and header values, header names
 * that are tokens and not the service's own, tags and metadata within limits.
 */
export function checkSubmission(m: SubmissionInput): { errors: string[]; recipients: string[] } {
  const errors: string[] = [];
  const add = (field: string, message: string | undefined) => message && errors.push(`${field}: ${message}`);
  if (!m.from?.address) add('from', 'Required field');
  else add('from', checkEmail(m.from.address));
  if (/[\r\n]/.test(m.from?.name ?? '')) add('from', 'the name must be one line');
  const lists: Array<['to' | 'cc' | 'bcc' | 'reply_to', Mailbox[]]> = [
    ['to', m.to],
    ['cc', m.cc],
    ['bcc', m.bcc],
    ['reply_to', m.replyTo],
  ];
  for (const [field, list] of lists) {
    list.forEach((a, i) => {
      const message = checkEmail(a.address);
      if (message) add(`${field}[${i}]`, `${a.address || '(empty)'}: ${message}`);
      if (/[\r\n]/.test(a.name ?? '')) add(`${field}[${i}]`, 'the name must be one line');
    });
  }
  const given = m.recipients ?? [...m.to, ...m.cc, ...m.bcc].map((a) => a.address);
  if (m.recipients) m.recipients.forEach((r, i) => add(`recipients[${i}]`, checkEmail(r) && `${r || '(empty)'}: ${checkEmail(r)}`));
  const seen = new Set<string>();
  const recipients = given.map((r) => r.trim()).filter((r) => r && !seen.has(r.toLowerCase()) && seen.add(r.toLowerCase()));
  if (!recipients.length) add('to', 'at least one recipient is required');
  if (recipients.length > MAX_RECIPIENTS)
    add('to', `at most ${MAX_RECIPIENTS} recipients per message (To, Cc and Bcc together); this one has ${recipients.length}`);
  if (m.templateId) {
    if (m.html !== undefined || m.text !== undefined) add('template_id', 'give a template or html/text, not both');
  } else {
    if (!m.html?.trim() && !m.text?.trim()) add('html', 'a message needs html or text (or a template_id)');
    if (!m.subject?.trim()) add('subject', 'Required field');
  }
  if (m.subject !== undefined && /[\r\n]/.test(m.subject)) add('subject', 'must be one line');
  for (const [name, value] of m.headers) {
    if (!HEADER_NAME.test(name)) add(`headers.${name}`, 'a header name is letters, digits and hyphens');
    else if (RESERVED_HEADERS.has(name.toLowerCase()) || name.toLowerCase().startsWith('x-mailwright-'))
      add(`headers.${name}`, 'is set by the service (use from, to, cc, reply_to, subject, stream, tags or metadata)');
    if (/[\r\n\0]/.test(value)) add(`headers.${name}`, 'a header value must be one line');
  }
  if (m.tags.length > 10) add('tags', 'at most 10 tags');
  m.tags.forEach((t, i) => (!t.trim() || t.length > 100 || /[\r\n]/.test(t)) && add(`tags[${i}]`, 'a tag is 1 to 100 characters on one line'));
  if (Object.keys(m.metadata).length > 20) add('metadata', 'at most 20 keys');
  m.attachments.forEach((a, i) => {
    if (!a.filename?.trim() || /[\r\n"]/.test(a.filename)) add(`attachments[${i}].filename`, 'a file name on one line, without quotes');
    if (!/^[A-Za-z0-9+/=\s]*$/.test(a.content)) add(`attachments[${i}].content`, 'must be base64');
  });
  return { errors, recipients };
}

/**
 * ACCEPT_EXCLUSIONS: why each recipient may not be sent to now, by the send-time rule (exclusionSql): $1 project,
 * $2 addresses, $3 their contact ids (NULL: no contact), $4 whether opt-outs apply (a broadcast stream).
 */
const ACCEPT_EXCLUSIONS = `SELECT r.email, ${exclusionSql({ contact: 'c', suppression: 's', email: 'r.email', marketing: '$4::boolean' })} AS excluded,
         s.reason AS listed
    FROM unnest($2::text[], $3::uuid[]) AS r(email, contact_id)
    LEFT JOIN contacts c ON c.id = r.contact_id
    LEFT JOIN suppressions s ON s.project_id = $1 AND s.email = lower(btrim(r.email))`;

/**
 * QUEUE_SUBMISSION: one outbox row per recipient of submission $1: $2 project, $3 persona, $4 template (or NULL),
 * $5 stream, $6 tracking, $7 the Message-IDs' domain, $8 contact ids, $9 addresses, $10 statuses ('pending' or
 * 'suppressed'), $11 reasons, in parallel arrays.
 */
const QUEUE_SUBMISSION = insertOutboxSql(
  {
    project_id: '$2',
    contact_id: 'u.contact_id',
    email: 'u.email',
    template_id: '$4::uuid',
    sender_persona_id: '$3::uuid',
    stream: '$5::text',
    tracking: '$6::boolean',
    submission_id: '$1::uuid',
    status: 'u.status',
    last_error: 'u.reason',
  },
  '$7::text',
  'unnest($8::uuid[], $9::text[], $10::text[], $11::text[]) AS u(contact_id, email, status, reason)',
  'RETURNING email, message_id, status, last_error',
);

/**
 * senderFor finds the sender persona a From may send as: the persona with that address (it must be verified), else a
 * verified persona on the same sending domain, whose DKIM record must be verified (the message is then signed for
 * that domain). Returns the persona's id, or the reason it may not.
 */
async function senderFor(query: QueryFn, projectId: string, from: string): Promise<{ personaId: string } | { refused: string }> {
  const rows = await query<{ id: string; email: string; verified: boolean; domain_verified: boolean }>(
    `SELECT p.id, p.email, p.verified_at IS NOT NULL AS verified,
            EXISTS (SELECT 1 FROM sending_domains d WHERE d.project_id = p.project_id AND d.domain = lower(split_part(p.email, '@', 2)) AND d.dkim_status = 'Success') AS domain_verified
       FROM sender_personas p
      WHERE p.project_id = $1 AND p.archived_at IS NULL AND lower(split_part(p.email, '@', 2)) = lower(split_part($2, '@', 2))
      ORDER BY lower(p.email) = lower($2) DESC, p.verified_at NULLS LAST, p.created_at`,
    [projectId, from],
  );
  const own = rows.find((r) => r.email.toLowerCase() === from.toLowerCase());
  if (own?.verified) return { personaId: own.id };
  const onDomain = rows.find((r) => r.verified && r.domain_verified);
  if (onDomain) return { personaId: onDomain.id };
  if (own) return { refused: `${from} is a sender persona that has not confirmed its verification email yet` };
  return { refused: `${from} is not a verified sender persona of this project, nor on a verified sending domain with one` };
}

/**
 * queueSubmission checks message `m` for `project` and queues it: one stored submission and one outbox row per
 * recipient, in one transaction, then wakes the sender (`notify`). `source` is 'api' or 'smtp' (with the SMTP
 * credential's id). Throws SubmissionRefused (nothing queued) naming what is wrong. The stream is `m.stream`, else
 * broadcast for a marketing template, else transactional; it must exist.
 */
export async function queueSubmission(
  database: Database,
  project: ProjectScope,
  m: SubmissionInput,
  source: { kind: 'api' } | { kind: 'smtp'; credentialId: string },
): Promise<SubmissionResult> {
  const query = database.query.bind(database) as QueryFn;
  const { errors, recipients } = checkSubmission(m);
  if (errors.length) throw new SubmissionRefused(errors, 'content');

  let templateType: string | undefined;
  if (m.templateId) {
    const [t] = await query<{ type: string }>(`SELECT type FROM templates WHERE id = $1 AND project_id = $2 AND archived_at IS NULL`, [
      m.templateId,
      project.id,
    ]);
    if (!t) throw new SubmissionRefused([`template_id: no template ${m.templateId} in this project`]);
    templateType = t.type;
  }
  const streamName = m.stream ?? (templateType === 'TEMPLATE_MARKETING' ? 'broadcast' : DEFAULT_STREAM);
  const stream = await streamSettings(query, project.id, streamName);
  if (!stream) throw new SubmissionRefused([`stream: no stream ${streamName} in this project`]);
  const sender = await senderFor(query, project.id, m.from.address.trim());
  if ('refused' in sender) throw new SubmissionRefused([`from: ${sender.refused}`], 'sender');
  if (!project.notInSandbox) {
    const personas = await query<{ email: string }>(`SELECT email FROM sender_personas WHERE project_id = $1 AND archived_at IS NULL`, [project.id]);
    const refused = recipients
      .map((r) =>
        sandboxRejection(
          r,
          personas.map((p) => p.email),
        ),
      )
      .filter((x): x is string => !!x);
    if (refused.length)
      throw new SubmissionRefused(
        refused.map((r) => `to: ${r}`),
        'recipient',
      );
  }

  const content: SubmissionContent = {
    from: { address: m.from.address.trim(), ...(m.from.name ? { name: m.from.name } : {}) },
    to: m.to,
    cc: m.cc,
    replyTo: m.replyTo,
    ...(m.subject !== undefined ? { subject: m.subject } : {}),
    ...(m.html !== undefined ? { html: m.html } : {}),
    ...(m.text !== undefined ? { text: m.text } : {}),
    headers: m.headers,
    attachments: m.attachments,
    ...(m.variables ? { variables: m.variables } : {}),
  };
  const opted = stream.kind === 'broadcast' && (templateType === undefined || templateType === 'TEMPLATE_MARKETING');
  const result = await database.transaction(async (tx) => {
    const contacts = await tx<{ id: string; email: string }>(
      `SELECT DISTINCT ON (lower(email)) id, email FROM contacts WHERE project_id = $1 AND lower(email) = ANY($2::text[]) AND archived_at IS NULL ORDER BY lower(email), created_at`,
      [project.id, recipients.map((r) => r.toLowerCase())],
    );
    const contactOf = new Map(contacts.map((c) => [c.email.toLowerCase(), c.id]));
    const contactIds = recipients.map((r) => contactOf.get(r.toLowerCase()) ?? null);
    const excluded = await tx<{ email: string; excluded: string | null; listed: string | null }>(ACCEPT_EXCLUSIONS, [
      project.id,
      recipients,
      contactIds,
      opted,
    ]);
    const reasonOf = new Map(
      excluded
        .filter((e) => e.excluded && e.excluded !== 'invalid')
        .map((e) => [
          e.email,
          sendRefusal(
            e.email,
            { email: '', verified_at: new Date() },
            { missing: false },
            { id: '', excluded: e.excluded as never, listed: e.listed, left_topic: false },
          )?.message,
        ]),
    );
    const [submission] = await tx<{ id: string }>(
      `INSERT INTO submissions (project_id, source, credential_id, content, tags, metadata) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [project.id, source.kind, source.kind === 'smtp' ? source.credentialId : null, JSON.stringify(content), m.tags, JSON.stringify(m.metadata)],
    );
    const rows = await tx<{ email: string; message_id: string; status: string; last_error: string | null }>(QUEUE_SUBMISSION, [
      submission.id,
      project.id,
      sender.personaId,
      m.templateId ?? null,
      stream.name,
      stream.tracking,
      m.from.address.trim().split('@')[1].toLowerCase(),
      contactIds,
      recipients,
      recipients.map((r) => (reasonOf.get(r) ? 'suppressed' : 'pending')),
      recipients.map((r) => reasonOf.get(r) ?? null),
    ]);
    const byEmail = new Map(rows.map((r) => [r.email, r]));
    const out: QueuedRecipient[] = recipients.map((email) => {
      const r = byEmail.get(email)!;
      return r.status === 'suppressed'
        ? { email, message_id: r.message_id, status: 'suppressed', reason: r.last_error ?? 'suppressed' }
        : { email, message_id: r.message_id, status: 'queued' };
    });
    return { id: submission.id, message_id: out[0].message_id, stream: stream.name, recipients: out };
  });
  return result;
}

/** A message of the sending API (openapi/email.yaml EmailMessage). */
export interface ApiMessage {
  from: string;
  to: string | string[];
  cc?: string | string[];
  bcc?: string | string[];
  reply_to?: string | string[];
  subject?: string;
  html?: string;
  text?: string;
  template_id?: string;
  variables?: Record<string, unknown>;
  headers?: Record<string, string>;
  attachments?: Array<{ filename: string; content: string; content_type?: string }>;
  tags?: string[];
  metadata?: Record<string, string>;
  stream?: string;
}

/** fromApiMessage reads a sending-API message into a SubmissionInput (addresses parsed; header fields in the given order). */
export function fromApiMessage(m: ApiMessage): SubmissionInput {
  const [from] = parseMailboxes(m.from);
  return {
    from: from ?? { address: '' },
    to: parseMailboxes(m.to),
    cc: parseMailboxes(m.cc),
    bcc: parseMailboxes(m.bcc),
    replyTo: parseMailboxes(m.reply_to),
    ...(m.subject !== undefined ? { subject: m.subject } : {}),
    ...(m.html !== undefined ? { html: m.html } : {}),
    ...(m.text !== undefined ? { text: m.text } : {}),
    ...(m.template_id ? { templateId: m.template_id } : {}),
    ...(m.variables ? { variables: m.variables } : {}),
    headers: Object.entries(m.headers ?? {}),
    attachments: (m.attachments ?? []).map((a) => ({ filename: a.filename, content: a.content, ...(a.content_type ? { contentType: a.content_type } : {}) })),
    tags: m.tags ?? [],
    metadata: m.metadata ?? {},
    ...(m.stream ? { stream: m.stream } : {}),
  };
}
