/**
 * The database schema (drizzle-orm), one set for PGlite and PostgreSQL. Every tenant table carries project_id and
 * every query filters on it (DESIGN.md §2). Timestamps are timestamptz (UTC). Migrations are generated from this file
 * by `npm run db:generate` into ./migrations and applied at start-up (db/migrate.ts).
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { EVENT } from '../../domain/events.ts';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const created = () => ts('created_at').notNull().defaultNow();

export const companies = pgTable(
  'companies',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    /** From sign-up: plan (product_package_id), business_website, source, promo_code. */
    json: jsonb('json').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: created(),
  },
  (t) => [uniqueIndex('companies_name_idx').on(t.name)],
);

export const projects = pgTable(
  'projects',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    companyId: uuid('company_id')
      .notNull()
      .references(() => companies.id),
    name: text('name').notNull(),
    /** The x-api-key of the project (session api_client_key). */
    apiKey: text('api_key').notNull(),
    integrationKey: text('integration_key').notNull(),
    integrationKey2: text('integration_key2').notNull(),
    /**
     * The HMAC key of the project's signed email links (/u/, /t/o/, /t/c/; src/server/mail/links.ts): 64 hex chars of
     * server-side randomness, never shown to anyone, so links neither depend on nor reveal anything about the api key.
     */
    linkSecret: text('link_secret')
      .notNull()
      .default(sql`replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')`),
    notInSandbox: boolean('not_in_sandbox').notNull().default(false),
    /**
     * The reputation circuit-breaker (core/sending/reputation.ts): when the project's marketing sending was paused
     * (null = sending), why, and when an admin last resumed it (the rates are counted from then on).
     */
    sendingPausedAt: ts('sending_paused_at'),
    sendingPauseReason: text('sending_pause_reason'),
    sendingResumedAt: ts('sending_resumed_at'),
    /**
     * An operator's suspension (core/operator): while set, none of the project's emails is sent (not even test emails),
     * and only an operator lifts it; the reason is shown to the customer.
     */
    sendingSuspendedAt: ts('sending_suspended_at'),
    sendingSuspendReason: text('sending_suspend_reason'),
    /**
     * Retention (core/privacy/retention.ts), in days; null keeps for ever: raw events (reports keep their
     * aggregates), stored copies of sent emails, sign-ups never confirmed, the job log.
     */
    eventsRetentionDays: integer('events_retention_days'),
    copiesRetentionDays: integer('copies_retention_days'),
    unconfirmedRetentionDays: integer('unconfirmed_retention_days'),
    jobLogRetentionDays: integer('job_log_retention_days'),
    /**
     * The sunset policy (core/audience/policies.ts): marketing skips a contact with no human open or click in
     * sunset_days days after at least sunset_min_emails emails; off while either is null (the default).
     */
    sunsetDays: integer('sunset_days'),
    sunsetMinEmails: integer('sunset_min_emails'),
    /**
     * Frequency capping (core/audience/policies.ts): at most frequency_cap_emails marketing emails per contact in
     * frequency_cap_days days, over blasts and workflows; off while either is null (the default).
     */
    frequencyCapEmails: integer('frequency_cap_emails'),
    frequencyCapDays: integer('frequency_cap_days'),
    createdAt: created(),
  },
  (t) => [
    uniqueIndex('projects_api_key_idx').on(t.apiKey),
    uniqueIndex('projects_company_name_idx').on(t.companyId, t.name),
    // Integration keys are x-api-keys too (src/server/core/accounts/index.ts projectByApiKey): unique and looked up by index.
    uniqueIndex('projects_integration_key_idx').on(t.integrationKey),
    uniqueIndex('projects_integration_key2_idx').on(t.integrationKey2),
  ],
);

export const companyUsers = pgTable(
  'company_users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    companyId: uuid('company_id')
      .notNull()
      .references(() => companies.id),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    email: text('email').notNull(),
    firstName: text('first_name'),
    lastName: text('last_name'),
    passwordHash: text('password_hash').notNull(),
    json: jsonb('json').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: created(),
  },
  (t) => [uniqueIndex('cu_le_idx').on(sql`lower(${t.email})`)],
);

export const contacts = pgTable(
  'contacts',
  {
    /** A version-7 UUID (core/contacts/sql/uuid_v7.sql): contacts made together sit together, in id order. */
    id: uuid('id')
      .primaryKey()
      .default(sql`uuid_v7()`),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    email: text('email').notNull(),
    firstName: text('first_name'),
    lastName: text('last_name'),
    timezone: text('timezone'),
    dateOfBirth: ts('date_of_birth'),
    unsubscribedAt: ts('unsubscribed_at'),
    bouncedAt: ts('bounced_at'),
    complainedAt: ts('complained_at'),
    /** Subscription topics the contact left (core/subscriptions): marketing of these topics skips them. */
    unsubscribedTopicIds: uuid('unsubscribed_topic_ids')
      .array()
      .notNull()
      .default(sql`'{}'::uuid[]`),
    /** Set while a subscribe form's double opt-in waits for the contact's click: no marketing mail until then. */
    confirmationPendingAt: ts('confirmation_pending_at'),
    json: jsonb('json').$type<Record<string, unknown>>().notNull().default({}),
    version: integer('version').notNull().default(1),
    createdAt: created(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    archivedAt: ts('archived_at'),
  },
  (t) => [
    uniqueIndex('contacts_project_email_idx')
      .on(t.projectId, sql`lower(${t.email})`)
      .where(sql`archived_at IS NULL`),
    index('contacts_project_created_idx').on(t.projectId, t.createdAt),
  ],
);

/**
 * Each contact's events of its project by name (email_send_result_success, ses_event_open, ses_event_click), kept by
 * the statement triggers on events (migration 0006) whoever writes the events, so the segment filters num_sends,
 * num_opens and num_clicks read one row instead of counting events per contact (src/server/core/segments/filter.ts). A table
 * of its own, not columns of contacts: event writes (the sender's marks) then never lock contact rows, so they cannot
 * deadlock with a contact import or edit that updates the same contacts in another order. No foreign key, for the
 * same reason; a row without its contact is never read (filters join from contacts).
 */
export const contactEventCounts = pgTable('contact_event_counts', {
  contactId: uuid('contact_id').primaryKey(),
  projectId: uuid('project_id').notNull(),
  numSends: integer('num_sends').notNull().default(0),
  numOpens: integer('num_opens').notNull().default(0),
  numClicks: integer('num_clicks').notNull().default(0),
  /** Opens and clicks by people: the events not marked machine (opens) or bot (clicks). */
  numHumanOpens: integer('num_human_opens').notNull().default(0),
  numHumanClicks: integer('num_human_clicks').notNull().default(0),
  /** The contact's latest human open or click (core/audience/policies.ts, the sunset policy); null: none counted. */
  lastEngagedAt: ts('last_engaged_at'),
  /** Emails sent to it since that engagement (or ever), and when the first of them was sent: the sunset policy's clock. */
  sendsSinceEngaged: integer('sends_since_engaged').notNull().default(0),
  unengagedSince: ts('unengaged_since'),
  /** Its human opens by UTC hour of the day (24 counts, index 1 = 00:00-00:59): send-time optimisation's best hour. */
  openHours: integer('open_hours').array(),
  /**
   * The UTC hour (0-23) most of its human opens fell in (the earliest of a tie), null before its first: set from
   * open_hours by a row trigger (core/contacts/sql contact_best_hour) whenever they change, so an expansion reads it.
   */
  bestHour: smallint('best_hour'),
});

export const segments = pgTable(
  'segments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    name: text('name').notNull(),
    invisible: boolean('invisible').notNull().default(false),
    /**
     * A built-in segment the product keeps, not its users: 'sunset', the contacts past the sunset policy
     * (core/audience/policies.ts refreshSunsetSegment). Null for the project's own segments. Its members are not edited by hand.
     */
    builtIn: text('built_in'),
    createdAt: created(),
    archivedAt: ts('archived_at'),
  },
  (t) => [index('segments_project_idx').on(t.projectId, t.createdAt), uniqueIndex('segments_built_in_idx').on(t.projectId, t.builtIn)],
);

