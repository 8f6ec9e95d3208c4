/**
 * The operators' back-office: the people who run the service, their sessions, what they see of every
 * company and project, and what they do to one — each action one statement that changes the target and writes the
 * audit log together (`operator_audit`: who, what, when, before/after), so neither exists without the other. Used by
 * the operator gateway (gateways/operator) and the admin command line (admin.ts, operatorCommands.ts) alike.
 *
 * Errors: NotFound naming the id for an unknown project, persona or admin; BadRequest naming the field for bad input;
 * Unauthorized for a wrong sign-in or session.
 */
import { createHash, randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { QueryFn } from '../../db/client.ts';
import { checkEmail, checkPassword, UUID_RE } from '../../../domain/validation.ts';
import { BadRequest, FieldErrors, NotFound, Unauthorized } from '../../errors.ts';
import { monthSendsSql } from '../reports/index.ts';
import { hashPassword } from '../accounts/index.ts';
import { unsignedPersonaWarnings } from '../domains/index.ts';
import type { components } from '../../../../generated/types/operator.gen.ts';

/** How long an operator session lasts (ms): 12 hours, then sign in again. */
export const OPERATOR_SESSION_MS = 12 * 60 * 60 * 1000;
/** The operator session cookie (HttpOnly, SameSite=Strict, Path=/api/operator). */
export const OPERATOR_COOKIE = 'mw_operator';

/** The job-log name of the in-console notice an activation (or a return to the sandbox) leaves the project's admins. */
export const JOB_ACCOUNT_ACTIVATED = 'JOB_ACCOUNT_ACTIVATED';
export const JOB_ACCOUNT_SANDBOXED = 'JOB_ACCOUNT_SANDBOXED';
/** The notice an activation shows in the console and sends by email. */
export const ACTIVATED_NOTICE = 'Your account is active: you can now send to anyone';
export const SANDBOXED_NOTICE = 'Your account is back in the sandbox: you can send only to the simulator and your own sender personas';

export interface Operator {
  id: string;
  email: string;
}

/** One audit-log entry and one project row as the back-office shows them (openapi/operator.yaml). */
export type AuditEntry = components['schemas']['AuditEntry'];
export type ProjectRow = components['schemas']['ProjectRow'];

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');
const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/**
 * createOperator adds an operator (email unique, any letter case; password per checkPassword) and writes the audit
 * entry `create_operator` as `actor` (`cli (<os user>)` from the command line, by either of its paths:
 * core/operator/commands.ts), in one statement. Throws BadRequest naming email or password.
 */
export async function createOperator(query: QueryFn, email: string, password: string, actor: Actor): Promise<Operator> {
  const errs = new FieldErrors();
  errs.add('email', checkEmail(email));
  errs.add('password', checkPassword(password));
  errs.throwIfAny();
  const hash = await hashPassword(password);
  const [row] = await query<Operator>(
    `WITH created AS (INSERT INTO operators (email, password_hash) VALUES ($1, $2) ON CONFLICT (lower(email)) DO NOTHING RETURNING id, email),
          audited AS (INSERT INTO operator_audit (actor, action, target_type, target_id, after)
                      SELECT $3, 'create_operator', 'operator', id::text, jsonb_build_object('email', email) FROM created RETURNING id)
     SELECT id, email, (SELECT count(*) FROM audited) AS audited FROM created`,
    [email.trim(), hash, actor],
  );
  if (!row) throw new BadRequest([`email: an operator ${email.trim()} already exists`]);
  return { id: row.id, email: row.email };
}

/** A bcrypt hash of nothing anyone types, compared against for an unknown email so timing reveals nothing. */
const DUMMY_HASH = '$2b$10$be6AXae8uQrPByyOrEewBO0LKboI3eQCv1sVZGpn96b8gjg1g0Igm';

/**
 * operatorLogin checks an operator's email and password and opens a session: returns the operator and the cookie's
 * token (32 random bytes, base64url; only its SHA-256 is stored). Throws Unauthorized ("401: invalid username /
 * password") otherwise.
 */
export async function operatorLogin(query: QueryFn, email: string, password: string): Promise<{ operator: Operator; token: string }> {
  const [row] = await query<Operator & { password_hash: string }>('SELECT id, email, password_hash FROM operators WHERE lower(email) = lower($1)', [
    email.trim(),
  ]);
  const ok = await bcrypt.compare(password, row?.password_hash ?? DUMMY_HASH);
  if (!row || !ok) throw new Unauthorized('401: invalid username / password');
  const token = randomBytes(32).toString('base64url');
  await query(`DELETE FROM operator_sessions WHERE expires_at < now()`);
  await query(`INSERT INTO operator_sessions (token_hash, operator_id, expires_at) VALUES ($1, $2, now() + ($3 || ' milliseconds')::interval)`, [
    tokenHash(token),
    row.id,
    String(OPERATOR_SESSION_MS),
  ]);
  return { operator: { id: row.id, email: row.email }, token };
}

/** operatorBySession returns the operator of a live session token, or undefined (unknown, expired or no token). */
export async function operatorBySession(query: QueryFn, token: string | undefined): Promise<Operator | undefined> {
  if (!token) return undefined;
  const [row] = await query<Operator>(
    `SELECT o.id, o.email FROM operator_sessions s JOIN operators o ON o.id = s.operator_id WHERE s.token_hash = $1 AND s.expires_at > now()`,
    [tokenHash(token)],
  );
  return row;
}

/** endOperatorSession deletes the session of a token (signing out); nothing happens for an unknown one. */
export async function endOperatorSession(query: QueryFn, token: string): Promise<void> {
  await query('DELETE FROM operator_sessions WHERE token_hash = $1', [tokenHash(token)]);
}

/**
 * PROJECT_ROWS: every project with its company, admins, sandbox and sending state, this month's sends (UTC month,
 * from the report aggregates, as the wizard's cost counts them: monthSendsSql) and suppressions, and its latest activation request;
 * $1 a search text (NULL for all: part of a company name, project name or admin email, or a project id), $2 limit,
 * $3 offset. Newest first; `total` counts every match.
 */
const PROJECT_ROWS = `
  WITH matched AS (
    SELECT p.id FROM projects p JOIN companies c ON c.id = p.company_id
     WHERE $1::text IS NULL
        OR p.id::text = lower($1)
        OR c.name ILIKE '%' || $1 || '%' OR p.name ILIKE '%' || $1 || '%'
        OR EXISTS (SELECT 1 FROM company_users u WHERE u.project_id = p.id AND u.email ILIKE '%' || $1 || '%'))
  SELECT p.id AS project_id, p.name AS project_name, c.id AS company_id, c.name AS company_name,
         coalesce((SELECT array_agg(u.email ORDER BY u.created_at) FROM company_users u WHERE u.project_id = p.id), '{}') AS admin_emails,
         p.not_in_sandbox,
         ${monthSendsSql('p.id')}::int AS sends_this_month,
         (SELECT count(*) FROM suppressions s WHERE s.project_id = p.id)::int AS suppressions,
         p.sending_paused_at IS NOT NULL AS sending_paused,
         p.sending_suspended_at IS NOT NULL AS sending_suspended,
         p.sending_suspend_reason AS suspend_reason,
         (SELECT max(m.created_at) FROM contact_messages m WHERE m.kind = 'activation' AND m.project_id = p.id) AS activation_requested_at,
         p.created_at,
         (SELECT count(*) FROM matched)::int AS total
    FROM projects p JOIN companies c ON c.id = p.company_id
   WHERE p.id IN (SELECT id FROM matched)
   ORDER BY p.created_at DESC, p.id
   LIMIT $2 OFFSET $3`;

type RawProjectRow = Omit<ProjectRow, 'created_at' | 'activation_requested_at'> & {
  created_at: Date;
  activation_requested_at: Date | null;
  total: number;
};

const projectRow = ({ total: _total, ...r }: RawProjectRow): ProjectRow => ({
  ...r,
  created_at: iso(r.created_at)!,
  activation_requested_at: iso(r.activation_requested_at),
});

/** listProjects answers GET {operator}/projects: one page of projects (newest first) and how many match `search`. */
export async function listProjects(query: QueryFn, page: { search?: string; limit: number; offset: number }): Promise<{ data: ProjectRow[]; total: number }> {
  const search = page.search?.trim() || null;
  const rows = await query<RawProjectRow>(PROJECT_ROWS, [search, page.limit, page.offset]);
  let total = rows[0]?.total;
  if (total === undefined) total = page.offset ? ((await query<RawProjectRow>(PROJECT_ROWS, [search, 1, 0]))[0]?.total ?? 0) : 0;
  return { data: rows.map(projectRow), total };
}

/** projectRowById returns one project's row, or throws NotFound naming the id. */
export async function projectRowById(query: QueryFn, projectId: string): Promise<ProjectRow> {
  if (!UUID_RE.test(projectId)) throw new NotFound([`project_id: no project ${projectId}`]);
  const [row] = await query<RawProjectRow>(PROJECT_ROWS, [projectId, 1, 0]);
  if (!row || row.project_id !== projectId.toLowerCase()) throw new NotFound([`project_id: no project ${projectId}`]);
  return projectRow(row);
}

/** One contact-form message or activation request (openapi/operator.yaml Message). */
export type OperatorMessage = components['schemas']['Message'];

/** MESSAGES: contact messages and activation requests, newest first; $1 kind or NULL, $2 project id or NULL, $3 limit, $4 offset. */
const MESSAGES = `
  SELECT m.id, m.kind, m.email, m.name, m.details,
         coalesce(m.project_id, (SELECT u.project_id FROM company_users u WHERE lower(u.email) = lower(m.email) LIMIT 1)) AS project_id,
         (m.json->>'expected_monthly_volume')::bigint AS expected_monthly_volume, m.json->>'sending_domain' AS sending_domain,
         m.json->>'use_case' AS use_case, m.created_at
    FROM contact_messages m
   WHERE ($1::text IS NULL OR m.kind = $1)
     AND ($2::uuid IS NULL OR m.project_id = $2
          OR (m.project_id IS NULL AND lower(m.email) IN (SELECT lower(u.email) FROM company_users u WHERE u.project_id = $2)))
   ORDER BY m.created_at DESC, m.id
   LIMIT $3 OFFSET $4`;

/** listMessages answers GET {operator}/messages (and a project's messages in its detail). */
export async function listMessages(
  query: QueryFn,
  page: { kind?: 'contact' | 'activation'; projectId?: string; limit: number; offset: number },
): Promise<OperatorMessage[]> {
  const rows = await query<Omit<OperatorMessage, 'created_at' | 'expected_monthly_volume'> & { created_at: Date; expected_monthly_volume: string | null }>(
    MESSAGES,
    [page.kind ?? null, page.projectId ?? null, page.limit, page.offset],
  );
  return rows.map((r) => ({
    ...r,
    expected_monthly_volume: r.expected_monthly_volume === null ? null : Number(r.expected_monthly_volume),
    created_at: iso(r.created_at)!,
  }));
}

/** listAudit answers GET {operator}/audit: entries newest first, of one project when `projectId` is given. */
export async function listAudit(query: QueryFn, page: { projectId?: string; limit: number; offset: number }): Promise<AuditEntry[]> {
  const rows = await query<Omit<AuditEntry, 'created_at'> & { created_at: Date }>(
    `SELECT id, actor, action, target_type, target_id, project_id, before, after, created_at FROM operator_audit
      WHERE ($1::uuid IS NULL OR project_id = $1) ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`,
    [page.projectId ?? null, page.limit, page.offset],
  );
  return rows.map((r) => ({ ...r, created_at: iso(r.created_at)! }));
}

/**
 * projectDetail answers GET {operator}/projects/{id}: the row plus admins, personas, messages, audit entries and the
 * delivery warnings an operator weighs before activating (personas whose mail would go out unsigned). Throws NotFound.
 */
export async function projectDetail(query: QueryFn, projectId: string) {
  const row = await projectRowById(query, projectId);
  const [admins, personas, messages, audit] = await Promise.all([
    query<{ id: string; email: string; first_name: string | null; last_name: string | null }>(
      'SELECT id, email, first_name, last_name FROM company_users WHERE project_id = $1 ORDER BY created_at',
      [row.project_id],
    ),
    query<{ id: string; email: string; name: string | null; verified_at: Date | null }>(
      `SELECT id, email, nullif(concat_ws(' ', first_name, last_name), '') AS name, verified_at FROM sender_personas
        WHERE project_id = $1 AND archived_at IS NULL ORDER BY created_at`,
      [row.project_id],
    ),
    listMessages(query, { projectId: row.project_id, limit: 50, offset: 0 }),
    listAudit(query, { projectId: row.project_id, limit: 50, offset: 0 }),
  ]);
  const delivery_warnings = await unsignedPersonaWarnings(
    query,
    row.project_id,
    personas.map((p) => p.id),
  );
  return { ...row, admins, personas: personas.map((p) => ({ ...p, verified_at: iso(p.verified_at) })), messages, audit, delivery_warnings };
}

/**
 * PROJECT_CHANGE: sets project $1's sandbox or suspension fields from the jsonb $2 (keys not_in_sandbox,
 * suspended (boolean), suspend_reason) and writes the audit entry (actor $3, action $4) with the fields before and
 * after, in one statement; the notice $5 (job name) and $6 (its text) go to the project's job log when given and the
 * state changed. No row when the project does not exist.
 */
const PROJECT_CHANGE = `
  WITH before AS (
    SELECT id, not_in_sandbox, sending_suspended_at IS NOT NULL AS suspended, sending_suspend_reason AS suspend_reason
      FROM projects WHERE id = $1 FOR UPDATE),
  changed AS (
    UPDATE projects p SET
           not_in_sandbox = coalesce(($2::jsonb->>'not_in_sandbox')::boolean, p.not_in_sandbox),
           sending_suspended_at = CASE WHEN NOT $2::jsonb ? 'suspended' THEN p.sending_suspended_at
                                       WHEN ($2::jsonb->>'suspended')::boolean THEN coalesce(p.sending_suspended_at, now()) END,
           sending_suspend_reason = CASE WHEN NOT $2::jsonb ? 'suspended' THEN p.sending_suspend_reason
                                         WHEN ($2::jsonb->>'suspended')::boolean THEN $2::jsonb->>'suspend_reason' END
      FROM before WHERE p.id = before.id
    RETURNING p.id, p.not_in_sandbox, p.sending_suspended_at IS NOT NULL AS suspended, p.sending_suspend_reason AS suspend_reason),
  audited AS (
    INSERT INTO operator_audit (actor, action, target_type, target_id, project_id, before, after)
    SELECT $3, $4, 'project', changed.id::text, changed.id, to_jsonb(before) - 'id', to_jsonb(changed) - 'id'
      FROM before JOIN changed ON changed.id = before.id
    RETURNING id),
  noticed AS (
    INSERT INTO job_log (project_id, job_name, started_at, ended_at, success, start_details, end_details)
    SELECT changed.id, $5, now(), now(), true, jsonb_build_object('notice', $6::text), jsonb_build_object('notice', $6::text)
      FROM before JOIN changed ON changed.id = before.id
     WHERE $5::text IS NOT NULL AND changed.not_in_sandbox IS DISTINCT FROM before.not_in_sandbox
    RETURNING id)
  SELECT before.not_in_sandbox AS was_active, changed.not_in_sandbox AS active, (SELECT count(*) FROM audited)::int AS audited
    FROM before JOIN changed ON changed.id = before.id`;

const stateListeners = new Set<(projectId: string) => void>();

/**
 * onProjectStateChange registers `listener` to hear of every sandbox or suspension change this process makes (app.ts
 * drops the project from its api-key cache, so the change holds for the next request); returns an unsubscribe.
 * Other processes see a change within the cache's lifetime (API_KEY_TTL_MS, 5 s).
 */
export function onProjectStateChange(listener: (projectId: string) => void): () => void {
  stateListeners.add(listener);
  return () => stateListeners.delete(listener);
}

/** Who acts: an operator's email, or `cli (<os user>)` for the command line. */
export type Actor = string;

/**
 * changeProject applies one operator action to a project and audits it (PROJECT_CHANGE). Returns whether the sandbox
 * state changed from sandboxed to active. Throws NotFound naming the id.
 */
async function changeProject(
  query: QueryFn,
  projectId: string,
  actor: Actor,
  action: string,
  change: { not_in_sandbox?: boolean; suspended?: boolean; suspend_reason?: string | null },
  notice?: { job: string; text: string },
): Promise<{ activatedNow: boolean }> {
  if (!UUID_RE.test(projectId)) throw new NotFound([`project_id: no project ${projectId}`]);
  const [r] = await query<{ was_active: boolean; active: boolean }>(PROJECT_CHANGE, [
    projectId,
    JSON.stringify(change),
    actor,
    action,
    notice?.job ?? null,
    notice?.text ?? null,
  ]);
  if (!r) throw new NotFound([`project_id: no project ${projectId}`]);
  for (const listener of stateListeners) listener(projectId.toLowerCase());
  return { activatedNow: !r.was_active && r.active };
}

/** The activation email: sent by the caller through the service's own mail (core/operator/activationMail.ts). */
export type ActivationMailer = (projectId: string) => Promise<void>;

/**
 * setProjectActive takes a project out of the sandbox (`active`) or returns it, audited, with the in-console notice
 * (job log) for its admins; on activation `mail` emails them (a failure to email is logged, the activation stands).
 * Returns the project's row. Throws NotFound naming the id.
 */
export async function setProjectActive(query: QueryFn, projectId: string, active: boolean, actor: Actor, mail?: ActivationMailer): Promise<ProjectRow> {
  const { activatedNow } = await changeProject(
    query,
    projectId,
    actor,
    active ? 'activate' : 'return_to_sandbox',
    { not_in_sandbox: active },
    active ? { job: JOB_ACCOUNT_ACTIVATED, text: ACTIVATED_NOTICE } : { job: JOB_ACCOUNT_SANDBOXED, text: SANDBOXED_NOTICE },
  );
  if (activatedNow && mail) {
    await mail(projectId).catch((err) => console.error(`operator: the activation email of project ${projectId} could not be sent:`, (err as Error).message));
  }
  return projectRowById(query, projectId);
}

/**
 * setProjectSuspended suspends all of a project's sending with `reason` (shown to the customer) or lifts the
 * suspension, audited. Returns the project's row. Throws NotFound naming the id, BadRequest naming reason when empty.
 */
export async function setProjectSuspended(query: QueryFn, projectId: string, suspended: boolean, actor: Actor, reason?: string): Promise<ProjectRow> {
  if (suspended && !reason?.trim()) throw new BadRequest(['reason: Required field']);
  await changeProject(query, projectId, actor, suspended ? 'suspend_sending' : 'resume_sending', {
    suspended,
    suspend_reason: suspended ? reason!.trim() : null,
  });
  return projectRowById(query, projectId);
}

/**
 * VERIFY_PERSONAS: confirms as the operator (actor $4) the live sender personas named by id $1, or else by address $2
 * (any letter case) in project $3 when given, and audits each, in one statement. Returns the confirmed personas.
 */
const VERIFY_PERSONAS = `
  WITH before AS (
    SELECT id, project_id, verified_at FROM sender_personas
     WHERE archived_at IS NULL AND ($1::uuid IS NOT NULL AND id = $1
            OR $1::uuid IS NULL AND lower(email) = lower($2) AND ($3::uuid IS NULL OR project_id = $3))
       FOR UPDATE),
  changed AS (UPDATE sender_personas sp SET verified_at = coalesce(sp.verified_at, now()) FROM before WHERE sp.id = before.id
              RETURNING sp.id, sp.email, nullif(concat_ws(' ', sp.first_name, sp.last_name), '') AS name, sp.verified_at, sp.project_id),
  audited AS (INSERT INTO operator_audit (actor, action, target_type, target_id, project_id, before, after)
              SELECT $4, 'verify_persona', 'persona', changed.id::text, changed.project_id,
                     jsonb_build_object('email', changed.email, 'verified_at', before.verified_at),
                     jsonb_build_object('email', changed.email, 'verified_at', changed.verified_at)
                FROM before JOIN changed ON changed.id = before.id RETURNING id)
  SELECT changed.id, changed.email, changed.name, changed.verified_at, (SELECT count(*) FROM audited) AS audited FROM changed`;

type VerifiedPersona = { id: string; email: string; name: string | null; verified_at: Date };

/**
 * verifyPersonaById confirms a live sender persona as the operator, audited. Returns it. Throws NotFound naming the
 * id (unknown or archived).
 */
export async function verifyPersonaById(query: QueryFn, personaId: string, actor: Actor) {
  if (!UUID_RE.test(personaId)) throw new NotFound([`persona_id: no sender persona ${personaId}`]);
  const [row] = await query<VerifiedPersona>(VERIFY_PERSONAS, [personaId, null, null, actor]);
  if (!row) throw new NotFound([`persona_id: no sender persona ${personaId}`]);
  return { id: row.id, email: row.email, name: row.name, verified_at: iso(row.verified_at) };
}

/**
 * verifyPersonasByEmail confirms, as the operator, the live personas with this address (any letter case), in project
 * `projectId` when given, each audited (`npm run admin -- verify-persona`, e.g. when SMTP_URL is unset and no
 * verification email can reach them). Returns how many it confirmed.
 */
export async function verifyPersonasByEmail(query: QueryFn, email: string, actor: Actor, projectId?: string): Promise<number> {
  return (await query<VerifiedPersona>(VERIFY_PERSONAS, [null, email.trim(), projectId ?? null, actor])).length;
}

/**
 * resetAdminPassword gives a customer's admin a new random password (18 characters, shown once; only its bcrypt hash
 * is kept), audited without the password. Throws NotFound naming the id.
 */
export async function resetAdminPassword(query: QueryFn, adminId: string, actor: Actor): Promise<{ email: string; password: string }> {
  if (!UUID_RE.test(adminId)) throw new NotFound([`admin_id: no admin ${adminId}`]);
  const password = randomBytes(14).toString('base64url').slice(0, 18);
  const hash = await hashPassword(password);
  const [row] = await query<{ email: string }>(
    `WITH changed AS (UPDATE company_users SET password_hash = $2 WHERE id = $1 RETURNING id, email, project_id),
          audited AS (INSERT INTO operator_audit (actor, action, target_type, target_id, project_id, before, after)
                      SELECT $3, 'reset_password', 'admin', id::text, project_id, jsonb_build_object('email', email),
                             jsonb_build_object('email', email, 'password', 'reset') FROM changed RETURNING id)
     SELECT email, (SELECT count(*) FROM audited) AS audited FROM changed`,
    [adminId, hash, actor],
  );
  if (!row) throw new NotFound([`admin_id: no admin ${adminId}`]);
  return { email: row.email, password };
}

/** One project a command-line reference could mean. */
export interface ProjectMatch {
  id: string;
  name: string;
  company: string;
}

/**
 * resolveProject finds the one project an operator means: `project` is a project id or a project name
 * (with `company` to narrow it), or `email` an admin's email (that admin's project). Throws NotFound when nothing
 * matches and BadRequest listing every match ("company / project (id)") when a name matches more than one project.
 */
export async function resolveProject(query: QueryFn, ref: { project?: string; email?: string; company?: string }): Promise<ProjectMatch> {
  const base = 'SELECT p.id, p.name, c.name AS company FROM projects p JOIN companies c ON c.id = p.company_id';
  let rows: ProjectMatch[];
  let what: string;
  if (ref.email) {
    rows = await query<ProjectMatch>(`${base} JOIN company_users u ON u.project_id = p.id WHERE lower(u.email) = lower($1)`, [ref.email.trim()]);
    what = `email: no admin ${ref.email.trim()}`;
  } else if (ref.project && UUID_RE.test(ref.project.trim())) {
    rows = await query<ProjectMatch>(`${base} WHERE p.id = $1`, [ref.project.trim()]);
    what = `project: no project ${ref.project.trim()}`;
  } else if (ref.project) {
    rows = await query<ProjectMatch>(`${base} WHERE p.name = $1 AND ($2::text IS NULL OR c.name = $2) ORDER BY c.name, p.created_at`, [
      ref.project.trim(),
      ref.company?.trim() || null,
    ]);
    what = `project: no project named ${ref.project.trim()}${ref.company ? ` in company ${ref.company.trim()}` : ''}`;
  } else {
    throw new BadRequest(['project: give --project ID (or NAME with --company) or --email ADMIN_EMAIL']);
  }
  if (!rows.length) throw new NotFound([what]);
  if (rows.length > 1) {
    throw new BadRequest([
      `project: ${rows.length} projects are named ${ref.project!.trim()}; name one by id (--project ID) or by an admin's email (--email):`,
      ...rows.map((r) => `  ${r.company} / ${r.name} (${r.id})`),
    ]);
  }
  return rows[0];
}
