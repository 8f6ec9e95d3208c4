/**
 * Subscription topics and hosted subscribe forms with double opt-in (openapi/subscriptions.yaml;
 * docs/architecture.md §22). The one home of how a contact subscribes through a form (submitForm → the confirmation
 * email → confirmSubscription) and of the topics' records; who leaves a topic is core/feedback (the preference
 * centre), and who a topic's mail skips is core/audience (at expansion) and the sender (at send time).
 *
 * A submission creates the contact as pending (confirmation_pending_at; marketing mail skips it) or leaves an existing
 * contact as it is, records its consent (time, IP, user agent, form, the text shown) and queues a confirmation email
 * from the form's sender persona through the outbox like any other send. The link's page asks; only its button (a
 * POST) confirms: the consent gets its confirmation time, IP and user agent, the contact stops being pending (and is
 * resubscribed to marketing mail, which it just asked for) and joins the form's segment — in one transaction.
 */
import { escapeUTF8 as escapeHtml } from 'entities';
import { randomUUID } from 'node:crypto';
import { RateLimiterDrizzle, RateLimiterRes } from 'rate-limiter-flexible';
import type { Database, Db, QueryFn } from '../../db/client.ts';
import { rateLimits } from '../../db/schema.ts';
import { BadRequest, FieldErrors, HttpError, NotFound } from '../../errors.ts';
import { iso, isoRequired } from '../listing.ts';
import { EMAIL_MAX_LENGTH, UUID_RE } from '../../../domain/validation.ts';
import { CONTACT_NAME_MAX_LENGTH, checkContactFields } from '../contacts/rules.ts';
import { sandboxRejection } from '../../../domain/sandbox.ts';
import { EVENT } from '../../../domain/events.ts';
import { confirmationLink } from '../../mail/links.ts';
import type { components } from '../../../../generated/types/subscriptions.gen.ts';
import { insertOutboxSql } from '../sending/outbox.ts';
import { upsertContactsSql } from '../contacts/upsert.ts';
import { addressHash } from '../privacy/key.ts';
import { enterUpsertedFrom } from '../workflows/queries.ts';

type Topic = components['schemas']['Topic'];
type Form = components['schemas']['SubscribeForm'];
type FormInput = components['schemas']['SubscribeFormInput'];
type Consent = components['schemas']['Consent'];

// ---------------------------------------------------------------------------------------------------------------
// Topics

/**
 * LIST_TOPICS: project $1's live topics by name, each with the live contacts who left it now and the unsubscribes
 * from it ever recorded (user_unsubscribed events whose json names it: the reports' count per topic).
 */
const LIST_TOPICS = `SELECT t.id, t.name, t.description, t.created_at,
       (SELECT count(*) FROM contacts c WHERE c.project_id = t.project_id AND c.archived_at IS NULL AND t.id = ANY(c.unsubscribed_topic_ids))::int AS unsubscribed_contacts,
       (SELECT count(*) FROM events e WHERE e.project_id = t.project_id AND e.name = '${EVENT.unsubscribed}' AND e.json->>'topic_id' = t.id::text)::int AS unsubscribes
  FROM topics t WHERE t.project_id = $1 AND t.archived_at IS NULL AND ($2::uuid IS NULL OR t.id = $2) ORDER BY lower(t.name), t.id`;

interface TopicRow {
  id: string;
  name: string;
  description: string;
  created_at: Date;
  unsubscribed_contacts: number;
  unsubscribes: number;
}

const topicOut = (r: TopicRow): Topic => ({
  id: r.id,
  name: r.name,
  description: r.description,
  created_at: isoRequired(r.created_at),
  unsubscribed_contacts: Number(r.unsubscribed_contacts),
  unsubscribes: Number(r.unsubscribes),
});

/** listTopics returns the project's topics with their counts (openapi listTopics). */
export async function listTopics(query: QueryFn, projectId: string): Promise<Topic[]> {
  return (await query<TopicRow>(LIST_TOPICS, [projectId, null])).map(topicOut);
}

