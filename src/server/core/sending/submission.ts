/**
 * Messages handed in by applications (openapi/email.yaml; docs/architecture.md "Transactional sending"): the one
 * definition of what the sending API (`POST /api/email`, `/api/email/batch`) and SMTP submission
 * (gateways/submission/server.ts) accept and queue. A message is checked whole — its From must be a verified sender
 * persona or on a verified sending domain of the project, its recipients at most 50 and valid, the sandbox rule, its
 * content, header fields that cannot inject others — and then, in one statement, stored once in `submissions` with
 * one outbox row per recipient (To, Cc and Bcc alike; the header lists never name a Bcc). A recipient the send-time
 * rule already refuses (core/audience/exclusion.ts, read in QUEUE_SUBMISSION itself) gets a row marked `suppressed`,
 * never sent. Everything after is the pipeline every email takes (the sender renders the stored content: compose.ts).
 */
import { randomUUID } from 'node:crypto';
import addressparser from 'nodemailer/lib/addressparser/index.js';
import type { Database, QueryFn } from '../../db/client.ts';
import { checkEmail } from '../../../domain/validation.ts';
import { sandboxRejection } from '../../../domain/sandbox.ts';
import { erasedAddresses } from '../privacy/erasure.ts';
import { exclusionSql, type Exclusion } from '../audience/exclusion.ts';
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
    /** What kind of refusal, for SMTP's reply codes: the sender, a recipient, the content, or a revoked credential. */
    readonly kind: 'sender' | 'recipient' | 'content' | 'revoked' = 'content',
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
 * QUEUE_SUBMISSIONS, one statement for any number of messages (atomic without a transaction; messages arriving
 * together share it: AcceptGroup): stores each submission and one outbox row per recipient. Each recipient's contact
 * (live, by address), and why the send-time rule refuses it now (exclusionSql, with the stream's opt-outs): a refused
 * recipient's row is `suppressed` with the rule's answer as `excluded:listed` (worded by the caller), never claimed.
 * A message whose SMTP credential was revoked stores nothing. Per message, in parallel arrays: $1 submission ids,
 * $2 projects, $3 sources, $4 credentials, $5 contents, $6 tags (JSON arrays), $7 metadata, $8 personas, $9 templates,
 * $10 streams, $11 tracking, $12 the Message-IDs' domains, $13 whether opt-outs apply; per recipient: $14 addresses and
 * $15 their message's place in the lists (1-based).
 */
const QUEUE_SUBMISSIONS = `WITH m AS MATERIALIZED (
      SELECT m.* FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::uuid[], $5::jsonb[], $6::jsonb[], $7::jsonb[], $8::uuid[], $9::uuid[],
                             $10::text[], $11::boolean[], $12::text[], $13::boolean[])
                      WITH ORDINALITY AS m(sub_id, project_id, source, credential_id, content, tags, metadata, persona_id, template_id, stream,
                                           tracking, domain, opted, n)
       -- An SMTP credential revoked since the connection signed in takes nothing, whatever a cache said.
       WHERE m.credential_id IS NULL OR EXISTS (SELECT 1 FROM smtp_credentials k WHERE k.id = m.credential_id AND k.revoked_at IS NULL)),
    sub AS (
      INSERT INTO submissions (id, project_id, source, credential_id, content, tags, metadata)
      SELECT sub_id, project_id, source, credential_id, content, ARRAY(SELECT jsonb_array_elements_text(tags)), metadata FROM m),
    x AS (
      SELECT r.place, m.sub_id, m.project_id, m.persona_id, m.template_id, m.stream, m.tracking, m.domain, r.email, c.id AS contact_id,
             ${exclusionSql({ contact: 'c', suppression: 's', email: 'r.email', marketing: 'm.opted' })} AS excluded, s.reason AS listed
        FROM unnest($14::text[], $15::bigint[]) WITH ORDINALITY AS r(email, n, place)
        JOIN m ON m.n = r.n
        LEFT JOIN LATERAL (SELECT * FROM contacts c WHERE c.project_id = m.project_id AND lower(c.email) = lower(r.email) AND c.archived_at IS NULL
                            ORDER BY c.created_at LIMIT 1) c ON true
        LEFT JOIN suppressions s ON s.project_id = m.project_id AND s.email = lower(btrim(r.email)))
  ${insertOutboxSql(
    {
      project_id: 'x.project_id',
      contact_id: 'x.contact_id',
      email: 'x.email',
      template_id: 'x.template_id',
      sender_persona_id: 'x.persona_id',
      stream: 'x.stream',
      tracking: 'x.tracking',
      submission_id: 'x.sub_id',
      status: "CASE WHEN x.excluded IS NOT NULL AND x.excluded <> 'invalid' THEN 'suppressed' ELSE 'pending' END",
      last_error: "CASE WHEN x.excluded IS NOT NULL AND x.excluded <> 'invalid' THEN x.excluded || ':' || coalesce(x.listed, '') END",
    },
    'x.domain',
    // Ids ascend with the messages' and recipients' order (the activity lists a batch as it was given).
    'x ORDER BY x.place',
    'RETURNING id, submission_id, email, message_id, status, last_error',
  )}`;

/** One checked message ready to be stored: QUEUE_SUBMISSIONS' values for it. */
interface Prepared {
  submissionId: string;
  projectId: string;
  source: string;
  credentialId: string | null;
  content: SubmissionContent;
  tags: string[];
  metadata: Record<string, string>;
  personaId: string;
  templateId: string | null;
  stream: string;
  tracking: boolean;
  domain: string;
  opted: boolean;
  recipients: string[];
}

/** A row QUEUE_SUBMISSIONS wrote. */
interface QueuedRow {
  id: string;
  submission_id: string;
  email: string;
  message_id: string;
  status: string;
  last_error: string | null;
}

/** insertSubmissions stores `list` in one QUEUE_SUBMISSIONS statement; returns each message's rows (none: its credential was revoked). */
async function insertSubmissions(query: QueryFn, list: Prepared[]): Promise<QueuedRow[][]> {
  const rows = await query<QueuedRow>(QUEUE_SUBMISSIONS, [
    list.map((p) => p.submissionId),
    list.map((p) => p.projectId),
    list.map((p) => p.source),
    list.map((p) => p.credentialId),
    list.map((p) => JSON.stringify(p.content)),
    list.map((p) => JSON.stringify(p.tags)),
    list.map((p) => JSON.stringify(p.metadata)),
    list.map((p) => p.personaId),
    list.map((p) => p.templateId),
    list.map((p) => p.stream),
    list.map((p) => p.tracking),
    list.map((p) => p.domain),
    list.map((p) => p.opted),
    list.flatMap((p) => p.recipients),
    list.flatMap((p, i) => p.recipients.map(() => i + 1)),
  ]);
  const bySubmission = new Map<string, QueuedRow[]>();
  for (const r of rows) bySubmission.set(r.submission_id, [...(bySubmission.get(r.submission_id) ?? []), r]);
  return list.map((p) => bySubmission.get(p.submissionId) ?? []);
}

/** The most messages stored in one statement. */
const MAX_GROUP = 100;

/**
 * AcceptGroup stores the messages that arrive while a statement is under way together in the next one (at most
 * MAX_GROUP), as the inbound receiver does with returned mail: SMTP clients and the batch API hand in many messages at
 * once, and each statement costs a round trip and a commit. When a group fails, each of its messages is tried alone,
 * so one message the database refuses does not fail the others.
 */
class AcceptGroup {
  private pending: Array<{ p: Prepared; resolve: (rows: QueuedRow[]) => void; reject: (err: Error) => void }> = [];
  private running = false;
  constructor(private readonly query: QueryFn) {}

  add(p: Prepared): Promise<QueuedRow[]> {
    return new Promise((resolve, reject) => {
      this.pending.push({ p, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.pending.length) {
      const group = this.pending.splice(0, MAX_GROUP);
      try {
        const results = await insertSubmissions(
          this.query,
          group.map((g) => g.p),
        );
        group.forEach((g, i) => g.resolve(results[i]));
      } catch (err) {
        if (group.length === 1) group[0].reject(err as Error);
        else for (const g of group) await insertSubmissions(this.query, [g.p]).then(([rows]) => g.resolve(rows), g.reject);
      }
    }
    this.running = false;
  }
}

const groups = new WeakMap<Database, AcceptGroup>();

/** WORD_SUPPRESSED: the reason a suppressed row shows, in words. $1 outbox ids, $2 reasons. */
const WORD_SUPPRESSED = `UPDATE outbox o SET last_error = u.reason FROM unnest($1::bigint[], $2::text[]) AS u(id, reason) WHERE o.id = u.id AND o.status = 'suppressed'`;

/** A few seconds' memory of lookups that rarely change, per process: SMTP and the API take many messages a second. */
export class ShortCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();
  constructor(private readonly ttlMs: number) {}
  /** get returns the remembered value of `key`, or looks it up with `load` and remembers it when `keep(value)`. */
  async get(key: string, load: () => Promise<T>, keep: (value: T) => boolean): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.until > Date.now()) return hit.value;
    const value = await load();
    if (this.entries.size > 10_000) this.entries.clear();
    if (keep(value)) this.entries.set(key, { value, until: Date.now() + this.ttlMs });
    else this.entries.delete(key);
    return value;
  }
}

/**
 * Streams and senders found, remembered 2 s (only what was found: a stream or persona made a moment ago is seen at
 * once). A persona unverified or archived meanwhile is still refused when its email leaves (eligibility.ts).
 */
const streamCache = new ShortCache<Awaited<ReturnType<typeof streamSettings>>>(2000);
const senderCache = new ShortCache<{ personaId: string } | { refused: string }>(2000);

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
 * recipient, in one statement shared with the messages arriving at the same moment (AcceptGroup; the caller wakes the
 * sender). `source` is 'api' or 'smtp' (with the SMTP
 * credential's id). Throws SubmissionRefused (nothing queued) naming what is wrong. The stream is `m.stream`, else
 * broadcast for a marketing template, else transactional; it must exist.
 */
export async function queueSubmission(
  database: Database,
  project: ProjectScope,
  m: SubmissionInput,
  source: { kind: 'api' } | { kind: 'smtp'; credentialId: string },
  erasureKey?: string,
): Promise<SubmissionResult> {
  const p = await prepareSubmission(database, project, m, source, erasureKey);
  return finishSubmission(database.query.bind(database) as QueryFn, p, await groupOf(database).add(p));
}

/**
 * queueSubmissions queues a batch as queueSubmission queues each message, stored together in the batch's order (ids
 * ascending with the position): each result is the message's answer, or its SubmissionRefused (nothing of it stored).
 */
export async function queueSubmissions(
  database: Database,
  project: ProjectScope,
  list: SubmissionInput[],
  source: { kind: 'api' } | { kind: 'smtp'; credentialId: string },
  erasureKey?: string,
): Promise<Array<SubmissionResult | SubmissionRefused>> {
  const query = database.query.bind(database) as QueryFn;
  const prepared: Array<Prepared | SubmissionRefused> = [];
  for (const m of list) {
    prepared.push(
      await prepareSubmission(database, project, m, source, erasureKey).catch((err: unknown) => {
        if (err instanceof SubmissionRefused) return err;
        throw err;
      }),
    );
  }
  const group = groupOf(database);
  const stored = prepared.map((p) => (p instanceof SubmissionRefused ? undefined : group.add(p)));
  return Promise.all(
    prepared.map(async (p, i) => {
      if (p instanceof SubmissionRefused) return p;
      return finishSubmission(query, p, await stored[i]!).catch((err: unknown) => {
        if (err instanceof SubmissionRefused) return err;
        throw err;
      });
    }),
  );
}

/** groupOf: the database's AcceptGroup (one per database per process). */
function groupOf(database: Database): AcceptGroup {
  let group = groups.get(database);
  if (!group) groups.set(database, (group = new AcceptGroup(database.queryPrepared.bind(database) as QueryFn)));
  return group;
}

/** prepareSubmission checks message `m` (as queueSubmission says) and returns what storing it takes; throws SubmissionRefused. */
async function prepareSubmission(
  database: Database,
  project: ProjectScope,
  m: SubmissionInput,
  source: { kind: 'api' } | { kind: 'smtp'; credentialId: string },
  erasureKey: string | undefined,
): Promise<Prepared> {
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
  const stream = await streamCache.get(
    `${project.id}\u0000${streamName}`,
    () => streamSettings(query, project.id, streamName),
    (v) => !!v,
  );
  if (!stream) throw new SubmissionRefused([`stream: no stream ${streamName} in this project`]);
  const fromAddress = m.from.address.trim();
  const sender = await senderCache.get(
    `${project.id}\u0000${fromAddress.toLowerCase()}`,
    () => senderFor(query, project.id, fromAddress),
    (v) => 'personaId' in v,
  );
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
  // An address erased at the person's request is never sent to again, nor stored (core/privacy/erasure.ts).
  const erased = erasureKey ? await erasedAddresses(query, erasureKey, project.id, recipients) : [];
  if (erased.length)
    throw new SubmissionRefused(
      erased.map((r) => `to: ${r} was erased at the person's request and is never sent to again`),
      'recipient',
    );

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
  return {
    submissionId: randomUUID(),
    projectId: project.id,
    source: source.kind,
    credentialId: source.kind === 'smtp' ? source.credentialId : null,
    content,
    tags: m.tags,
    metadata: m.metadata,
    personaId: sender.personaId,
    templateId: m.templateId ?? null,
    stream: stream.name,
    tracking: stream.tracking,
    domain: fromAddress.split('@')[1].toLowerCase(),
    opted,
    recipients,
  };
}

/** finishSubmission words a stored message's refused recipients (sendRefusal) and answers it. Throws SubmissionRefused for a revoked credential. */
async function finishSubmission(query: QueryFn, p: Prepared, rows: QueuedRow[]): Promise<SubmissionResult> {
  const recipients = p.recipients;
  // A refused recipient's reason in the send-time check's own words (sendRefusal), so the activity reads the same.
  const words = new Map<string, string>();
  for (const r of rows.filter((x) => x.status === 'suppressed')) {
    const [excluded, listed] = (r.last_error ?? '').split(':');
    const refusal = sendRefusal(
      r.email,
      { email: '', verified_at: new Date() },
      { missing: false },
      { id: r.id, excluded: excluded as Exclusion, listed: listed || null, left_topic: false },
    );
    words.set(r.id, refusal?.message ?? 'suppressed');
  }
  if (!rows.length) throw new SubmissionRefused(['credential: this SMTP credential was revoked'], 'revoked');
  if (words.size) await query(WORD_SUPPRESSED, [[...words.keys()], [...words.values()]]);
  const byEmail = new Map(rows.map((r) => [r.email, r]));
  const out: QueuedRecipient[] = recipients.map((email) => {
    const r = byEmail.get(email)!;
    return r.status === 'suppressed'
      ? { email, message_id: r.message_id, status: 'suppressed', reason: words.get(r.id) ?? 'suppressed' }
      : { email, message_id: r.message_id, status: 'queued' };
  });
  return { id: rows[0].submission_id, message_id: out[0].message_id, stream: p.stream, recipients: out };
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
