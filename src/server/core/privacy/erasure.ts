/**
 * Erasure (openapi/user.yaml eraseContacts; README "Privacy"; docs/architecture.md §24): a person's data leaves the
 * project for good, and the address is never stored again.
 *
 * One transaction per request: the contacts (by id, and every contact, live or archived, with one of the addresses)
 * and their per-contact data go — attributes, segment memberships, workflow runs and their steps, topic choices (on
 * the contact row), consents (copied to the privacy audit without the address or IPs first), suppressions of the
 * address, engagement counts. What counts for reports is kept and made anonymous: each event, outbox row and report
 * key that named the person now names a pseudonym instead (a random address `<uuid>@erased.invalid` per address and
 * a random id per contact, stored nowhere else), so every report's totals, distinct counts included, are unchanged;
 * the address is replaced in every text the project kept about those emails (submissions, relay answers, webhook
 * payloads, job logs, idempotency answers, queued jobs). The stored copies of the person's emails are deleted from
 * storage (folder or S3) before the transaction. A tombstone per address stays: its HMAC under the erasure key
 * (./key.ts), which imports, the contacts API, forms and sends check. An audit row says who, when and how many.
 */
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { QueryFn } from '../../db/client.ts';
import { FieldErrors } from '../../errors.ts';
import { decodeLocation } from '../../../domain/location.ts';
import { checkEmail } from '../../../domain/validation.ts';
import { addressHash, erasureKey, normalisedAddress } from './key.ts';
import { ANONYMISE_OUTBOX } from '../sending/anonymise.ts';
import { anonymiseEvents } from '../events/anonymise.ts';

/** At most this many ids plus addresses per request (one transaction). */
export const ERASE_MAX = 10_000;

/** What an erasure did: contacts deleted, addresses tombstoned, stored copies deleted. */
export interface ErasureResult {
  contacts: number;
  addresses: number;
  copies: number;
}

/** The project's contacts named by id, or with one of the addresses (live or archived), with their addresses. */
const CONTACTS_TO_ERASE = `SELECT id, lower(btrim(email)) AS address FROM contacts
  WHERE project_id = $1 AND (id IN (SELECT unnest($2::uuid[])) OR lower(btrim(email)) IN (SELECT unnest($3::text[])))`;

/** The stored copies of the emails to the contacts $2 or the addresses $3 (outbox.location). */
const COPIES_TO_ERASE = `SELECT location FROM outbox
  WHERE project_id = $1 AND (contact_id IN (SELECT unnest($2::uuid[])) OR lower(btrim(email)) IN (SELECT unnest($3::text[]))) AND location IS NOT NULL`;

/**
 * eraseContacts erases the contacts `ids` and the addresses `emails` of project `projectId` (see the module comment),
 * recording `actor` ('api', 'console:<user id>', 'the person') in the audit. An address with no contact is tombstoned
 * all the same. Throws FieldErrors (400) naming `ids[i]` for an id that is not a contact of the project (another
 * project's included) and `emails[i]` for a malformed address; nothing is erased then. Storage errors (a copy that
 * cannot be deleted) are thrown before anything in the database changes.
 */
export async function eraseContacts(
  ctx: Pick<AppContext, 'database' | 'storage' | 'config'>,
  projectId: string,
  req: { ids?: string[]; emails?: string[] },
  actor: string,
): Promise<ErasureResult> {
  const ids = req.ids ?? [];
  const emails = req.emails ?? [];
  const errs = new FieldErrors();
  if (!ids.length && !emails.length) errs.add('ids', 'give ids or emails of the contacts to erase');
  if (ids.length + emails.length > ERASE_MAX) errs.add('ids', `at most ${ERASE_MAX} ids and emails in one request`);
  emails.forEach((e, i) => {
    const problem = checkEmail(e.trim());
    if (problem) errs.add(`emails[${i}]`, problem);
  });
  errs.throwIfAny();
  const query = ctx.database.query;
  const given = [...new Set(emails.map(normalisedAddress))];
  const found = await query<{ id: string; address: string }>(CONTACTS_TO_ERASE, [projectId, ids, given]);
  const foundIds = new Set(found.map((c) => c.id));
  ids.forEach((id, i) => {
    if (!foundIds.has(id)) errs.add(`ids[${i}]`, `no contact ${id} in this project`);
  });
  errs.throwIfAny();
  // Every contact with one of the addresses goes too (an archived duplicate keeps the same person's data).
  const addresses = [...new Set([...given, ...found.map((c) => c.address)])];
  const contacts = addresses.length > given.length ? await query<{ id: string; address: string }>(CONTACTS_TO_ERASE, [projectId, ids, addresses]) : found;
  const contactIds = contacts.map((c) => c.id);

  // The stored copies first: once the rows are anonymous nothing would find them.
  const copies = await query<{ location: string }>(COPIES_TO_ERASE, [projectId, contactIds, addresses]);
  const byBucket = new Map<string, string[]>();
  for (const { location } of copies) {
    const at = decodeLocation(location);
    if (at) byBucket.set(at.bucket, [...(byBucket.get(at.bucket) ?? []), at.key]);
  }
  for (const [bucket, keys] of byBucket) await ctx.storage.deleteMany(bucket, keys);

  const key = erasureKey(ctx.config);
  const aliases = addresses.map(() => `${randomUUID()}@erased.invalid`);
  const params = [
    projectId,
    addresses,
    aliases,
    contactIds,
    contactIds.map(() => randomUUID()),
    contacts.map((c) => c.address),
    addresses.map((a) => addressHash(key, a)),
  ];
  untouched.delete(projectId);
  await ctx.database.transaction(async (tx) => {
    const consents = await tx<Record<string, unknown>>(
      `SELECT form_id, consent_text, submitted_at, confirmed_at FROM consents
        WHERE project_id = $1 AND (contact_id IN (SELECT unnest($2::uuid[])) OR lower(btrim(email)) IN (SELECT unnest($3::text[]))) ORDER BY submitted_at`,
      [projectId, contactIds, addresses],
    );
    await eraseRows(tx, params);
    await tx(`INSERT INTO privacy_audit (project_id, action, actor, contacts, addresses, details) VALUES ($1, 'erase', $2, $3, $4, $5::jsonb)`, [
      projectId,
      actor,
      contactIds.length,
      addresses.length,
      JSON.stringify({ consents, copies: copies.length }),
    ]);
  });
  return { contacts: contactIds.length, addresses: addresses.length, copies: copies.length };
}