async function topicOf(query: QueryFn, projectId: string, id: string): Promise<Topic> {
  const [row] = UUID_RE.test(id) ? await query<TopicRow>(LIST_TOPICS, [projectId, id]) : [];
  if (!row) throw new NotFound([`id: no topic ${id} in this project`]);
  return topicOut(row);
}

/** checkTopic throws a BadRequest naming name (required, at most 100 characters, unique in the project) or description. */
async function checkTopic(query: QueryFn, projectId: string, input: { name: string; description?: string }, except?: string): Promise<void> {
  const errs = new FieldErrors();
  const name = input.name.trim();
  if (!name) errs.add('name', 'Required field');
  else if (name.length > 100) errs.add('name', 'must be at most 100 characters');
  else {
    const [taken] = await query(
      'SELECT 1 FROM topics WHERE project_id = $1 AND lower(name) = lower($2) AND archived_at IS NULL AND ($3::uuid IS NULL OR id <> $3)',
      [projectId, name, except ?? null],
    );
    if (taken) errs.add('name', `a topic named ${name} already exists`);
  }
  errs.throwIfAny();
}

/** createTopic adds a topic (openapi createTopic). Throws BadRequest naming name. */
export async function createTopic(query: QueryFn, projectId: string, input: { name: string; description?: string }): Promise<Topic> {
  await checkTopic(query, projectId, input);
  const [{ id }] = await query<{ id: string }>('INSERT INTO topics (project_id, name, description) VALUES ($1, $2, $3) RETURNING id', [
    projectId,
    input.name.trim(),
    input.description?.trim() ?? '',
  ]);
  return topicOf(query, projectId, id);
}

/** updateTopic renames a topic or changes its description (openapi updateTopic). Throws NotFound or BadRequest. */
export async function updateTopic(query: QueryFn, projectId: string, id: string, input: { name: string; description?: string }): Promise<Topic> {
  await topicOf(query, projectId, id);
  await checkTopic(query, projectId, input, id);
  await query('UPDATE topics SET name = $3, description = coalesce($4, description) WHERE project_id = $1 AND id = $2', [
    projectId,
    id,
    input.name.trim(),
    input.description?.trim() ?? null,
  ]);
  return topicOf(query, projectId, id);
}