export const segmentMembers = pgTable(
  'segment_members',
  {
    segmentId: uuid('segment_id')
      .notNull()
      .references(() => segments.id),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id),
    createdAt: created(),
  },
  (t) => [uniqueIndex('segment_members_pk').on(t.segmentId, t.contactId), index('segment_members_contact_idx').on(t.contactId)],
);

export const senderPersonas = pgTable(
  'sender_personas',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    email: text('email').notNull(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name'),
    json: jsonb('json').$type<Record<string, unknown>>().notNull().default({}),
    version: integer('version').notNull().default(1),
    /**
     * When the address confirmed it is the persona's (the link of the verification email was followed).
     * Null until then, and again after the email changes; sends from the persona fail while it is null.
     */
    verifiedAt: ts('verified_at'),
    createdAt: created(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    archivedAt: ts('archived_at'),
  },
  (t) => [index('sender_personas_project_idx').on(t.projectId)],
);

/**
 * A project's sending domain: its DKIM key pair (2048-bit RSA; the private key PEM never leaves the
 * server) and the verification status of its DKIM, SPF and DMARC records, set by the DNS check (src/server/core/domains/index.ts).
 */
export const sendingDomains = pgTable(
  'sending_domains',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    /** Lower case. */
    domain: text('domain').notNull(),
    dkimSelector: text('dkim_selector').notNull(),
    dkimPrivateKey: text('dkim_private_key').notNull(),
    /** Base64 DER (SubjectPublicKeyInfo), the p= of the DKIM record. */
    dkimPublicKey: text('dkim_public_key').notNull(),
    /** Success | Failed | Pending, for each record. */
    dkimStatus: text('dkim_status').notNull().default('Pending'),
    spfStatus: text('spf_status').notNull().default('Pending'),
    dmarcStatus: text('dmarc_status').notNull().default('Pending'),
    /**
     * The SPF records (v=spf1 TXT) the domain published at the last DNS check, as found; null before the first check.
     * The console merges ours into the one found (a domain may publish only one, RFC 7208 §3.2).
     */
    spfFound: text('spf_found').array(),
    checkedAt: ts('checked_at'),
    /**
     * The bounce subdomain: the domain of each email's per-message return path (VERP), whose MX points
     * at the inbound receiver (INBOUND_MX_HOST). Lower case; null means the default, bounces.<domain>.
     */
    bounceDomain: text('bounce_domain'),
    /** Success | Failed | Pending: its MX record (to INBOUND_MX_HOST) and its SPF record. */
    bounceMxStatus: text('bounce_mx_status').notNull().default('Pending'),
    bounceSpfStatus: text('bounce_spf_status').notNull().default('Pending'),
    /**
     * The UTC day the domain first sent a real email: day 1 of its warm-up (WARMUP_SCHEDULE; core/sending/warmup.ts).
     * Null until then.
     */
    warmupStartedOn: date('warmup_started_on', { mode: 'string' }),
    createdAt: created(),
  },
  (t) => [uniqueIndex('sending_domains_project_domain_idx').on(t.projectId, t.domain)],
);

export const templates = pgTable(
  'templates',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    name: text('name').notNull(),
    subject: text('subject').notNull(),
    type: text('type').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    htmlBody: text('html_body').notNull(),
    plainTextBody: text('plain_text_body'),
    channelId: text('channel_id'),
    /** The subscription topic a marketing template's email belongs to; null: none. */
    topicId: uuid('topic_id'),
    json: jsonb('json').$type<Record<string, unknown> | null>(),
    version: integer('version').notNull().default(1),
    createdAt: created(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    archivedAt: ts('archived_at'),
  },
  (t) => [index('templates_project_idx').on(t.projectId, t.createdAt)],
);

/** A scheduled email blast (the spec's "scheduled email group"). send_at is a wall-clock string; see domain/sendTime. */
export const emailBlasts = pgTable(
  'email_blasts',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    name: text('name').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    templateId: uuid('template_id'),
    templateIdsWithWeights: jsonb('template_ids_with_weights').$type<Array<{ template_id: string; weight: number }>>().notNull().default([]),
    senderPersonaId: uuid('sender_persona_id').notNull(),
    toSegmentIds: jsonb('to_segment_ids').$type<string[]>().notNull().default([]),
    toUserIds: jsonb('to_user_ids').$type<string[]>().notNull().default([]),
    toUserEmails: jsonb('to_user_emails').$type<string[]>().notNull().default([]),
    ccToUserIds: jsonb('cc_to_user_ids').$type<string[]>().notNull().default([]),
    bccToUserIds: jsonb('bcc_to_user_ids').$type<string[]>().notNull().default([]),
    sendAt: text('send_at').notNull(),
    sendAtUtc: ts('send_at_utc'),
    sendInUsersTimezone: boolean('send_in_users_timezone').notNull().default(false),
    timezone: text('timezone').notNull(),
    /** The blast's subscription topic, over its templates'; null: its template's topic, if any. */
    topicId: uuid('topic_id'),
    /**
     * A re-engagement blast: the sunset policy lets its sunset contacts through, once each (core/audience/policies.ts).
     */
    reEngagement: boolean('re_engagement').notNull().default(false),
    /**
     * Send-time optimisation: each contact gets the email at its best hour within 24 h of the blast's instant (its
     * human opens, else the project's, else the instant itself; core/audience/policies.ts).
     */
    sendTimeOptimised: boolean('send_time_optimised').notNull().default(false),
    /** When the blast must be expanded into recipient rows (its instant, or the UTC+14 instant for contact-local). */
    dueAt: ts('due_at').notNull(),
    expandedAt: ts('expanded_at'),
    sentAtPerTimezone: jsonb('sent_at_per_timezone').$type<Record<string, string>>().notNull().default({}),
    /** Audience accounting written at expansion: recipients targeted and excluded by reason (see server/core/blasts/expand.ts). */
    audience: jsonb('audience').$type<{
      targeted: number;
      queued: number;
      excluded: { unsubscribed: number; unconfirmed?: number; bounced: number; suppressed: number; invalid: number; not_a_contact: number };
    } | null>(),
    createdAt: created(),
    disabledAt: ts('disabled_at'),
  },
  (t) => [index('email_blasts_project_idx').on(t.projectId, t.createdAt)],
);

