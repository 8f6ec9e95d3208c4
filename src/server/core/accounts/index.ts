/**
 * Accounts: companies, projects (each with its api key) and their admins; sign-in and the session data of spec part 1
 * §3. Used by the login gateway, the operator command (admin.ts) and the demo seed.
 */
import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import { asc, eq, or, sql } from 'drizzle-orm';
import type { Db, QueryFn } from '../../db/client.ts';
import { companies, companyUsers, projects } from '../../db/schema.ts';
import { checkEmail, checkPassword, checkRequired } from '../../../domain/validation.ts';
import { BadRequest, FieldErrors, Unauthorized } from '../../errors.ts';
import type { components } from '../../../../generated/types/login.gen.ts';

export type Session = components['schemas']['Session'];

/** Every service whose gateway URL the session carries (DESIGN.md §2); senderpersona is the spec's short alias. */
export const SESSION_SERVICES = [
  'login',
  'signup',
  'contact_us',
  'user',
  'segment',
  'segmentwrapper',
  'senderpersona',
  'senderpersonawrapper',
  'template',
  'scheduler',
  'campaign',
  'workflow',
  'workflowwrapper',
  'event',
  'reporting',
  'joblog',
  'companyauthwrapper',
  'domains',
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

/** The names createAccount gives fields in its messages; sign-up passes its payload's names (spec part 1 §3). */
export interface AccountFieldNames {
  email: string;
  password: string;
  company: string;
  project: string;
}
const OPERATOR_FIELDS: AccountFieldNames = { email: 'email', password: 'password', company: 'company', project: 'project' };

/** The message for an admin email already in use (spec part 1 §8 Team add: the unique index cu_le_idx). */
export const EMAIL_TAKEN = 'Another user with that email already exists';

/** isUniqueViolation is true for PostgreSQL's unique_violation (23505) on `constraint`, however drizzle wraps it. */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  for (let e = err as { code?: string; constraint?: string; message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === '23505' && (e.constraint === constraint || e.message?.includes(constraint))) return true;
  }
  return false;
}

/**
 * createAccount creates a company (with its sign-up `companyJson`), a project (in the sandbox unless `activated`)
 * and its first admin, all or nothing, and returns the ids and the project's api key. Throws BadRequest naming the
 * field (`fields`, default email/password/company/project) for a bad email, a weak password (checkPassword), an
 * empty name, an admin email in use (EMAIL_TAKEN) or a company name in use.
 */
export async function createAccount(
  db: Db,
  input: {
    company: string;
    project: string;
    email: string;
    password: string;
    firstName?: string | null;
    lastName?: string | null;
    activated?: boolean;
    companyJson?: Record<string, unknown>;
    userJson?: Record<string, unknown>;
  },
  fields: AccountFieldNames = OPERATOR_FIELDS,
): Promise<{ companyId: string; projectId: string; apiKey: string }> {
  const errs = new FieldErrors();
  errs.add(fields.email, checkEmail(input.email));
  errs.add(fields.password, checkPassword(input.password));
  errs.add(fields.company, checkRequired(input.company?.trim()));
  errs.add(fields.project, checkRequired(input.project?.trim()));
  errs.throwIfAny();
  const passwordHash = await bcrypt.hash(input.password, BCRYPT_ROUNDS);
  try {
    return await db.transaction(async (tx) => {
      const [taken] = await tx
        .select({ id: companyUsers.id })
        .from(companyUsers)
        .where(eq(sql`lower(${companyUsers.email})`, input.email.trim().toLowerCase()));
      if (taken) throw new BadRequest([`${fields.email}: ${EMAIL_TAKEN}`]);
      const [existingCompany] = await tx.select().from(companies).where(eq(companies.name, input.company.trim()));
      if (existingCompany) throw new BadRequest([`${fields.company}: a company named ${input.company.trim()} already exists`]);
      const [company] = await tx
        .insert(companies)
        .values({ name: input.company.trim(), json: input.companyJson ?? {} })
        .returning();
      const apiKey = newKey('mk');
      const [project] = await tx
        .insert(projects)
        .values({
          companyId: company.id,
          name: input.project.trim(),
          apiKey,
          integrationKey: newKey('ik'),
          integrationKey2: newKey('ik2'),
          notInSandbox: !!input.activated,
        })
        .returning();
      await tx.insert(companyUsers).values({
        companyId: company.id,
        projectId: project.id,
        email: input.email.trim(),
        firstName: input.firstName?.trim() || null,
        lastName: input.lastName?.trim() || null,
        passwordHash,
        json: { addedBy: 'operator', addedAt: new Date().toISOString(), ...input.userJson },
      });
      return { companyId: company.id, projectId: project.id, apiKey };
    });
  } catch (err) {
    // Two sign-ups racing for one email or company name: the unique indexes decide, with the same messages.
    if (isUniqueViolation(err, 'cu_le_idx')) throw new BadRequest([`${fields.email}: ${EMAIL_TAKEN}`]);
    if (isUniqueViolation(err, 'companies_name_idx')) throw new BadRequest([`${fields.company}: a company named ${input.company.trim()} already exists`]);
    throw err;
  }
}