/** deleteTopic archives a topic; templates and blasts that named it then name none (openapi deleteTopic). Throws NotFound. */
export async function deleteTopic(database: Database, projectId: string, id: string): Promise<void> {
  const query = database.query.bind(database) as QueryFn;
  await topicOf(query, projectId, id);
  await database.transaction(async (tx) => {
    await tx('UPDATE topics SET archived_at = now() WHERE project_id = $1 AND id = $2', [projectId, id]);
    await tx('UPDATE templates SET topic_id = NULL WHERE project_id = $1 AND topic_id = $2', [projectId, id]);
    await tx('UPDATE email_blasts SET topic_id = NULL WHERE project_id = $1 AND topic_id = $2', [projectId, id]);
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Subscribe forms

/** LIST_FORMS: project $1's live forms (or form $2), oldest first, with their pending and confirmed submissions. */
const LIST_FORMS = `SELECT f.*,
       (SELECT count(*) FROM consents k WHERE k.form_id = f.id AND k.confirmed_at IS NULL)::int AS pending,
       (SELECT count(*) FROM consents k WHERE k.form_id = f.id AND k.confirmed_at IS NOT NULL)::int AS confirmed
  FROM subscribe_forms f WHERE f.project_id = $1 AND f.archived_at IS NULL AND ($2::uuid IS NULL OR f.id = $2) ORDER BY f.created_at, f.id`;

interface FormRow {
  id: string;
  project_id: string;
  name: string;
  segment_id: string;
  sender_persona_id: string;
  heading: string;
  consent_text: string;
  unconfirmed_days: number;
  created_at: Date;
  pending: number;
  confirmed: number;
}

/** formSnippet is the HTML form a customer pastes into a website: it posts to the hosted page, honeypot included. */
export function formSnippet(publicUrl: string, f: { id: string; heading: string; consent_text: string }): string {
  return `<form action="${publicUrl}/s/${f.id}" method="post">
  <h3>${escapeHtml(f.heading)}</h3>
  <label>Email <input type="email" name="email" required maxlength="${EMAIL_MAX_LENGTH}"></label>
  <label>First name <input type="text" name="first_name" maxlength="${CONTACT_NAME_MAX_LENGTH}"></label>
  <div style="position:absolute;left:-5000px" aria-hidden="true"><input type="text" name="website" tabindex="-1" autocomplete="off"></div>
  <p><small>${escapeHtml(f.consent_text)}</small></p>
  <button type="submit">Subscribe</button>
</form>`;
}

function formOut(publicUrl: string, r: FormRow): Form {
  return {
    id: r.id,
    name: r.name,
    segment_id: r.segment_id,
    sender_persona_id: r.sender_persona_id,
    heading: r.heading,
    consent_text: r.consent_text,
    unconfirmed_days: r.unconfirmed_days,
    created_at: isoRequired(r.created_at),
    url: `${publicUrl}/s/${r.id}`,
    snippet: formSnippet(publicUrl, r),
    pending: Number(r.pending),
    confirmed: Number(r.confirmed),
  };
}

/** listForms returns the project's subscribe forms (openapi listSubscribeForms). */
export async function listForms(query: QueryFn, publicUrl: string, projectId: string): Promise<Form[]> {
  return (await query<FormRow>(LIST_FORMS, [projectId, null])).map((r) => formOut(publicUrl, r));
}

async function formOf(query: QueryFn, publicUrl: string, projectId: string, id: string): Promise<Form> {
  const [row] = UUID_RE.test(id) ? await query<FormRow>(LIST_FORMS, [projectId, id]) : [];
  if (!row) throw new NotFound([`id: no subscribe form ${id} in this project`]);
  return formOut(publicUrl, row);
}

/** checkForm throws a BadRequest naming each field that is missing, too long, or names no live segment or persona. */
async function checkForm(query: QueryFn, projectId: string, f: FormInput): Promise<void> {
  const errs = new FieldErrors();
  const text = (field: 'name' | 'heading' | 'consent_text', max: number) => {
    const v = f[field].trim();
    errs.add(field, !v ? 'Required field' : v.length > max ? `must be at most ${max.toLocaleString('en-US')} characters` : undefined);
  };
  text('name', 100);
  text('heading', 200);
  text('consent_text', 2000);
  const [seg] = UUID_RE.test(f.segment_id)
    ? await query('SELECT 1 FROM segments WHERE project_id = $1 AND id = $2 AND archived_at IS NULL AND built_in IS NULL', [projectId, f.segment_id])
    : [];
  if (!seg) errs.add('segment_id', `no segment ${f.segment_id} in this project`);
  const [persona] = UUID_RE.test(f.sender_persona_id)
    ? await query('SELECT 1 FROM sender_personas WHERE project_id = $1 AND id = $2 AND archived_at IS NULL', [projectId, f.sender_persona_id])
    : [];
  if (!persona) errs.add('sender_persona_id', `no sender persona ${f.sender_persona_id} in this project`);
  errs.throwIfAny();
}

/** createForm makes a segment subscribable through a hosted form (openapi createSubscribeForm). Throws BadRequest naming the field. */
export async function createForm(query: QueryFn, publicUrl: string, projectId: string, f: FormInput): Promise<Form> {
  await checkForm(query, projectId, f);
  const [{ id }] = await query<{ id: string }>(
    `INSERT INTO subscribe_forms (project_id, name, segment_id, sender_persona_id, heading, consent_text, unconfirmed_days)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [projectId, f.name.trim(), f.segment_id, f.sender_persona_id, f.heading.trim(), f.consent_text.trim(), f.unconfirmed_days ?? 7],
  );
  return formOf(query, publicUrl, projectId, id);
}

/** updateForm changes a form (openapi updateSubscribeForm). Throws NotFound or BadRequest naming the field. */
export async function updateForm(query: QueryFn, publicUrl: string, projectId: string, id: string, f: FormInput): Promise<Form> {
  await formOf(query, publicUrl, projectId, id);
  await checkForm(query, projectId, f);
  await query(
    `UPDATE subscribe_forms SET name = $3, segment_id = $4, sender_persona_id = $5, heading = $6, consent_text = $7, unconfirmed_days = $8
      WHERE project_id = $1 AND id = $2`,
    [projectId, id, f.name.trim(), f.segment_id, f.sender_persona_id, f.heading.trim(), f.consent_text.trim(), f.unconfirmed_days ?? 7],
  );
  return formOf(query, publicUrl, projectId, id);
}

/** deleteForm archives a form: its page answers 404 (openapi deleteSubscribeForm). Throws NotFound. */
export async function deleteForm(query: QueryFn, publicUrl: string, projectId: string, id: string): Promise<void> {
  await formOf(query, publicUrl, projectId, id);
  await query('UPDATE subscribe_forms SET archived_at = now() WHERE project_id = $1 AND id = $2', [projectId, id]);
}

/** listConsents returns one contact's consent records, newest first (openapi listConsents). Throws BadRequest without contact_id or email. */
export async function listConsents(query: QueryFn, projectId: string, by: { contact_id?: string; email?: string }): Promise<Consent[]> {
  if (!by.contact_id && !by.email) throw new BadRequest(['contact_id: give contact_id or email']);
  const rows = await query<Record<string, unknown> & { submitted_at: Date; confirmed_at: Date | null }>(
    `SELECT k.*, f.name AS form_name FROM consents k LEFT JOIN subscribe_forms f ON f.id = k.form_id
      WHERE k.project_id = $1 AND ($2::uuid IS NULL OR k.contact_id = $2) AND ($3::text IS NULL OR lower(k.email) = lower($3))
      ORDER BY k.submitted_at DESC, k.id`,
    [projectId, by.contact_id ?? null, by.email?.trim() ?? null],
  );
  return rows.map((r) => ({
    id: String(r.id),
    contact_id: String(r.contact_id),
    email: String(r.email),
    form_id: (r.form_id as string | null) ?? null,
    form_name: (r.form_name as string | null) ?? null,
    consent_text: String(r.consent_text),
    submitted_at: isoRequired(r.submitted_at),
    submitted_ip: (r.submitted_ip as string | null) ?? null,
    submitted_user_agent: (r.submitted_user_agent as string | null) ?? null,
    confirmed_at: iso(r.confirmed_at),
    confirmed_ip: (r.confirmed_ip as string | null) ?? null,
    confirmed_user_agent: (r.confirmed_user_agent as string | null) ?? null,
    source: String(r.source ?? 'form'),
    recorded_by: (r.recorded_by as string | null) ?? null,
  }));
}

// ---------------------------------------------------------------------------------------------------------------
// The hosted form: submission, confirmation, clean-up

/** What the hosted page shows of a form. */
export interface PublicForm {
  id: string;
  projectId: string;
  heading: string;
  consentText: string;
  company: string;
}

/** publicForm reads a live form for its hosted page; undefined for an unknown or deleted one (or an id that is no uuid). */
export async function publicForm(query: QueryFn, id: string): Promise<PublicForm | undefined> {
  if (!UUID_RE.test(id)) return undefined;
  const [f] = await query<{ id: string; project_id: string; heading: string; consent_text: string; company: string }>(
    `SELECT f.id, f.project_id, f.heading, f.consent_text, co.name AS company FROM subscribe_forms f
       JOIN projects p ON p.id = f.project_id JOIN companies co ON co.id = p.company_id WHERE f.id = $1 AND f.archived_at IS NULL`,
    [id],
  );
  return f && { id: f.id, projectId: f.project_id, heading: f.heading, consentText: f.consent_text, company: f.company };
}

/** Submissions a client address may make to one form per hour (the hosted form's per-IP limit). */
export const SUBMISSIONS_PER_HOUR = 10;

/** TooManySubmissions: 429 with the wait; `retryAfterS` for a Retry-After header. */
export class TooManySubmissions extends HttpError {
  constructor(readonly retryAfterS: number) {
    const minutes = Math.max(1, Math.ceil(retryAfterS / 60));
    super(429, [`email: too many subscriptions from your address; try again in ${minutes} minute${minutes === 1 ? '' : 's'}`]);
  }
}

/** Confirmation emails one address may be sent per form a day, whoever submits it (so a form cannot flood a mailbox). */
export const CONFIRMATIONS_PER_DAY = 3;

/**
 * SubmissionThrottle counts, in the database (rate-limiter-flexible, the rate_limits table), a client address's
 * submissions per form (take) and the confirmation emails an address is sent per form (mayMail).
 */
export class SubmissionThrottle {
  private readonly limiter: RateLimiterDrizzle;
  private readonly perRecipient: RateLimiterDrizzle;
  constructor(db: Db) {
    this.limiter = new RateLimiterDrizzle({ storeClient: db, schema: rateLimits, keyPrefix: 'subscribe-ip', points: SUBMISSIONS_PER_HOUR, duration: 3600 });
    this.perRecipient = new RateLimiterDrizzle({
      storeClient: db,
      schema: rateLimits,
      keyPrefix: 'subscribe-email',
      points: CONFIRMATIONS_PER_DAY,
      duration: 86_400,
    });
  }

  /** mayMail consumes one confirmation email to `email` from `formId`; false when the day's are used up. */
  async mayMail(formId: string, email: string): Promise<boolean> {
    try {
      await this.perRecipient.consume(`${formId}:${email.trim().toLowerCase()}`);
      return true;
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      return false;
    }
  }

  /** take consumes one submission of `ip` to `formId` or throws TooManySubmissions. */
  async take(formId: string, ip: string): Promise<void> {
    try {
      await this.limiter.consume(`${formId}:${ip}`);
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      throw new TooManySubmissions(Math.ceil(res.msBeforeNext / 1000));
    }
  }
}

/** Where a submission or a confirmation came from. */
export interface Requester {
  ip: string;
  userAgent: string;
}

/**
 * FormNotOpen: 403 for a submission to a form of a project still in its sandbox (only its sender personas' own
 * addresses may subscribe until the account is activated). The visitor did nothing wrong, so the hosted page answers
 * in its own words (plugins/subscribeForms.ts), not as a problem with what was typed.
 */
export class FormNotOpen extends HttpError {
  constructor() {
    super(403, ['form: this form is not taking new subscribers yet']);
  }
}

/**
 * submitForm takes one submission of form `formId`: checks the address (BadRequest naming email), makes
 * the contact pending if it is new, records the consent and queues the confirmation email (transactional, from the
 * form's sender persona; its link is confirmationLink), all in one transaction. A project in the sandbox may only
 * mail the addresses the sandbox allows (BadRequest naming email). The answer is the same whether the address was a
 * contact or not, so the form tells nobody who is subscribed.
 */
export async function submitForm(
  database: Database,
  publicUrl: string,
  form: PublicForm,
  input: { email: string; firstName?: string },
  from: Requester,
  erasureKey?: string,
): Promise<void> {
  const email = input.email.trim();
  const firstName = input.firstName?.trim() || null;
  // The contacts API's rules, with its messages (core/contacts/rules.ts): never an address or a name it would refuse.
  const problems = checkContactFields({ email, first_name: firstName });
  if (problems.length) throw new BadRequest(problems.map((p) => `${p.field}: ${p.message}`));
  const query = database.query.bind(database) as QueryFn;
  const [setup] = await query<{ not_in_sandbox: boolean; link_secret: string; persona_email: string; persona_first: string; persona_last: string | null }>(
    `SELECT p.not_in_sandbox, p.link_secret, sp.email AS persona_email, sp.first_name AS persona_first, sp.last_name AS persona_last
       FROM subscribe_forms f JOIN projects p ON p.id = f.project_id JOIN sender_personas sp ON sp.id = f.sender_persona_id WHERE f.id = $1`,
    [form.id],
  );
  if (!setup) throw new NotFound(['form: this form no longer exists']);
  if (!setup.not_in_sandbox) {
    const personas = (await query<{ email: string }>('SELECT email FROM sender_personas WHERE project_id = $1 AND archived_at IS NULL', [form.projectId])).map(
      (p) => p.email,
    );
    const refused = sandboxRejection(email, personas);
    if (refused) throw new FormNotOpen();
  }
  const consentId = randomUUID();
  const link = confirmationLink(publicUrl, setup.link_secret, form.projectId, consentId);
  await database.transaction(async (tx) => {
    // The person's own submission is the one way back for an erased address (core/privacy/erasure.ts): its
    // tombstone goes, and this consent is the new record.
    if (erasureKey) await tx(`DELETE FROM erasures WHERE project_id = $1 AND address_hash = $2`, [form.projectId, addressHash(erasureKey, email)]);
    // The one contact upsert: a new address becomes a contact waiting for its confirmation; a contact that exists
    // (also one a simultaneous submission just made) is left as it is — a visitor may not rename it.
    const [{ id: contactId }] = await tx<{ id: string }>(upsertContactsSql({ returnContacts: true }), [
      form.projectId,
      JSON.stringify([{ email, first_name: firstName, match: true, only_new: true, pending: true }]),
    ]);
    await tx(
      `INSERT INTO consents (id, project_id, contact_id, form_id, email, consent_text, submitted_ip, submitted_user_agent)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [consentId, form.projectId, contactId, form.id, email, form.consentText, from.ip, from.userAgent.slice(0, 512)],
    );
    const subject = `Please confirm your subscription to ${form.heading}`;
    const body = confirmationEmail(form, link);
    await tx(
      insertOutboxSql(
        {
          project_id: '$1',
          contact_id: '$2',
          email: '$3',
          sender_persona_id: 'f.sender_persona_id',
          subject: '$4',
          body: '$5',
          tracking: 'false',
          stream: "'transactional'",
        },
        "split_part($6, '@', 2)",
        'subscribe_forms f WHERE f.id = $7',
      ),
      [form.projectId, contactId, email, subject, body, setup.persona_email, form.id],
    );
  });
}

/** confirmationEmail is the confirmation email's HTML: what was asked, the link, and what happens if it is ignored. */
function confirmationEmail(form: PublicForm, link: string): string {
  const esc = escapeHtml;
  return `<html><body style="font-family:Arial,sans-serif;color:#1d2129">
<p>Someone (we hope you) asked to subscribe this address to <strong>${esc(form.heading)}</strong> from ${esc(form.company)}.</p>
<p><a data-no-track href="${esc(link)}" style="display:inline-block;background:#4b2fd0;color:#fff;padding:10px 20px;border-radius:4px;text-decoration:none">Confirm my subscription</a></p>
<p>If you did not ask for this, ignore this email: you will not be subscribed and we will not write again.</p>
<p style="color:#666;font-size:12px">${esc(form.consentText)}</p>
</body></html>`;
}

/** What a confirmation link's page shows: the address, the form's heading, and whether it is confirmed already. */
export interface PendingConfirmation {
  email: string;
  heading: string;
  company: string;
  confirmed: boolean;
}

/** CONSENT_BY_ID: consent $2 of project $1 with its form's heading and the company's name. */
const CONSENT_BY_ID = `SELECT k.id, k.email, k.contact_id, k.form_id, k.confirmed_at, f.heading, f.segment_id, co.name AS company
  FROM consents k JOIN subscribe_forms f ON f.id = k.form_id JOIN projects p ON p.id = k.project_id JOIN companies co ON co.id = p.company_id
 WHERE k.project_id = $1 AND k.id = $2`;

/** pendingConfirmation reads what a confirmation link's page shows; undefined when the consent does not exist. */
export async function pendingConfirmation(query: QueryFn, t: { projectId: string; consentId: string }): Promise<PendingConfirmation | undefined> {
  const [k] = await query<{ email: string; heading: string; company: string; confirmed_at: Date | null }>(CONSENT_BY_ID, [t.projectId, t.consentId]);
  return k && { email: k.email, heading: k.heading, company: k.company, confirmed: !!k.confirmed_at };
}

/**
 * confirmSubscription confirms one consent (the confirmation page's button; a GET never does): in one transaction the
 * consent records when and from where it was confirmed (once), the contact stops being pending and is resubscribed to
 * marketing mail (it just asked for it), enters the project's user_upserted workflows, and joins the form's segment. Returns undefined when the consent (or its
 * contact) no longer exists, else whether this call confirmed it (false: confirmed before).
 */
export async function confirmSubscription(database: Database, t: { projectId: string; consentId: string }, from: Requester): Promise<boolean | undefined> {
  return database.transaction(async (tx) => {
    const [k] = await tx<{ contact_id: string; segment_id: string; confirmed_at: Date | null }>(`${CONSENT_BY_ID} FOR UPDATE OF k`, [t.projectId, t.consentId]);
    if (!k) return undefined;
    const [contact] = await tx('SELECT 1 FROM contacts WHERE id = $1 AND archived_at IS NULL', [k.contact_id]);
    if (!contact) return undefined;
    if (k.confirmed_at) return false;
    await tx('UPDATE consents SET confirmed_at = now(), confirmed_ip = $2, confirmed_user_agent = $3 WHERE id = $1', [
      t.consentId,
      from.ip,
      from.userAgent.slice(0, 512),
    ]);
    // The contact confirmed enters the project's user_upserted workflows in the same statement (core/workflows).
    await tx(
      `WITH written AS (UPDATE contacts SET confirmation_pending_at = NULL, unsubscribed_at = NULL, updated_at = now()
                          WHERE id = $2 AND project_id = $1 AND (confirmation_pending_at IS NOT NULL OR unsubscribed_at IS NOT NULL)
                      RETURNING id, email)
       ${enterUpsertedFrom('written')}`,
      [t.projectId, k.contact_id],
    );
    await tx('INSERT INTO segment_members (segment_id, contact_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [k.segment_id, k.contact_id]);
    return true;
  });
}

/**
 * REMOVE_UNCONFIRMED: contacts still pending after their latest submission's form's unconfirmed_days are archived
 * (deleted from the console's view; their consent records stay as the history of what was asked). A pending contact
 * the customer has written since (an import, the contacts API) is the customer's, and stays. Returns how many.
 */
const REMOVE_UNCONFIRMED = `UPDATE contacts c SET archived_at = now(), updated_at = now()
  FROM (SELECT DISTINCT ON (k.contact_id) k.contact_id, k.submitted_at, f.unconfirmed_days
          FROM consents k JOIN subscribe_forms f ON f.id = k.form_id ORDER BY k.contact_id, k.submitted_at DESC) last
 WHERE c.id = last.contact_id AND c.confirmation_pending_at IS NOT NULL AND c.archived_at IS NULL
   AND last.submitted_at < now() - make_interval(days => last.unconfirmed_days)
   AND c.updated_at < last.submitted_at + interval '1 minute'
RETURNING c.id`;

/**
 * DELETE_UNCONFIRMED: project $1's sign-ups still unconfirmed (pending, live or archived) whose contact was made
 * before $2 are deleted with their consents and segment memberships (a project's retention of unconfirmed sign-ups,
 * core/privacy/retention.ts). Returns how many contacts.
 */
const DELETE_UNCONFIRMED = `WITH gone AS (
    SELECT id FROM contacts WHERE project_id = $1 AND confirmation_pending_at IS NOT NULL AND created_at < $2),
  k AS (DELETE FROM consents WHERE project_id = $1 AND contact_id IN (SELECT id FROM gone)),
  m AS (DELETE FROM segment_members WHERE contact_id IN (SELECT id FROM gone)),
  c AS (DELETE FROM contacts WHERE project_id = $1 AND id IN (SELECT id FROM gone) RETURNING id)
  SELECT count(*)::int AS n FROM c`;

/** deleteUnconfirmed deletes project `projectId`'s sign-ups made before `before` and never confirmed (DELETE_UNCONFIRMED); returns how many. */
export async function deleteUnconfirmed(query: QueryFn, projectId: string, before: Date): Promise<number> {
  const [{ n }] = await query<{ n: number }>(DELETE_UNCONFIRMED, [projectId, before.toISOString()]);
  return Number(n);
}

/** removeUnconfirmed archives contacts whose double opt-in was not confirmed in time (the 'unconfirmed-cleanup' job, hourly). Returns how many. */
export async function removeUnconfirmed(query: QueryFn): Promise<number> {
  return (await query(REMOVE_UNCONFIRMED)).length;
}