/**
 * One email to one recipient: from a blast (blast_id) or a single send. status moves pending → sending → sent|failed
 * once (or → cancelled when its blast is disabled). claim_token/lease_until fence a sender's claim; message_id is
 * fixed per row so a resend after a crash carries the same Message-ID.
 */
export const outbox = pgTable(
  'outbox',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    blastId: uuid('blast_id'),
    contactId: uuid('contact_id'),
    email: text('email').notNull(),
    templateId: uuid('template_id'),
    senderPersonaId: uuid('sender_persona_id'),
    /** For single sends without a template: subject and body given directly. */
    subject: text('subject'),
    body: text('body'),
    isTest: boolean('is_test').notNull().default(false),
    /**
     * Whether opens and clicks are tracked (pixel, rewritten links, honeypot). False for the double opt-in confirmation
     * email: nobody is tracked before they consent.
     */
    tracking: boolean('tracking').notNull().default(true),
    zone: text('zone'),
    sendAt: ts('send_at').notNull(),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    claimToken: uuid('claim_token'),
    leaseUntil: ts('lease_until'),
    messageId: text('message_id').notNull(),
    location: text('location'),
    /** The relay that accepted the email (its name: scheme, host and port), set when it is sent; feedback about the email counts against it. */
    relay: text('relay'),
    lastError: text('last_error'),
    sentAt: ts('sent_at'),
    /** For an email a workflow's sender node queued: the workflow, the step (one email per step) and hops. */
    workflowId: uuid('workflow_id'),
    workflowStepId: bigint('workflow_step_id', { mode: 'number' }),
    workflowHops: integer('workflow_hops'),
    /** The triggering event of an event-triggered workflow ({{event.<field>}}, {{event.json.<key>}}), else null. */
    event: jsonb('event').$type<Record<string, unknown> | null>(),
    /**
     * The message stream it goes out on (core/sending/streams.ts): 'broadcast' (blasts, workflows; unsubscribes stop
     * it), 'transactional', or a stream the project added. Decides tracking, relays and whether opt-outs apply.
     */
    stream: text('stream').notNull().default('broadcast'),
    /** For an email sent through the sending API or SMTP submission: its submission (content, tags, metadata), else null. */
    submissionId: uuid('submission_id'),
    /**
     * For a blast with send-time optimisation: where its send hour came from — 'contact' (the contact's own best
     * hour), 'project' (the project's) or 'chosen' (the blast's instant); null otherwise. The campaign report compares them.
     */
    sendTimeSource: text('send_time_source'),
    createdAt: created(),
  },
  (t) => [
    // The message activity list (core/messages): a project's emails, newest first (by id, its cursor).
    index('outbox_project_id_idx').on(t.projectId, t.id),
    uniqueIndex('outbox_blast_contact_idx').on(t.blastId, t.contactId),
    uniqueIndex('outbox_workflow_step_idx')
      .on(t.workflowStepId)
      .where(sql`workflow_step_id IS NOT NULL`),
    index('outbox_due_idx')
      .on(t.status, t.nextAttemptAt)
      .where(sql`status IN ('pending', 'sending')`),
    // Per-provider claims (core/sending CLAIM_DUE_FOR_DOMAINS): the due rows of a rate-limited mailbox
    // provider's domains, found without scanning every pending row of the other providers.
    index('outbox_due_domain_idx')
      .on(sql`lower(split_part(${t.email}, '@', -1))`, t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    index('outbox_blast_idx').on(t.blastId, t.status),
    // A bounce or complaint names its email by Message-ID (core/feedback SENT_ROW_BY_MESSAGE_ID): an index probe, not a scan of the outbox.
    index('outbox_message_id_idx').on(t.messageId),
    // A contact's emails other than test emails, by send time (core/audience/policies.ts: frequency capping over every
    // stream of kind broadcast, re-engagement once).
    index('outbox_contact_sends_idx')
      .on(t.contactId, t.sendAt)
      .where(sql`contact_id IS NOT NULL AND NOT is_test`),
  ],
);

/** The event names the segment filters count (as SQL text for the partial indexes below). */
const COUNTED_EVENTS = sql.raw(`'${EVENT.sendSuccess}', '${EVENT.open}', '${EVENT.click}'`);
/** Opens and clicks (as SQL text for the recent-engagement indexes below). */
const ENGAGEMENT_EVENTS = sql.raw(`'${EVENT.open}', '${EVENT.click}'`);
const WORKFLOW_EVENTS = sql.raw(`'${EVENT.workflowStarted}', '${EVENT.workflowCompleted}'`);

/**
 * Events, partitioned by month of emitted_at (migration 0031, core/events/partitions.ts): one table per UTC month
 * (events_yYYYYmMM, made a few months ahead) and events_default for anything outside them, so retention drops a month as a
 * table. The key is (id, emitted_at), as a partitioned table's must include its partition key.
 */
