/**
 * The shared demo account (spec part 1 §1, §2 /demo-login, §6): visitors sign in to it from /demo-login
 * without a password after giving an email and accepting the terms, and its data is put back to one known state on a
 * schedule (Config.demoResetCron, pg-boss cron) so one visitor cannot spoil it for the next.
 */
import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import { queryOf, type Db } from '../../db/client.ts';
import {
  campaigns,
  companyUsers,
  contactEventCounts,
  contacts,
  demoLogins,
  emailBlasts,
  eventBatches,
  events,
  jobLog,
  outbox,
  smtpCredentials,
  messageStreams,
  messageAttempts,
  submissions,
  projects,
  segmentMembers,
  segments,
  senderPersonas,
  suppressions,
  templates,
  webhookDeliveries,
  webhookEndpoints,
  consents,
  subscribeForms,
  topics,
} from '../../db/schema.ts';
import { DEMO_ACCOUNT, createAccount, sessionForAdmin, type Session } from './index.ts';
import { upsertContacts } from '../contacts/index.ts';
import { savePersonas } from '../personas/index.ts';
import { saveTemplates } from '../templates/index.ts';
import { SIMULATOR_SUCCESS_ADDRESS } from '../../../domain/sandbox.ts';

/** The demo account's known contents: what a visitor finds after every reset. */
export const DEMO_CONTENT = {
  persona: { first_name: 'Demo', last_name: 'Sender', email: SIMULATOR_SUCCESS_ADDRESS },
  contacts: [
    { email: SIMULATOR_SUCCESS_ADDRESS, first_name: 'Simulator', last_name: 'Success', timezone: 'UTC', json: { plan: 'demo' } },
    { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', timezone: 'Europe/London', json: { plan: 'pro', visits: 12 } },
    { email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper', timezone: 'America/New_York', json: { plan: 'starter', visits: 3 } },
    { email: 'alan@example.com', first_name: 'Alan', last_name: 'Turing', timezone: 'Europe/London', json: { plan: 'pro', visits: 7 } },
    { email: 'katherine@example.com', first_name: 'Katherine', last_name: 'Johnson', timezone: 'America/Chicago', json: { plan: 'starter', visits: 1 } },
  ],
  segment: 'Demo readers',
  template: {
    name: 'Demo newsletter',
    subject: 'Hello {{first_name}}, here is what is new',
    type: 'TEMPLATE_MARKETING' as const,
    enabled: true,
    html_body:
      '<!doctype html><html><body style="background:#ffffff;font-family:Arial,sans-serif;color:#222">' +
      "<h1>Hello {{first_name}}!</h1><p>This is the demo account's newsletter. Edit it, send it to the simulator address, " +
      'and see the send, open and click in Events.</p><p><a href="https://example.com/news">Read the news</a></p>' +
      '<p style="font-size:12px;color:#555"><a href="{{unsubscribe_link}}">Unsubscribe</a></p></body></html>',
  },
};

async function demoProjectId(db: Db): Promise<string | undefined> {
  const [row] = await db
    .select({ projectId: companyUsers.projectId })
    .from(companyUsers)
    .where(eq(sql`lower(${companyUsers.email})`, DEMO_ACCOUNT.email))
    .limit(1);
  return row?.projectId;
}

/**
 * resetDemoAccount puts the demo project back to DEMO_CONTENT in one transaction: every contact, segment, persona,
 * template, blast, campaign, queued email, event (and its report aggregates), suppression, job-log entry, webhook
 * endpoint and message, topic, subscribe form and consent record goes; admins added by visitors go (the first,
 * seeded admin stays); the project returns to the sandbox; then the known contents are written. Creates the account
 * first when it does not exist. Returns the demo project's id.
 */
export async function resetDemoAccount(db: Db): Promise<string> {
  let projectId = await demoProjectId(db);
  if (!projectId) projectId = (await createAccount(db, { ...DEMO_ACCOUNT, activated: false })).projectId;
  const pid = projectId;
  await db.transaction(async (tx) => {
    // Webhook endpoints first: a visitor's endpoint must never receive what later visitors do.
    await tx.delete(webhookDeliveries).where(eq(webhookDeliveries.projectId, pid));
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.projectId, pid));
    await tx.delete(consents).where(eq(consents.projectId, pid));
    await tx.delete(subscribeForms).where(eq(subscribeForms.projectId, pid));
    await tx.delete(topics).where(eq(topics.projectId, pid));
    // A visitor's SMTP credentials stop working with the reset; the sending API's and SMTP's messages go with the outbox.
    await tx.delete(smtpCredentials).where(eq(smtpCredentials.projectId, pid));
    await tx.delete(messageStreams).where(eq(messageStreams.projectId, pid));
    await tx.delete(messageAttempts).where(eq(messageAttempts.projectId, pid));
    await tx.delete(outbox).where(eq(outbox.projectId, pid));
    await tx.delete(submissions).where(eq(submissions.projectId, pid));
    await tx.delete(events).where(eq(events.projectId, pid));
    // Every event of the project is gone, so are its report aggregates (docs/architecture.md §14).
    await tx.execute(sql`SELECT report_forget(${pid}::uuid)`);
    await tx.delete(campaigns).where(eq(campaigns.projectId, pid));
    await tx.delete(eventBatches).where(eq(eventBatches.projectId, pid));
    await tx.delete(suppressions).where(eq(suppressions.projectId, pid));
    await tx.delete(jobLog).where(eq(jobLog.projectId, pid));
    await tx.delete(segmentMembers).where(inArray(segmentMembers.segmentId, tx.select({ id: segments.id }).from(segments).where(eq(segments.projectId, pid))));
    await tx.delete(emailBlasts).where(eq(emailBlasts.projectId, pid));
    await tx.delete(segments).where(eq(segments.projectId, pid));
    await tx.delete(contactEventCounts).where(eq(contactEventCounts.projectId, pid));
    await tx.delete(contacts).where(eq(contacts.projectId, pid));
    await tx.delete(templates).where(eq(templates.projectId, pid));
    await tx.delete(senderPersonas).where(eq(senderPersonas.projectId, pid));
    const [first] = await tx
      .select({ id: companyUsers.id })
      .from(companyUsers)
      .where(eq(companyUsers.projectId, pid))
      .orderBy(asc(companyUsers.createdAt), asc(companyUsers.id))
      .limit(1);
    if (first) await tx.delete(companyUsers).where(and(eq(companyUsers.projectId, pid), ne(companyUsers.id, first.id)));
    await tx.update(projects).set({ notInSandbox: false }).where(eq(projects.id, pid));
    // The services below open their own (nested: savepoint) transactions on tx, so the reset is all or nothing.
    const db2 = tx as unknown as Db;
    await savePersonas(db2, pid, [DEMO_CONTENT.persona]);
    // The demo's persona is the operator's own address, confirmed by seeding it (no verification email goes out).
    await tx.update(senderPersonas).set({ verifiedAt: new Date() }).where(eq(senderPersonas.projectId, pid));
    const { data: saved } = await upsertContacts(queryOf(db2), pid, DEMO_CONTENT.contacts);
    const [segment] = await tx.insert(segments).values({ projectId: pid, name: DEMO_CONTENT.segment }).returning();
    await tx.insert(segmentMembers).values(saved.map((c) => ({ segmentId: segment.id, contactId: c.id })));
    await saveTemplates(db2, pid, [DEMO_CONTENT.template]);
  });
  return pid;
}

/** seedDemoAccount creates the demo account with its known contents when it does not exist; true when created now. */
export async function seedDemoAccount(db: Db): Promise<boolean> {
  if (await demoProjectId(db)) return false;
  await resetDemoAccount(db);
  return true;
}

/**
 * demoLogin records the visitor's email (consent to communications, with the time and address) and returns the demo
 * account's session, creating the account with its known contents if it is missing.
 */
export async function demoLogin(db: Db, publicUrl: string, email: string, ip?: string): Promise<Session> {
  await db.insert(demoLogins).values({ email: email.trim(), ip: ip ?? null });
  let session = await sessionForAdmin(db, publicUrl, DEMO_ACCOUNT.email);
  if (!session) {
    await resetDemoAccount(db);
    session = await sessionForAdmin(db, publicUrl, DEMO_ACCOUNT.email);
  }
  return session!;
}