/** hashPassword hashes an admin password with bcrypt (BCRYPT_ROUNDS rounds). */
export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, BCRYPT_ROUNDS);
}

async function adminByEmail(db: Db, email: string) {
  const [row] = await db
    .select({ user: companyUsers, project: projects, company: companies })
    .from(companyUsers)
    .innerJoin(projects, eq(projects.id, companyUsers.projectId))
    .innerJoin(companies, eq(companies.id, companyUsers.companyId))
    .where(eq(sql`lower(${companyUsers.email})`, email.trim().toLowerCase()))
    .orderBy(asc(companyUsers.createdAt))
    .limit(1);
  return row;
}

function sessionOf(publicUrl: string, row: NonNullable<Awaited<ReturnType<typeof adminByEmail>>>): Session {
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

/**
 * login checks an admin's email (case-insensitive) and password and returns the session (spec part 1 §3) with
 * gateway URLs under `publicUrl`. Throws Unauthorized ("401: invalid username / password") otherwise.
 */
export async function login(db: Db, publicUrl: string, email: string, password: string): Promise<Session> {
  const row = await adminByEmail(db, email);
  // Compare against a dummy hash when the user is unknown so timing does not reveal which emails exist.
  const hash = row?.user.passwordHash ?? '$2b$10$be6AXae8uQrPByyOrEewBO0LKboI3eQCv1sVZGpn96b8gjg1g0Igm';
  const ok = await bcrypt.compare(password, hash);
  if (!row || !ok) throw new Unauthorized('401: invalid username / password');
  return sessionOf(publicUrl, row);
}

/** sessionForAdmin returns the session of the admin with `email` without a password (the demo login); undefined when unknown. */
export async function sessionForAdmin(db: Db, publicUrl: string, email: string): Promise<Session | undefined> {
  const row = await adminByEmail(db, email);
  return row && sessionOf(publicUrl, row);
}

/**
 * projectByApiKey returns the scope named by an x-api-key, or undefined. Any of the project's three keys names it: the
 * console's api_client_key, and integration_key / integration_key2 (spec part 1 §4 session fields), which
 * integrations such as the Make app (public/docs/make_integration.yml) send; the second lets a key be rotated.
 */
export async function projectByApiKey(db: Db, apiKey: string) {
  const [row] = await db
    .select({ project: projects, company: companies })
    .from(projects)
    .innerJoin(companies, eq(companies.id, projects.companyId))
    .where(or(eq(projects.apiKey, apiKey), eq(projects.integrationKey, apiKey), eq(projects.integrationKey2, apiKey)))
    .limit(1);
  if (!row) return undefined;
  return { id: row.project.id, name: row.project.name, companyId: row.company.id, companyName: row.company.name, notInSandbox: row.project.notInSandbox };
}

/** projectIdByIntegrationKey returns the id of the project whose integration key (feedback webhook URLs) is `key`, or undefined. */
export async function projectIdByIntegrationKey(db: Db, key: string): Promise<string | undefined> {
  const [p] = await db.select({ id: projects.id }).from(projects).where(eq(projects.integrationKey, key));
  return p?.id;
}

/**
 * projectSecrets returns a cached lookup of a project's link secret (projects.link_secret) by project id; undefined
 * for an unknown or missing id. Secrets never change, so the cache never expires.
 */
export function projectSecrets(query: QueryFn): (projectId: string | undefined) => Promise<string | undefined> {
  const keys = new Map<string, string>();
  return async (projectId) => {
    if (!projectId) return undefined;
    if (!keys.has(projectId)) {
      const [p] = await query<{ link_secret: string }>('SELECT link_secret FROM projects WHERE id = $1', [projectId]);
      if (!p) return undefined;
      keys.set(projectId, p.link_secret);
    }
    return keys.get(projectId);
  };
}