export const events = pgTable(
  'events',
  {
    id: uuid('id').notNull().defaultRandom(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    name: text('name').notNull(),
    email: text('email'),
    userId: uuid('user_id'),
    emittedAt: ts('emitted_at').notNull().defaultNow(),
    createdAt: created(),
    metric1: doublePrecision('metric1'),
    metric2: doublePrecision('metric2'),
    metric3: doublePrecision('metric3'),
    isSystem: boolean('is_system').notNull().default(false),
    blastId: uuid('blast_id'),
    templateId: uuid('template_id'),
    json: jsonb('json').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.emittedAt] }),
    index('events_project_emitted_idx').on(t.projectId, t.emittedAt),
    index('events_project_name_idx').on(t.projectId, t.name, t.emittedAt),
    // The segment filters counted per blast, template or workflow (src/server/core/segments/filter.ts; a campaign's through
    // its associations): the events of one of them by name, in contact order, answered from the index alone.
    index('events_blast_contact_idx')
      .on(t.blastId, t.name, t.userId, t.projectId)
      .where(sql`blast_id IS NOT NULL AND name IN (${COUNTED_EVENTS})`),
    index('events_template_contact_idx')
      .on(t.templateId, t.name, t.userId, t.projectId)
      .where(sql`template_id IS NOT NULL AND name IN (${COUNTED_EVENTS})`),
    index('events_workflow_contact_idx')
      .on(sql`(json->>'workflow_id')`, t.name, t.userId, t.projectId, t.emittedAt)
      .where(sql`(json->>'workflow_id') IS NOT NULL AND name IN (${COUNTED_EVENTS}, ${WORKFLOW_EVENTS})`),
    // The recently opened / clicked reports of one campaign: the newest opens and clicks of a blast, template
    // or workflow, read backwards. Opens and clicks only, so the sender's writes (sends) do not pay for them.
    index('events_blast_recent_idx')
      .on(t.blastId, t.name, t.emittedAt)
      .where(sql`blast_id IS NOT NULL AND name IN (${ENGAGEMENT_EVENTS})`),
    index('events_template_recent_idx')
      .on(t.templateId, t.name, t.emittedAt)
      .where(sql`template_id IS NOT NULL AND name IN (${ENGAGEMENT_EVENTS})`),
    // An email's opens and clicks so far: the tracking endpoint reads them to tell a proxy's refetch and a
    // scanner's burst of clicks from a person (src/domain/engagement.ts).
    index('events_message_engagement_idx')
      .on(sql`(json->>'message_id')`)
      .where(sql`name IN (${ENGAGEMENT_EVENTS})`),
    // Returned mail: whether an email was already bounced or complained about (one report counts once), and an
    // address's soft bounces since its last open or click by a person (SOFT_BOUNCE_LIMIT), without a project's scan.
    index('events_feedback_message_idx')
      .on(sql`(json->>'message_id')`, t.name)
      .where(sql`name IN ('ses_event_bounce', 'ses_event_complaint')`),
    index('events_address_feedback_idx')
      .on(t.projectId, sql`lower(email)`, t.name, t.emittedAt)
      .where(sql`name IN ('ses_event_bounce', 'ses_event_open', 'ses_event_click')`),
    index('events_workflow_recent_idx')
      .on(sql`(json->>'workflow_id')`, t.name, t.emittedAt)
      .where(sql`(json->>'workflow_id') IS NOT NULL AND name IN (${ENGAGEMENT_EVENTS})`),
  ],
);

/**
 * A campaign (spec part 2 §3 Campaign): a name and type over email blasts (scheduled email groups), workflows or
 * templates. Its reports are the events of those blasts, workflows and templates, read through these associations at
 * report time, so a campaign made after its blasts were sent still counts their events.
 */
export const campaigns = pgTable(
  'campaigns',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    name: text('name').notNull(),
    /** '' | workflow | scheduled_email_group | template | a_b_test (src/domain/campaigns.ts). */
    type: text('type').notNull().default(''),
    blastIds: uuid('scheduled_email_blast_group_ids')
      .array()
      .notNull()
      .default(sql`'{}'::uuid[]`),
    workflowIds: uuid('workflow_ids')
      .array()
      .notNull()
      .default(sql`'{}'::uuid[]`),
    templateIds: uuid('template_ids')
      .array()
      .notNull()
      .default(sql`'{}'::uuid[]`),
    createdAt: created(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    archivedAt: ts('archived_at'),
  },
  (t) => [
    index('campaigns_project_idx').on(t.projectId, t.createdAt),
    // Names are unique among a project's live campaigns (the wizard's 'A campaign with this name already exists').
    uniqueIndex('campaigns_project_name_idx')
      .on(t.projectId, sql`lower(${t.name})`)
      .where(sql`archived_at IS NULL`),
  ],
);

/*
 * Report aggregates (docs/architecture.md §14). The triggers on events (migration 0007) add one row per
 * statement and key to these tables ("deltas", merged = false) without touching any existing row, so writers never
 * wait on each other; the workers' compaction folds deltas into one merged row per key. Readers sum both (the
 * report_*_v views). Keys: the event's blast, template and workflow (the zero UUID / '' for none), so a campaign's
 * numbers are the sum over its associations. num counts events; num_unique counts the emails (message ids) for which
 * that event was the first of its name (or, for links, the first click on that link).
 */
const zeroUuid = sql`'00000000-0000-0000-0000-000000000000'::uuid`;
const reportKeys = () => ({
  projectId: uuid('project_id').notNull(),
  blastId: uuid('blast_id').notNull().default(zeroUuid),
  templateId: uuid('template_id').notNull().default(zeroUuid),
  workflowId: text('workflow_id').notNull().default(''),
  merged: boolean('merged').notNull().default(false),
});

