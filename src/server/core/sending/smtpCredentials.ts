/**
 * SMTP submission credentials (openapi/email.yaml smtp_credentials; the submission server is
 * gateways/submission/server.ts): per project, each with a name, a stream and a rate limit. The user name is generated
 * (`mw_` and 16 hex characters) and the password is 32 random bytes (base64url), shown once; only its SHA-256 is
 * stored. A slow hash (bcrypt) protects passwords people choose; against a 256-bit random secret it adds nothing
 * but cost at every AUTH (GitHub's and SES's generated credentials are stored the same way). Revoked credentials stay
 * listed; `authenticate` refuses them at once.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { QueryFn } from '../../db/client.ts';
import { BadRequest, NotFound } from '../../errors.ts';
import { DEFAULT_STREAM, streamSettings } from './streams.ts';
import { iso, isoRequired } from '../listing.ts';
import type { ProjectScope } from '../scope.ts';

/** A credential as lists show it (never its password or hash). */
export interface SmtpCredentialOut {
  id: string;
  name: string;
  username: string;
  stream: string;
  rate_per_minute: number;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

type CredentialRow = Omit<SmtpCredentialOut, 'created_at' | 'last_used_at' | 'revoked_at'> & {
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
};

/** out: a row with its instants in ISO 8601. */
const out = (r: CredentialRow): SmtpCredentialOut => ({
  ...r,
  created_at: isoRequired(r.created_at),
  last_used_at: iso(r.last_used_at),
  revoked_at: iso(r.revoked_at),
});

const COLUMNS = 'id, name, username, stream, rate_per_minute, created_at, last_used_at, revoked_at';

function hashSecret(password: string): string {
  return createHash('sha256').update(password, 'utf8').digest('hex');
}

/** listSmtpCredentials returns the project's credentials, newest first, revoked ones included. */
export async function listSmtpCredentials(query: QueryFn, projectId: string): Promise<SmtpCredentialOut[]> {
  return (await query<CredentialRow>(`SELECT ${COLUMNS} FROM smtp_credentials WHERE project_id = $1 ORDER BY created_at DESC, id`, [projectId])).map(out);
}

/**
 * createSmtpCredential makes a credential on `stream` (default transactional; it must be a stream of the project,
 * else a BadRequest 'stream: …') sending at most `rate_per_minute` messages a minute (default 600). Returns it with its
 * password, the only time the password exists outside the client.
 */
export async function createSmtpCredential(
  query: QueryFn,
  projectId: string,
  input: { name: string; stream?: string; rate_per_minute?: number },
): Promise<SmtpCredentialOut & { password: string }> {
  const stream = input.stream ?? DEFAULT_STREAM;
  if (!input.name.trim()) throw new BadRequest(['name: Required field']);
  if (!(await streamSettings(query, projectId, stream))) throw new BadRequest([`stream: no stream ${stream} in this project`]);
  const username = `mw_${randomBytes(8).toString('hex')}`;
  const password = randomBytes(32).toString('base64url');
  const [row] = await query<CredentialRow>(
    `INSERT INTO smtp_credentials (project_id, name, username, secret_hash, stream, rate_per_minute) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [projectId, input.name.trim(), username, hashSecret(password), stream, input.rate_per_minute ?? 600],
  );
  return { ...out(row), password };
}

/** revokeSmtpCredential revokes a credential of the project (once; revoking again keeps the first instant). Throws NotFound for another project's or an unknown id. */
export async function revokeSmtpCredential(query: QueryFn, projectId: string, id: string): Promise<SmtpCredentialOut> {
  const [row] = await query<CredentialRow>(
    `UPDATE smtp_credentials SET revoked_at = coalesce(revoked_at, now()) WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [projectId, id],
  );
  if (!row) throw new NotFound([`id: no SMTP credential ${id} in this project`]);
  return out(row);
}

/** A credential that signed in: what the submission server needs to take a message under it (its project as of now). */
export interface SmtpPrincipal {
  credentialId: string;
  project: ProjectScope;
  stream: string;
  ratePerMinute: number;
}

/**
 * liveCredential returns credential `id` with its project as it is now (the sandbox may have been left since the
 * connection signed in), or undefined once it is revoked: checked before each message of an open connection.
 */
export async function liveCredential(query: QueryFn, id: string): Promise<SmtpPrincipal | undefined> {
  const [row] = await query<{
    stream: string;
    rate_per_minute: number;
    id: string;
    name: string;
    company_id: string;
    company_name: string;
    not_in_sandbox: boolean;
  }>(
    `SELECT c.stream, c.rate_per_minute, p.id, p.name, co.id AS company_id, co.name AS company_name, p.not_in_sandbox
       FROM smtp_credentials c JOIN projects p ON p.id = c.project_id JOIN companies co ON co.id = p.company_id
      WHERE c.id = $1 AND c.revoked_at IS NULL`,
    [id],
  );
  if (!row) return undefined;
  return {
    credentialId: id,
    project: { id: row.id, name: row.name, companyId: row.company_id, companyName: row.company_name, notInSandbox: row.not_in_sandbox },
    stream: row.stream,
    ratePerMinute: row.rate_per_minute,
  };
}

/**
 * authenticate returns the live (not revoked) credential `username` / `password`, or undefined when either is wrong or
 * it was revoked; its last_used_at is set. The stored and given hashes are compared in constant time.
 */
export async function authenticate(query: QueryFn, username: string, password: string): Promise<SmtpPrincipal | undefined> {
  const [row] = await query<{ id: string; secret_hash: string }>(`SELECT id, secret_hash FROM smtp_credentials WHERE username = $1 AND revoked_at IS NULL`, [
    username,
  ]);
  const given = Buffer.from(hashSecret(password), 'hex');
  const stored = Buffer.from(row?.secret_hash ?? '0'.repeat(64), 'hex');
  if (!row || !timingSafeEqual(given, stored)) return undefined;
  await query(`UPDATE smtp_credentials SET last_used_at = now() WHERE id = $1`, [row.id]);
  return liveCredential(query, row.id);
}