/** LIKE patterns matching a text that contains one of `addresses` anywhere (`%`, `_` and `\` escaped). */
function likePatterns(addresses: string[]): string[] {
  return addresses.map((a) => `%${a.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
}

/**
 * eraseRows runs the erasure's statements in transaction `tx`. `p`: project, addresses, their pseudonyms, contact ids,
 * their pseudonym ids, the contacts' addresses, the tombstones.
 */
async function eraseRows(tx: QueryFn, p: unknown[]): Promise<void> {
  const [projectId, addresses, aliases, contactIds, aliasIds, contactAddresses, hashes] = p as [
    string,
    string[],
    string[],
    string[],
    string[],
    string[],
    string[],
  ];
  const maps = [projectId, addresses, aliases, contactIds, aliasIds, contactAddresses];
  const aliasOf = new Map(addresses.map((a, i) => [a, aliases[i]]));
  const like = likePatterns(addresses);
  // Emails: each outbox row names the pseudonyms; what it kept in text (its triggering event, the relay's answer) loses the address.
  const outbox = await tx<{ id: string; submission_id: string | null; message_id: string }>(ANONYMISE_OUTBOX, maps);
  const outboxIds = outbox.map((o) => o.id);
  const submissionIds = [...new Set(outbox.map((o) => o.submission_id).filter((s): s is string => !!s))];
  const messageIds = outbox.map((o) => o.message_id);
  // Events: the pseudonyms in place of the address and the contact; the address gone from their data.
  await anonymiseEvents(
    tx,
    projectId,
    { ids: contactIds, aliasIds, addresses: contactAddresses, aliases: contactAddresses.map((a) => aliasOf.get(a)!) },
    { addresses, aliases },
  );
  const scrub = (col: string, cast = '') => `erase_addresses(${col}${cast ? '::text' : ''}, $2::text[], $3::text[])${cast}`;
  const steps: Array<[string, unknown[]]> = [
    [
      `UPDATE submissions SET content = ${scrub('content', '::jsonb')}, metadata = ${scrub('metadata', '::jsonb')},
              tags = ARRAY(SELECT erase_addresses(x, $2::text[], $3::text[]) FROM unnest(tags) AS x) WHERE project_id = $1 AND id IN (SELECT unnest($4::uuid[]))`,
      [projectId, addresses, aliases, submissionIds],
    ],
    [
      `UPDATE message_attempts SET detail = ${scrub('detail')} WHERE project_id = $1 AND outbox_id IN (SELECT unnest($4::bigint[]))`,
      [projectId, addresses, aliases, outboxIds],
    ],
    [
      `UPDATE webhook_deliveries SET payload = ${scrub('payload', '::jsonb')}
        WHERE project_id = $1 AND ((payload->'data'->>'message_id') IN (SELECT unnest($4::text[])) OR payload::text ILIKE ANY($5::text[]))`,
      [projectId, addresses, aliases, messageIds, like],
    ],
    [
      `UPDATE email_blasts SET to_user_emails = ${scrub('to_user_emails', '::jsonb')} WHERE project_id = $1 AND to_user_emails::text ILIKE ANY($4::text[])`,
      [projectId, addresses, aliases, like],
    ],
    [
      `UPDATE job_log SET start_details = ${scrub('start_details', '::jsonb')}, end_details = ${scrub('end_details', '::jsonb')}
        WHERE project_id = $1 AND (start_details::text ILIKE ANY($4::text[]) OR end_details::text ILIKE ANY($4::text[]))`,
      [projectId, addresses, aliases, like],
    ],
    [
      `UPDATE event_batches SET response = ${scrub('response', '::jsonb')} WHERE project_id = $1 AND response::text ILIKE ANY($4::text[])`,
      [projectId, addresses, aliases, like],
    ],
    // A report's key of an event without a Message-ID is its address (core/reports: 'email:' || lower(email)).
    [
      `UPDATE report_firsts r SET message_key = 'email:' || a.alias FROM unnest($2::text[], $3::text[]) AS a(address, alias)
        WHERE r.project_id = $1 AND r.message_key = 'email:' || a.address`,
      [projectId, addresses, aliases],
    ],
    // The subscribe forms' per-address throttle is keyed by the address.
    [
      `DELETE FROM rate_limits WHERE key LIKE ANY(SELECT 'subscribe-email:%:' || replace(replace(replace(x, '\\', '\\\\'), '%', '\\%'), '_', '\\_') FROM unnest($1::text[]) x)`,
      [addresses],
    ],
    [
      `DELETE FROM consents WHERE project_id = $1 AND (contact_id IN (SELECT unnest($2::uuid[])) OR lower(btrim(email)) IN (SELECT unnest($3::text[])))`,
      [projectId, contactIds, addresses],
    ],
    [`DELETE FROM segment_members WHERE contact_id IN (SELECT unnest($1::uuid[]))`, [contactIds]],
    [
      `DELETE FROM workflow_steps WHERE run_id IN (SELECT id FROM workflow_runs WHERE project_id = $1 AND (contact_id IN (SELECT unnest($2::uuid[])) OR lower(btrim(email)) IN (SELECT unnest($3::text[]))))`,
      [projectId, contactIds, addresses],
    ],
    [
      `DELETE FROM workflow_runs WHERE project_id = $1 AND (contact_id IN (SELECT unnest($2::uuid[])) OR lower(btrim(email)) IN (SELECT unnest($3::text[])))`,
      [projectId, contactIds, addresses],
    ],
    [`DELETE FROM contact_event_counts WHERE contact_id IN (SELECT unnest($1::uuid[]))`, [contactIds]],
    [`DELETE FROM suppressions WHERE project_id = $1 AND lower(btrim(email)) IN (SELECT unnest($2::text[]))`, [projectId, addresses]],
    [`DELETE FROM contacts WHERE project_id = $1 AND id IN (SELECT unnest($2::uuid[]))`, [projectId, contactIds]],
    [`INSERT INTO erasures (project_id, address_hash) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`, [projectId, hashes]],
  ];
  for (const [text, params] of steps) await tx(text, params);
  // Jobs waiting in pg-boss may carry the address in their data (a queued webhook, an import's row).
  const [{ boss }] = await tx<{ boss: string | null }>(`SELECT to_regclass('pgboss.job')::text AS boss`);
  if (boss)
    await tx(`UPDATE pgboss.job SET data = erase_addresses(data::text, $1::text[], $2::text[])::jsonb WHERE data::text ILIKE ANY($3::text[])`, [
      addresses,
      aliases,
      like,
    ]);
}

/** Projects known to have no tombstone, with when that was read (ms); a send then needs no lookup. */
const untouched = new Map<string, number>();
/** How long "no tombstone" is believed (ms): an erasure in another process is seen by sends within this time. */
const UNTOUCHED_MS = 1000;

/**
 * erasedAddresses returns which of `emails` (as given) project `projectId` has tombstones for, under `key`: the sends'
 * check (core/sending/submission.ts), which refuses them before storing anything. A project without any tombstone is
 * remembered for UNTOUCHED_MS, so sends pay one lookup a second, not one a message; an erasure in this process
 * forgets it at once.
 */
export async function erasedAddresses(query: QueryFn, key: string, projectId: string, emails: string[]): Promise<string[]> {
  if (!emails.length) return [];
  const seen = untouched.get(projectId);
  if (seen !== undefined && Date.now() - seen < UNTOUCHED_MS) return [];
  const hashes = emails.map((e) => addressHash(key, e));
  const [row] = await query<{ any: boolean; found: string[] }>(
    `SELECT EXISTS (SELECT 1 FROM erasures WHERE project_id = $1) AS any,
            ARRAY(SELECT address_hash FROM erasures WHERE project_id = $1 AND address_hash = ANY($2::text[])) AS found`,
    [projectId, hashes],
  );
  if (!row.any) {
    if (untouched.size > 10_000) untouched.clear();
    untouched.set(projectId, Date.now());
    return [];
  }
  const found = new Set(row.found);
  return emails.filter((_, i) => found.has(hashes[i]));
}