/** Event counts per UTC hour and name: the sends reports' series. */
export const reportCounts = pgTable(
  'report_counts',
  {
    ...reportKeys(),
    hour: ts('hour').notNull(),
    name: text('name').notNull(),
    num: bigint('num', { mode: 'number' }).notNull(),
    numUnique: bigint('num_unique', { mode: 'number' }).notNull(),
    numHuman: bigint('num_human', { mode: 'number' }).notNull().default(0),
    numUniqueHuman: bigint('num_unique_human', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    uniqueIndex('report_counts_key_idx')
      .on(t.projectId, t.hour, t.name, t.blastId, t.templateId, t.workflowId)
      .where(sql`merged`),
    index('report_counts_delta_idx')
      .on(t.projectId, t.hour)
      .where(sql`NOT merged`),
  ],
);

/** Event counts per name over all time: quickstats, campaign metrics, most-opened emails. */
export const reportTotals = pgTable(
  'report_totals',
  {
    ...reportKeys(),
    name: text('name').notNull(),
    num: bigint('num', { mode: 'number' }).notNull(),
    numUnique: bigint('num_unique', { mode: 'number' }).notNull(),
    numHuman: bigint('num_human', { mode: 'number' }).notNull().default(0),
    numUniqueHuman: bigint('num_unique_human', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    uniqueIndex('report_totals_key_idx')
      .on(t.projectId, t.name, t.blastId, t.templateId, t.workflowId)
      .where(sql`merged`),
    index('report_totals_delta_idx')
      .on(t.projectId)
      .where(sql`NOT merged`),
  ],
);

/** Clicks per link: the most-clicked links report. link_hash is md5(link) as a UUID (links can be long). */
export const reportLinks = pgTable(
  'report_links',
  {
    ...reportKeys(),
    linkHash: uuid('link_hash').notNull(),
    link: text('link').notNull(),
    num: bigint('num', { mode: 'number' }).notNull(),
    numUnique: bigint('num_unique', { mode: 'number' }).notNull(),
    numHuman: bigint('num_human', { mode: 'number' }).notNull().default(0),
    numUniqueHuman: bigint('num_unique_human', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    uniqueIndex('report_links_key_idx')
      .on(t.projectId, t.linkHash, t.blastId, t.templateId, t.workflowId)
      .where(sql`merged`),
    index('report_links_delta_idx')
      .on(t.projectId)
      .where(sql`NOT merged`),
  ],
);

/**
 * Opens and clicks per source (kind 'user_agent' or 'to_domain'): the opens-by-source report. The unique counts go
 * to the source of each email's first open (or click), so they sum to the report's unique totals.
 */
export const reportSources = pgTable(
  'report_sources',
  {
    ...reportKeys(),
    kind: text('kind').notNull(),
    valueHash: uuid('value_hash').notNull(),
    value: text('value').notNull(),
    numOpens: bigint('num_opens', { mode: 'number' }).notNull(),
    numUniqueOpens: bigint('num_unique_opens', { mode: 'number' }).notNull(),
    numClicks: bigint('num_clicks', { mode: 'number' }).notNull(),
    numUniqueClicks: bigint('num_unique_clicks', { mode: 'number' }).notNull(),
    numHumanOpens: bigint('num_human_opens', { mode: 'number' }).notNull().default(0),
    numUniqueHumanOpens: bigint('num_unique_human_opens', { mode: 'number' }).notNull().default(0),
    numHumanClicks: bigint('num_human_clicks', { mode: 'number' }).notNull().default(0),
    numUniqueHumanClicks: bigint('num_unique_human_clicks', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    uniqueIndex('report_sources_key_idx')
      .on(t.projectId, t.kind, t.valueHash, t.blastId, t.templateId, t.workflowId)
      .where(sql`merged`),
    index('report_sources_delta_idx')
      .on(t.projectId, t.kind)
      .where(sql`NOT merged`),
  ],
);

/**
 * The first occurrences already counted as unique: one row per (email, kind), kind being an event name,
 * 'link:' || md5(link), or either prefixed 'human:' for the first open or click by a person. An insert that
 * conflicts means the event is a repeat.
 */
export const reportFirsts = pgTable(
  'report_firsts',
  {
    projectId: uuid('project_id').notNull(),
    messageKey: text('message_key').notNull(),
    kind: text('kind').notNull(),
    /** The event that claimed it: a human first ('human:' kinds) is released when its event is marked machine or bot. */
    eventId: uuid('event_id'),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.messageKey, t.kind] })],
);

/**
 * A workflow (spec part 2 §3 Workflow): the editor's display graph and the tree it runs (root_node). The
 * trigger is copied out of the tree (trigger_type, trigger_event) so the events trigger finds the workflows an event
 * enters by index. A disabled workflow takes no new contacts; an archived one also ends its runs.
 */
export const workflows = pgTable(
  'workflows',
  {
    id: uuid('id').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    name: text('name').notNull(),
    display: jsonb('display').$type<Record<string, unknown>>().notNull().default({}),
    rootNode: jsonb('root_node').$type<Record<string, unknown> | null>(),
    /** root | event | user_upserted. */
    triggerType: text('trigger_type').notNull(),
    triggerEvent: text('trigger_event'),
    enabled: boolean('enabled').notNull().default(true),
    version: integer('version').notNull().default(1),
    jobLogId: uuid('job_log_id'),
    createdAt: created(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
    disabledAt: ts('disabled_at'),
    archivedAt: ts('archived_at'),
  },
  (t) => [
    index('workflows_project_idx').on(t.projectId, t.createdAt),
    index('workflows_trigger_idx')
      .on(t.projectId, t.triggerType, t.triggerEvent)
      .where(sql`enabled AND archived_at IS NULL`),
  ],
);

/**
 * One contact's pass through a workflow: who, entered by which event (unique per workflow: an event
 * enters a workflow once), the event itself for {{event.*}}, how many workflow hand-offs led here, and its state
 * (active, completed, excluded by a delay-until, ended by an archive or a missing node).
 */
export const workflowRuns = pgTable(
  'workflow_runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id').notNull(),
    workflowId: uuid('workflow_id').notNull(),
    contactId: uuid('contact_id'),
    email: text('email'),
    triggerEventId: uuid('trigger_event_id'),
    event: jsonb('event').$type<Record<string, unknown> | null>(),
    hops: integer('hops').notNull().default(0),
    status: text('status').notNull().default('active'),
    createdAt: created(),
    endedAt: ts('ended_at'),
  },
  (t) => [
    uniqueIndex('workflow_runs_event_idx')
      .on(t.workflowId, t.triggerEventId)
      .where(sql`trigger_event_id IS NOT NULL`),
    index('workflow_runs_workflow_idx').on(t.workflowId, t.createdAt),
    index('workflow_runs_contact_idx').on(t.contactId, t.createdAt),
  ],
);

/**
 * The steps of runs: the engine's queue and each contact's recorded path. A step runs one node for one run, once
 * (unique on run and node; pending → running → done | failed | cancelled, claimed with a token and a lease like the
 * outbox). `outcome` records what it did (e.g. match, no match, queued email 42, excluded).
 */
export const workflowSteps = pgTable(
  'workflow_steps',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    projectId: uuid('project_id').notNull(),
    runId: uuid('run_id').notNull(),
    workflowId: uuid('workflow_id').notNull(),
    nodeId: text('node_id').notNull(),
    dueAt: ts('due_at').notNull(),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    claimToken: uuid('claim_token'),
    leaseUntil: ts('lease_until'),
    outcome: text('outcome'),
    executedAt: ts('executed_at'),
    createdAt: created(),
  },
  (t) => [
    uniqueIndex('workflow_steps_run_node_idx').on(t.runId, t.nodeId),
    index('workflow_steps_due_idx')
      .on(t.dueAt)
      .where(sql`status IN ('pending', 'running')`),
    index('workflow_steps_workflow_idx').on(t.workflowId, t.status),
  ],
);

