/**
 * One upload per pre-signed upload URL (openapi: "the URL is good for one upload"). A PUT claims its URL
 * in `used_upload_urls` before it stores anything; the primary key on the token's hash is the atomic check, so of two
 * PUTs to one URL, at once or one after the other, only one stores. A PUT refused before anything was stored (wrong
 * type, empty, too large, bytes that are not the declared image) releases its claim, so the person uploading can try
 * again with the same URL; a stored upload keeps it until the URL would have expired anyway.
 */
import { createHash } from 'node:crypto';
import type { QueryFn } from './db/client.ts';

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * claimUploadUrl marks the upload URL of `token` (valid until `expiresAt`, UTC) as used by this PUT. Resolves false
 * when it was already used (or is being used by a PUT still in progress). Claims of URLs expired an hour ago or more
 * are dropped first (an expired URL is refused before it is claimed).
 */
export async function claimUploadUrl(query: QueryFn, projectId: string, token: string, expiresAt: Date): Promise<boolean> {
  await query(`DELETE FROM used_upload_urls WHERE expires_at < now() - interval '1 hour'`);
  const rows = await query(
    'INSERT INTO used_upload_urls (token_hash, project_id, expires_at) VALUES ($1, $2, $3) ON CONFLICT (token_hash) DO NOTHING RETURNING 1',
    [hashOf(token), projectId, expiresAt.toISOString()],
  );
  return rows.length === 1;
}

/** releaseUploadUrl gives back the claim of a PUT that stored nothing, so the URL can be used again. */
export async function releaseUploadUrl(query: QueryFn, token: string): Promise<void> {
  await query('DELETE FROM used_upload_urls WHERE token_hash = $1', [hashOf(token)]);
}
