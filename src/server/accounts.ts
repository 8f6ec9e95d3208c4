/**
 * Accounts: companies, projects (each with its api key) and their admins; sign-in and the session data of spec part 1
 * §3. Used by the login gateway, the operator command (admin.ts) and the demo seed.
 */
import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from './db/client.ts';
import { companies, companyUsers, projects } from './db/schema.ts';
import { checkEmail } from '../domain/validation.ts';
import { BadRequest, Unauthorized } from './errors.ts';
import type { components } from '../../generated/types/login.gen.ts';

export type Session = components['schemas']['Session'];

/** Every service whose gateway URL the session carries (DESIGN.md §2); senderpersona is the spec's short alias. */
export const SESSION_SERVICES = [
  'login', 'signup', 'contact_us', 'user', 'segment', 'segmentwrapper', 'senderpersona', 'senderpersonawrapper', 'template',
  'scheduler', 'campaign', 'workflow', 'workflowwrapper', 'event', 'reporting', 'joblog', 'companyauthwrapper', 'domains',
] as const;

/** The demo account seeded on first start; it stays in the sandbox. */
export const DEMO_ACCOUNT = {
  company: 'Demo Company',
  project: 'demo',
  email: 'demo@mailwright.test',
  password: 'demo-password-1',
  firstName: 'Demo',
  lastName: 'Admin',
} as const;

const BCRYPT_ROUNDS = 10;

function newKey(prefix: string): string {
  return `${prefix}_${randomBytes(24).toString('base64url')}`;
}

/**
 * createAccount creates a company, a project (in the sandbox unless `activated`) and its first admin, and returns the
 * project's api key. Throws BadRequest naming the field for a bad email, a short password, or a name/email in use.
 */
export async function createAccount(db: Db, input: {
  company: string; project: string; email: string; password: string; firstName?: string; lastName?: string; activated?: boolean;
}): Promise<{ companyId: string; projectId: string; apiKey: string }> {
  const errors: string[] = [];
  const emailError = checkEmail(input.email);
  if (emailError) errors.push(`email: ${emailError}`);
  if (!input.password || input.password.length < 8) errors.push('password: must be at least 8 characters');
  if (!input.company?.trim()) errors.push('company: Required field');
  if (!input.project?.trim()) errors.push('project: Required field');
  if (errors.length) throw new BadRequest(errors);
  const passwordHash = await bcrypt.hash(input.password, BCRYPT_ROUNDS);
  return db.transaction(async (tx) => {
    const [taken] = await tx.select({ id: companyUsers.id }).from(companyUsers).where(eq(sql`lower(${companyUsers.email})`, input.email.trim().toLowerCase()));
    if (taken) throw new BadRequest(['email: Another user with that email already exists']);
    const [existingCompany] = await tx.select().from(companies).where(eq(companies.name, input.company.trim()));
    if (existingCompany) throw new BadRequest([`company: a company named ${input.company} already exists`]);
    const [company] = await tx.insert(companies).values({ name: input.company.trim() }).returning();
    const apiKey = newKey('mk');
    const [project] = await tx.insert(projects).values({
      companyId: company.id, name: input.project.trim(), apiKey, integrationKey: newKey('ik'), integrationKey2: newKey('ik2'),
      notInSandbox: !!input.activated,
    }).returning();
    await tx.insert(companyUsers).values({
      companyId: company.id, projectId: project.id, email: input.email.trim(), firstName: input.firstName ?? null,
      lastName: input.lastName ?? null, passwordHash, json: { addedBy: 'operator', addedAt: new Date().toISOString() },
    });
    return { companyId: company.id, projectId: project.id, apiKey };
  });
}

/** activateProject takes every project named `name` out of the sandbox; returns how many were changed. */
export async function activateProject(db: Db, name: string, company?: string): Promise<number> {
  const rows = await db.update(projects).set({ notInSandbox: true })
    .where(and(eq(projects.name, name), company ? sql`${projects.companyId} IN (SELECT id FROM ${companies} WHERE name = ${company})` : undefined))
    .returning({ id: projects.id });
  return rows.length;
}

/** seedDemoAccount creates the demo account when it does not exist; returns true when it was created now. */
export async function seedDemoAccount(db: Db): Promise<boolean> {
  const [existing] = await db.select({ id: companyUsers.id }).from(companyUsers).where(eq(sql`lower(${companyUsers.email})`, DEMO_ACCOUNT.email));
  if (existing) return false;
  await createAccount(db, { ...DEMO_ACCOUNT, activated: false });
  return true;
}

/**
 * login checks an admin's email (case-insensitive) and password and returns the session (spec part 1 §3) with
 * gateway URLs under `publicUrl`. Throws Unauthorized ("401: invalid username / password") otherwise.
 */
export async function login(db: Db, publicUrl: string, email: string, password: string): Promise<Session> {
  const [row] = await db.select({ user: companyUsers, project: projects, company: companies }).from(companyUsers)
    .innerJoin(projects, eq(projects.id, companyUsers.projectId))
    .innerJoin(companies, eq(companies.id, companyUsers.companyId))
    .where(eq(sql`lower(${companyUsers.email})`, email.trim().toLowerCase()))
    .orderBy(asc(companyUsers.createdAt)).limit(1);
  // Compare against a dummy hash when the user is unknown so timing does not reveal which emails exist.
  const hash = row?.user.passwordHash ?? '$2b$10$be6AXae8uQrPByyOrEewBO0LKboI3eQCv1sVZGpn96b8gjg1g0Igm';
  const ok = await bcrypt.compare(password, hash);
  if (!row || !ok) throw new Unauthorized('401: invalid username / password');
  const endpoints: Record<string, string> = {};
  for (const s of SESSION_SERVICES) endpoints[`api_${s}_gateway`] = `${publicUrl}/api/${s === 'senderpersona' ? 'senderpersonawrapper' : s}`;
  return {
    api_client_key: row.project.apiKey,
    integration_key: row.project.integrationKey,
    integration_key2: row.project.integrationKey2,
    endpoints: endpoints as Session['endpoints'],
    user: { email: row.user.email, first_name: row.user.firstName, last_name: row.user.lastName },
    company: { name: row.company.name },
    project: { name: row.project.name },
    not_in_sandbox: row.project.notInSandbox,
  };
}

/** projectByApiKey returns the scope named by an api key, or undefined. */
export async function projectByApiKey(db: Db, apiKey: string) {
  const [row] = await db.select({ project: projects, company: companies }).from(projects)
    .innerJoin(companies, eq(companies.id, projects.companyId)).where(eq(projects.apiKey, apiKey)).limit(1);
  if (!row) return undefined;
  return { id: row.project.id, name: row.project.name, companyId: row.company.id, companyName: row.company.name, notInSandbox: row.project.notInSandbox };
}