export const jobLog = pgTable(
  'job_log',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    jobName: text('job_name').notNull(),
    startedAt: ts('started_at').notNull().defaultNow(),
    endedAt: ts('ended_at'),
    success: boolean('success'),
    startDetails: jsonb('start_details').$type<Record<string, unknown>>().notNull().default({}),
    endDetails: jsonb('end_details').$type<Record<string, unknown> | null>(),
  },
  (t) => [index('job_log_project_idx').on(t.projectId, t.startedAt)],
);

/**
 * The project's suppression list: addresses that hard-bounced or complained are never mailed again. `email`
 * is stored lower-case; `reason` is 'bounce' or 'complaint'; `detail` the diagnostic code or feedback type.
 */
export const suppressions = pgTable(
  'suppressions',
  {
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    email: text('email').notNull(),
    reason: text('reason').notNull(),
    detail: text('detail'),
    createdAt: created(),
  },
  (t) => [uniqueIndex('suppressions_project_email_idx').on(t.projectId, t.email)],
);

/**
 * Idempotency keys of the public events API: a retried batch with the same key returns the stored response and
 * stores nothing again. Kept 24 hours.
 */
export const eventBatches = pgTable(
  'event_batches',
  {
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    idempotencyKey: text('idempotency_key').notNull(),
    /** SHA-256 (hex) of the request the key was first used for (RFC 8785 canonical JSON); null where any request with the key is the same one (SNS MessageIds). */
    requestHash: text('request_hash'),
    response: jsonb('response').$type<Record<string, unknown>>().notNull(),
    /** True while the first request with the key is still being handled (the sending API answers a repeat 409). */
    inFlight: boolean('in_flight').notNull().default(false),
    createdAt: created(),
  },
  (t) => [uniqueIndex('event_batches_project_key_idx').on(t.projectId, t.idempotencyKey)],
);

/**
 * Messages from the public contact form (spec part 1 §3 Contact message). Not tenant data: visitors are
 * not signed in. Operators read them with `npm run admin -- contact-messages`.
 */
export const contactMessages = pgTable(
  'contact_messages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    name: text('name'),
    details: text('details').notNull(),
    /** The sender's IP address as the server saw it. */
    ip: text('ip'),
    /** 'contact' (the public contact form) or 'activation' (the console's activation request). */
    kind: text('kind').notNull().default('contact'),
    /** The signed-in project an activation request comes from. */
    projectId: uuid('project_id').references(() => projects.id),
    /** An activation request's answers: expected_monthly_volume, sending_domain, use_case. */
    json: jsonb('json').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: created(),
  },
  (t) => [
    index('contact_messages_email_idx').on(sql`lower(${t.email})`),
    index('contact_messages_created_idx').on(t.createdAt),
    index('contact_messages_project_idx').on(t.projectId),
  ],
);

/**
 * The people who run the service: they sign in at /operator, never with a customer's key or session.
 * Created by `npm run admin -- create-operator`; `password_hash` is bcrypt.
 */
export const operators = pgTable(
  'operators',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    createdAt: created(),
  },
  (t) => [uniqueIndex('operators_email_idx').on(sql`lower(${t.email})`)],
);

/** Operator sessions: the SHA-256 (hex) of the mw_operator cookie's token, so a leaked table signs nobody in. */
export const operatorSessions = pgTable(
  'operator_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    operatorId: uuid('operator_id')
      .notNull()
      .references(() => operators.id, { onDelete: 'cascade' }),
    createdAt: created(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('operator_sessions_operator_idx').on(t.operatorId)],
);

/**
 * The operators' audit log: every operator action, from the back-office or the CLI — who (`actor`: the
 * operator's email, or `cli` with the OS user), what (`action`, the target), when, and the target's state before and after.
 */
export const operatorAudit = pgTable(
  'operator_audit',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    actor: text('actor').notNull(),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    projectId: uuid('project_id').references(() => projects.id),
    before: jsonb('before').$type<Record<string, unknown> | null>(),
    after: jsonb('after').$type<Record<string, unknown> | null>(),
    createdAt: created(),
  },
  (t) => [index('operator_audit_created_idx').on(t.createdAt), index('operator_audit_project_idx').on(t.projectId, t.createdAt)],
);

/** Visitors who signed in to the shared demo account: their email and consent to the terms, with when. */
export const demoLogins = pgTable('demo_logins', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  email: text('email').notNull(),
  ip: text('ip'),
  createdAt: created(),
});

/**
 * Upload URLs that have been used: a pre-signed upload URL is good for one upload. The PUT claims its
 * URL here before storing anything (the primary key is the atomic check, so two PUTs at once cannot both store); a
 * refused upload (wrong type, too large, empty) releases its claim so the same URL can be tried again; a stored one
 * keeps it, and every later PUT answers 410. Rows are kept until the URL has expired (expires_at), then deleted.
 */
export const usedUploadUrls = pgTable(
  'used_upload_urls',
  {
    /** SHA-256 (hex) of the upload token. */
    tokenHash: text('token_hash').primaryKey(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    /** When the URL stops being valid anyway; the row is not needed after it. */
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at').notNull().defaultNow(),
  },
  (t) => [index('used_upload_urls_expires_idx').on(t.expiresAt)],
);

/**
 * Counters of rate-limiter-flexible's drizzle store (RateLimiterDrizzle): failed sign-ins per client
 * address and per account, shared by every server process on the database and kept across restarts. `key` is the
 * limiter's prefix and the counted thing (e.g. `login-ip:203.0.113.9`), `points` the failures in the window that ends
 * at `expire`.
 */
export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  points: integer('points').notNull().default(0),
  expire: ts('expire'),
});

/**
 * The pacing of each relay with a rate limit (SMTP_URL `max_rate`; core/sending/pacing.ts): the instant from which
 * the relay's next send slot is free. Every sender process reserves its slots here, so together they never send
 * faster than the limit; the row survives restarts. It also keeps what GET {scheduler}/sending_status shows of the
 * relay: its pace, and whether a sender took it for down.
 */
export const relayPacing = pgTable('relay_pacing', {
  /** The relay's name (scheme, host and port of its URL: no credentials). */
  relay: text('relay').primaryKey(),
  nextAt: ts('next_at').notNull(),
  /** The pace (messages/s) the last reserving process sent at: max_rate, or less after throttling answers (AIMD). */
  rate: doublePrecision('rate'),
  /** Until when a sender took the relay for down (it refused a connection or a session), and why; null when up. */
  downUntil: ts('down_until'),
  downReason: text('down_reason'),
});

/**
 * Real emails sent per UTC day under a daily cap (core/sending/dailyCaps.ts): a sending domain's warm-up
 * (`domain:<id>`) and a relay's daily_quota (`relay:<name>`). A sender takes one unit per email with one conditional
 * statement, so all processes together never exceed the day's cap.
 */
