/**
 * The team of a company project ('Your team', spec part 1 §2, §3 Company user, §6): its admins, the
 * earliest-created of whom is the super-admin and cannot be removed, and the sandbox activation steps.
 */
import { and, asc, count, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { companyUsers, contactMessages, contacts, projects, senderPersonas, templates } from '../../db/schema.ts';
import { EMAIL_TAKEN, hashPassword, isUniqueViolation } from './index.ts';
import { BadRequest, FieldErrors, NotFound } from '../../errors.ts';
import { checkEmail, checkPassword } from '../../../domain/validation.ts';
import type { ProjectScope } from '../scope.ts';
import type { components } from '../../../../generated/types/companyauthwrapper.gen.ts';

export type CompanyUser = components['schemas']['CompanyUser'];

/** The message for removing the super-admin (spec part 1 §2 Team: "The hint says to contact support to change the email"). */
export const SUPER_ADMIN_REMOVAL = 'company_user: the super-admin (the earliest-created admin) cannot be removed; contact support to change its email';

type Row = typeof companyUsers.$inferSelect;

function toApi(row: Row, superAdminId: string | undefined): CompanyUser {
  return {
    id: row.id,
    company_id: row.companyId,
    project_id: row.projectId,
    email: row.email,
    first_name: row.firstName,
    last_name: row.lastName,
    created_at: row.createdAt.toISOString(),
    json: row.json as CompanyUser['json'],
    super_admin: row.id === superAdminId,
  };
}

/** listTeam returns the project's admins, earliest first; the first is flagged super_admin. */
export async function listTeam(db: Db, project: ProjectScope): Promise<CompanyUser[]> {
  const rows = await db.select().from(companyUsers).where(eq(companyUsers.projectId, project.id)).orderBy(asc(companyUsers.createdAt), asc(companyUsers.id));
  return rows.map((r) => toApi(r, rows[0]?.id));
}

/**
 * addTeamMember adds an admin to the project. Throws BadRequest naming company_user.email (invalid, or EMAIL_TAKEN
 * when any admin anywhere has it: the unique index cu_le_idx) or password (checkPassword).
 */
export async function addTeamMember(
  db: Db,
  project: ProjectScope,
  input: {
    email: string;
    firstName?: string | null;
    lastName?: string | null;
    password: string;
    addedBy?: string | null;
  },
): Promise<CompanyUser> {
  const errs = new FieldErrors();
  errs.add('company_user.email', checkEmail(input.email));
  errs.add('password', checkPassword(input.password));
  errs.throwIfAny();
  const passwordHash = await hashPassword(input.password);
  try {
    const [row] = await db
      .insert(companyUsers)
      .values({
        companyId: project.companyId,
        projectId: project.id,
        email: input.email.trim(),
        firstName: input.firstName?.trim() || null,
        lastName: input.lastName?.trim() || null,
        passwordHash,
        json: { addedBy: input.addedBy?.trim() || 'an admin', addedAt: new Date().toISOString() },
      })
      .returning();
    const team = await listTeam(db, project);
    return team.find((m) => m.id === row.id)!;
  } catch (err) {
    if (isUniqueViolation(err, 'cu_le_idx')) throw new BadRequest([`company_user.email: ${EMAIL_TAKEN}`]);
    throw err;
  }
}

/**
 * removeTeamMember removes admin `id` from the project. Throws NotFound for an admin of another project and
 * BadRequest (SUPER_ADMIN_REMOVAL) for the earliest-created admin. The check and the delete run in one statement, so
 * two removals racing cannot leave the project without its super-admin.
 */
export async function removeTeamMember(db: Db, project: ProjectScope, id: string): Promise<{ id: string }> {
  const deleted = await db
    .delete(companyUsers)
    .where(
      and(
        eq(companyUsers.id, id),
        eq(companyUsers.projectId, project.id),
        sql`${companyUsers.id} <> (SELECT cu.id FROM ${companyUsers} cu WHERE cu.project_id = ${project.id} ORDER BY cu.created_at, cu.id LIMIT 1)`,
      ),
    )
    .returning({ id: companyUsers.id });
  if (deleted.length) return { id: deleted[0].id };
  const [exists] = await db
    .select({ id: companyUsers.id })
    .from(companyUsers)
    .where(and(eq(companyUsers.id, id), eq(companyUsers.projectId, project.id)));
  if (exists) throw new BadRequest([SUPER_ADMIN_REMOVAL]);
  throw new NotFound([`company_user.id: no admin ${id} in this project`]);
}

/** One sandbox activation step (spec part 1 §1 "Activation steps"). */
export interface ActivationStep {
  id: 'template' | 'contacts' | 'sender_persona' | 'support_email';
  label: string;
  done: boolean;
}

/**
 * sandboxActivation reports the project's sandbox state and each activation step: a live template, a live contact, a
 * live sender persona, and a contact-us message from one of the project's admins (which should give the expected
 * monthly volume). Activation itself is the operator's `npm run admin -- activate`.
 */
export async function sandboxActivation(db: Db, project: ProjectScope): Promise<{ not_in_sandbox: boolean; steps: ActivationStep[] }> {
  const exists = async (table: typeof templates | typeof contacts | typeof senderPersonas) => {
    const [row] = await db
      .select({ n: count() })
      .from(table)
      .where(and(eq(table.projectId, project.id), isNull(table.archivedAt)));
    return row.n > 0;
  };
  // A persona counts once its address is verified: until then it cannot send.
  const personaStep = async () => {
    const [row] = await db
      .select({ all: count(), verified: count(senderPersonas.verifiedAt) })
      .from(senderPersonas)
      .where(and(eq(senderPersonas.projectId, project.id), isNull(senderPersonas.archivedAt)));
    const done = row.verified > 0;
    return {
      id: 'sender_persona' as const,
      label: 'Create a sender persona',
      done,
      ...(!done && row.all > 0
        ? { detail: 'Created: confirm its address by the link we emailed to it (Sender personas → Resend the link if it did not arrive)' }
        : {}),
    };
  };
  const [messages] = await db
    .select({ n: count() })
    .from(contactMessages)
    .where(sql`lower(${contactMessages.email}) IN (SELECT lower(email) FROM ${companyUsers} WHERE project_id = ${project.id})`);
  return {
    not_in_sandbox: project.notInSandbox,
    steps: [
      { id: 'template', label: 'Add a template', done: await exists(templates) },
      { id: 'contacts', label: 'Create contacts', done: await exists(contacts) },
      await personaStep(),
      { id: 'support_email', label: 'Email support with your expected monthly volume', done: messages.n > 0 },
    ],
  };
}

/** saveContactMessage stores a visitor's message for the support team (spec part 1 §3 Contact message); input already checked. */
export async function saveContactMessage(db: Db, m: { email: string; name: string | null; details: string; ip: string }): Promise<void> {
  await db.insert(contactMessages).values(m);
}

/** What an operator decided about a project, read afresh (GET {companyauthwrapper}/account_status). */
export async function accountStatus(
  db: Db,
  project: ProjectScope,
): Promise<{ not_in_sandbox: boolean; sending_suspended: boolean; suspend_reason: string | null }> {
  const [row] = await db
    .select({
      not_in_sandbox: projects.notInSandbox,
      sending_suspended: sql<boolean>`${projects.sendingSuspendedAt} IS NOT NULL`,
      suspend_reason: projects.sendingSuspendReason,
    })
    .from(projects)
    .where(eq(projects.id, project.id));
  return row ?? { not_in_sandbox: project.notInSandbox, sending_suspended: false, suspend_reason: null };
}

/**
 * requestActivation stores an admin's request to leave the sandbox (POST {companyauthwrapper}/activation_request) as a
 * contact message of kind 'activation' for the operators' back-office. Throws BadRequest naming email when it is not
 * one of the project's admins, sending_domain when it is not a domain name.
 */
export async function requestActivation(
  db: Db,
  project: ProjectScope,
  input: { email: string; expected_monthly_volume: number; sending_domain: string; use_case: string },
  ip: string,
): Promise<{ id: string; created_at: string }> {
  const errs = new FieldErrors();
  const domain = input.sending_domain.trim().toLowerCase().replace(/\.$/, '');
  if (!/^(?=.{3,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(domain)) errs.add('sending_domain', 'Invalid domain name');
  const [admin] = await db
    .select({ email: companyUsers.email, firstName: companyUsers.firstName, lastName: companyUsers.lastName })
    .from(companyUsers)
    .where(and(eq(companyUsers.projectId, project.id), eq(sql`lower(${companyUsers.email})`, input.email.trim().toLowerCase())));
  if (!admin) errs.add('email', 'not an admin of this project');
  if (!input.use_case.trim()) errs.add('use_case', 'Required field');
  errs.throwIfAny();
  const name = [admin!.firstName, admin!.lastName].filter(Boolean).join(' ') || null;
  const details =
    `Activation request for ${project.companyName} / ${project.name}: about ${input.expected_monthly_volume.toLocaleString('en-US')} emails a month ` +
    `from ${domain}.\n\n${input.use_case.trim()}`;
  const [row] = await db
    .insert(contactMessages)
    .values({
      email: admin!.email,
      name,
      details,
      ip,
      kind: 'activation',
      projectId: project.id,
      json: { expected_monthly_volume: input.expected_monthly_volume, sending_domain: domain, use_case: input.use_case.trim() },
    })
    .returning({ id: contactMessages.id, createdAt: contactMessages.createdAt });
  return { id: row.id, created_at: row.createdAt.toISOString() };
}