export const dailySends = pgTable(
  'daily_sends',
  {
    /** What is capped: `domain:<sending domain id>` or `relay:<relay name>`. */
    key: text('key').notNull(),
    /** The UTC day. */
    day: date('day', { mode: 'string' }).notNull(),
    sent: integer('sent').notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.day] })],
);

/**
 * Connection shares (core/sending/connections.ts, core/sending/sql/share_connections.sql): how many connections each
 * sender process may hold to a relay with max_connections (`relay:<name>`) or a provider group with one
 * (`provider:<group>`), so that together they stay within the limit. A lease renewed every second.
 */
export const connectionShares = pgTable(
  'connection_shares',
  {
    key: text('key').notNull(),
    /** The sender process (a random id per process). */
    holder: text('holder').notNull(),
    /** Connections it may use, or has open if more (while its share shrinks). */
    slots: integer('slots').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.holder] })],
);

/**
 * What an email provider's feedback webhook must prove for a project (POST {event}/feedback/{provider}/…): Postmark's
 * user:password, Mailgun's signing key, SendGrid's verification (public) key, Brevo's token, Resend's whsec_ secret.
 * One per project and provider.
 */
export const feedbackIntegrations = pgTable(
  'feedback_integrations',
  {
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    provider: text('provider').notNull(),
    secret: text('secret').notNull(),
    updatedAt: ts('updated_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.provider] })],
);

/**
 * A project's webhook endpoints (core/webhooks): where delivery and contact events are POSTed, signed per
 * the Standard Webhooks specification with `secret` (whsec_…). `failing_since`: the first failed attempt since the
 * last success (null while healthy); an endpoint failing for WEBHOOK_DISABLE_AFTER is disabled (`disabled_at`, why).
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    url: text('url').notNull(),
    description: text('description').notNull().default(''),
    eventTypes: text('event_types').array().notNull(),
    secret: text('secret').notNull(),
    disabledAt: ts('disabled_at'),
    disabledReason: text('disabled_reason'),
    failingSince: ts('failing_since'),
    /** The last failed attempt: a failure long after it (past the longest retry wait) starts a new failing period. */
    lastFailureAt: ts('last_failure_at'),
    createdAt: created(),
    archivedAt: ts('archived_at'),
  },
  (t) => [index('webhook_endpoints_project_idx').on(t.projectId)],
);

/**
 * One message to one endpoint: written by the triggers on events and contacts in the same transaction
 * as what it reports (core/webhooks/sql/webhooks.sql), then delivered by the worker processes (workers/webhooks.ts).
 * `id` is the Standard Webhooks `webhook-id` (msg_…), the same on every attempt; `contact_key` orders a contact's
 * messages (one in flight per endpoint and contact, in `seq` order). status: pending → delivered | failed.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    seq: bigserial('seq', { mode: 'number' }).notNull(),
    projectId: uuid('project_id').notNull(),
    endpointId: uuid('endpoint_id').notNull(),
    eventType: text('event_type').notNull(),
    contactKey: text('contact_key').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    status: text('status').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: ts('next_attempt_at').notNull().defaultNow(),
    /** When its retry window starts: created_at, or the moment it was resent by hand. */
    retryFrom: ts('retry_from'),
    claimToken: uuid('claim_token'),
    leaseUntil: ts('lease_until'),
    lastAttemptAt: ts('last_attempt_at'),
    lastStatusCode: integer('last_status_code'),
    lastResponse: text('last_response'),
    lastLatencyMs: integer('last_latency_ms'),
    deliveredAt: ts('delivered_at'),
    createdAt: created(),
  },
  (t) => [
    // A message's webhook deliveries, for its activity timeline (core/messages).
    index('webhook_deliveries_message_idx')
      .on(sql`(payload->'data'->>'message_id')`)
      .where(sql`(payload->'data'->>'message_id') IS NOT NULL`),
    index('webhook_deliveries_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    index('webhook_deliveries_order_idx')
      .on(t.endpointId, t.contactKey, t.seq)
      .where(sql`status = 'pending'`),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.seq),
  ],
);

/** A project's subscription topics (core/subscriptions): "Product news", "Weekly digest". */
export const topics = pgTable(
  'topics',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    createdAt: created(),
    archivedAt: ts('archived_at'),
  },
  (t) => [
    uniqueIndex('topics_project_name_idx')
      .on(t.projectId, sql`lower(${t.name})`)
      .where(sql`archived_at IS NULL`),
  ],
);

/**
 * Hosted subscribe forms (core/subscriptions): a submission at /s/{id} adds the address to `segment_id`
 * after it confirms by email (double opt-in, mailed from `sender_persona_id`); `consent_text` is what the form shows
 * and what the consent record keeps; unconfirmed contacts are removed after `unconfirmed_days`.
 */
export const subscribeForms = pgTable(
  'subscribe_forms',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    name: text('name').notNull(),
    segmentId: uuid('segment_id').notNull(),
    senderPersonaId: uuid('sender_persona_id').notNull(),
    heading: text('heading').notNull(),
    consentText: text('consent_text').notNull(),
    unconfirmedDays: integer('unconfirmed_days').notNull().default(7),
    createdAt: created(),
    archivedAt: ts('archived_at'),
  },
  (t) => [index('subscribe_forms_project_idx').on(t.projectId)],
);

/**
 * Consent records: one per form submission — when, from where (IP, user agent), on which form and the
 * text shown — and when and from where the confirmation link's button was pressed.
 */
export const consents = pgTable(
  'consents',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id').notNull(),
    contactId: uuid('contact_id').notNull(),
    /** The subscribe form it was given on; null for consent recorded by an import (`source`). */
    formId: uuid('form_id'),
    email: text('email').notNull(),
    consentText: text('consent_text').notNull(),
    /** 'form' (a subscribe form, double opt-in), or 'import:<file name>' (an import's "these people gave consent again"). */
    source: text('source').notNull().default('form'),
    /** Who recorded consent given outside a form (the person who ran the import); null for a form. */
    recordedBy: text('recorded_by'),
    submittedAt: ts('submitted_at').notNull().defaultNow(),
    submittedIp: text('submitted_ip'),
    submittedUserAgent: text('submitted_user_agent'),
    confirmedAt: ts('confirmed_at'),
    confirmedIp: text('confirmed_ip'),
    confirmedUserAgent: text('confirmed_user_agent'),
  },
  (t) => [index('consents_contact_idx').on(t.contactId, t.submittedAt)],
);

/**
 * A project's message streams beyond the two every project has (`transactional` and `broadcast`, whose defaults
 * apply until a row changes them): core/sending/streams.ts. `kind` decides whether unsubscribes and topic opt-outs
 * stop its mail (broadcast) or not (transactional); `tracking` whether its emails track opens and clicks.
 */
export const messageStreams = pgTable(
  'message_streams',
  {
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    name: text('name').notNull(),
    kind: text('kind').notNull(),
    tracking: boolean('tracking').notNull(),
    description: text('description').notNull().default(''),
    createdAt: created(),
  },
  (t) => [uniqueIndex('message_streams_project_name_idx').on(t.projectId, t.name)],
);

/**
 * SMTP submission credentials (core/sending/smtpCredentials.ts): a generated user name and a random password shown
 * once, stored as its SHA-256 (the password is 32 random bytes, so a slow hash adds nothing); revoked credentials are
 * kept so the activity can still name them.
 */
export const smtpCredentials = pgTable(
  'smtp_credentials',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    name: text('name').notNull(),
    username: text('username').notNull(),
    secretHash: text('secret_hash').notNull(),
    stream: text('stream').notNull().default('transactional'),
    ratePerMinute: integer('rate_per_minute').notNull().default(600),
    createdAt: created(),
    lastUsedAt: ts('last_used_at'),
    revokedAt: ts('revoked_at'),
  },
  (t) => [uniqueIndex('smtp_credentials_username_idx').on(t.username), index('smtp_credentials_project_idx').on(t.projectId)],
);

/**
 * One message handed in through the sending API or SMTP submission (core/sending/submission.ts): its content as
 * composed for every recipient (From, the To and Cc header lists, Reply-To, subject, HTML, text, extra headers,
 * attachments in base64), tags and metadata. Each recipient's copy is an outbox row naming it.
 */
export const submissions = pgTable(
  'submissions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    /** 'api' or 'smtp'. */
    source: text('source').notNull(),
    credentialId: uuid('credential_id'),
    content: jsonb('content').$type<Record<string, unknown>>().notNull(),
    tags: text('tags')
      .array()
      .notNull()
      .default(sql`'{}'`),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull().default({}),
    createdAt: created(),
  },
  // No index but the key: a submission is read only through its outbox rows (every index is paid per message; bench:submission).
);

/**
 * Each time a claimed email went back to wait (a relay's 4xx, a refused connection, a time-out, a daily cap), with the
 * reason: the message activity's timeline (core/messages). Written by a row trigger on outbox
 * (core/sending/sql/message_attempts.sql); a send and a failure are events (the relay's answer, the reason).
 */
export const messageAttempts = pgTable(
  'message_attempts',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    outboxId: bigint('outbox_id', { mode: 'number' }).notNull(),
    projectId: uuid('project_id').notNull(),
    outcome: text('outcome').notNull(),
    detail: text('detail'),
    attempts: integer('attempts').notNull(),
    at: ts('at').notNull().defaultNow(),
  },
  (t) => [index('message_attempts_outbox_idx').on(t.outboxId)],
);

/**
 * Tombstones of erased people (core/privacy/erasure.ts): the HMAC-SHA256 of an erased address, normalised, under the
 * install's ERASURE_KEY, so the address itself is never stored again. Imports, the contacts API, subscribe forms and
 * sends look an address's hash up here and skip it; the person's own form submission removes it.
 */
export const erasures = pgTable(
  'erasures',
  {
    projectId: uuid('project_id').notNull(),
    addressHash: text('address_hash').notNull(),
    erasedAt: ts('erased_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.addressHash] })],
);

/**
 * The record of each privacy operation (an erasure, an export): who asked, when, how many; never an address. An
 * erasure's consents go here without the address (their times, form, text and where they came from).
 */
export const privacyAudit = pgTable(
  'privacy_audit',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    projectId: uuid('project_id').notNull(),
    /** 'erase' or 'export'. */
    action: text('action').notNull(),
    /** Who asked: 'api', 'console:<user id>', 'the person' (the preference centre). */
    actor: text('actor').notNull(),
    contacts: integer('contacts').notNull().default(0),
    addresses: integer('addresses').notNull().default(0),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    at: ts('at').notNull().defaultNow(),
  },
  (t) => [index('privacy_audit_project_idx').on(t.projectId, t.at)],
);

/**
 * A DMARC aggregate report (RFC 7489 §7.2, Appendix C) a receiver sent to dmarc@<bounce subdomain> about one of the
 * project's sending domains (core/domains/dmarc.ts): the reporter, its report id (one row per reporter and id: a
 * report sent twice is kept once), the period it covers (UTC) and the policy it found published.
 */
export const dmarcReports = pgTable(
  'dmarc_reports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    projectId: uuid('project_id')
      .notNull()
      .references(() => projects.id),
    /** The sending domain the report is about (its policy_published domain, lower case). */
    domain: text('domain').notNull(),
    orgName: text('org_name').notNull(),
    orgEmail: text('org_email'),
    reportId: text('report_id').notNull(),
    beginAt: ts('begin_at').notNull(),
    endAt: ts('end_at').notNull(),
    /** policy_published: p, sp, pct, adkim, aspf as reported. */
    policy: jsonb('policy').$type<Record<string, string>>().notNull().default({}),
    receivedAt: ts('received_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('dmarc_reports_reporter_idx').on(t.projectId, t.orgName, t.reportId),
    index('dmarc_reports_domain_idx').on(t.projectId, t.domain, t.beginAt),
  ],
);

/**
 * One row of a DMARC aggregate report: `count` messages from `source_ip` with header From `header_from`, the
 * receiver's disposition (none, quarantine, reject) and its DMARC evaluation (`dkim`, `spf`: pass or fail, i.e.
 * aligned and passing), with the raw DKIM and SPF results (auth_results: the first of each) for the failing sources.
 */
export const dmarcRecords = pgTable(
  'dmarc_records',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    reportId: uuid('report_id')
      .notNull()
      .references(() => dmarcReports.id, { onDelete: 'cascade' }),
    projectId: uuid('project_id').notNull(),
    domain: text('domain').notNull(),
    /** The UTC day the report's period begins on. */
    day: date('day').notNull(),
    sourceIp: text('source_ip').notNull(),
    count: integer('count').notNull(),
    headerFrom: text('header_from').notNull(),
    disposition: text('disposition').notNull(),
    dkim: text('dkim').notNull(),
    spf: text('spf').notNull(),
    dkimDomain: text('dkim_domain'),
    dkimResult: text('dkim_result'),
    spfDomain: text('spf_domain'),
    spfResult: text('spf_result'),
  },
  (t) => [index('dmarc_records_domain_day_idx').on(t.projectId, t.domain, t.day), index('dmarc_records_report_idx').on(t.reportId)],
);
