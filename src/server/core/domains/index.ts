/**
 * Sending domains on the server (spec part 2 §2 /account/domains, §3, §7): registering a domain with a
 * fresh 2048-bit DKIM key pair, listing domains with the records to publish, the DNS check that sets each record's
 * status (run at once after adding, then on DOMAIN_CHECK_CRON by the workers), and the signing keys the sender uses
 * for mail from a persona on a domain whose DKIM record is verified.
 */
import { generateKeyPair } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { promisify } from 'node:util';
import type { QueryFn } from '../../db/client.ts';
import type { AppContext } from '../../context.ts';
import type { ProjectScope } from '../scope.ts';
import { BadRequest, NotFound } from '../../errors.ts';
import {
  bounceDomainError,
  bounceDomainOf,
  bounceRecords,
  dkimStatus,
  dmarcStatus,
  domainRecords,
  mxStatus,
  normalizeDomain,
  sendingDomainError,
  spfStatus,
  isSpfRecord,
  mergeSpf,
  txtStrings,
  type VerificationStatus,
} from '../../../domain/sendingDomain.ts';
import type { components } from '../../../../generated/types/domains.gen.ts';
import { warmupStates, type WarmupState } from '../sending/dailyCaps.ts';
import { blocksByDomain, type DomainBlocks } from '../feedback/blocks.ts';

type DomainOut = components['schemas']['Domain'];

/** The DKIM selector of keys made by this service (s= of the signature; the record lives at mw1._domainkey.{domain}). */
export const DKIM_SELECTOR = 'mw1';

interface DomainRow {
  id: string;
  project_id: string;
  domain: string;
  dkim_selector: string;
  dkim_public_key: string;
  dkim_status: VerificationStatus;
  spf_status: VerificationStatus;
  spf_found: string[] | null;
  dmarc_status: VerificationStatus;
  bounce_domain: string | null;
  bounce_mx_status: VerificationStatus;
  bounce_spf_status: VerificationStatus;
  checked_at: Date | string | null;
  /** Day 1 of its warm-up (YYYY-MM-DD, UTC); null before its first real email. */
  warmup_started_on: string | null;
  created_at: Date | string;
}

const COLUMNS =
  'id, project_id, domain, dkim_selector, dkim_public_key, dkim_status, spf_status, spf_found, dmarc_status, bounce_domain, bounce_mx_status, bounce_spf_status, checked_at, warmup_started_on::text AS warmup_started_on, created_at';

/** What the records and checks depend on in the settings: the SPF record to publish and the inbound MX host. */
type RecordSettings = { spfRecord: string; inbound: { mxHost: string } };
const iso = (d: Date | string) => new Date(d).toISOString();

const NO_BLOCKS: DomainBlocks = { count: 0, by_relay: [], last: null };

function toDomain(row: DomainRow, settings: RecordSettings, warmup: WarmupState, blocks: DomainBlocks = NO_BLOCKS): DomainOut {
  const bounceDomain = bounceDomainOf(row.domain, row.bounce_domain);
  const records = domainRecords(row.domain, row.dkim_selector, row.dkim_public_key, settings.spfRecord, bounceDomain);
  const bounce = bounceRecords(bounceDomain, settings.inbound.mxHost, settings.spfRecord);
  // The one SPF record to publish: ours merged into whatever the domain publishes already.
  const spf = { ...records.spf, value: mergeSpf(row.spf_found ?? [], records.spf.value) };
  return {
    id: row.id,
    domain: row.domain,
    DkimVerificationStatus: row.dkim_status,
    dkim_selector: row.dkim_selector,
    dkim_public_key: row.dkim_public_key,
    records: {
      dkim: { ...records.dkim, strings: txtStrings(records.dkim.value), status: row.dkim_status },
      spf: { ...spf, strings: txtStrings(spf.value), found: row.spf_found, status: row.spf_status },
      dmarc: { ...records.dmarc, status: row.dmarc_status },
      bounce_mx: { ...bounce.mx, status: row.bounce_mx_status },
      bounce_spf: { ...bounce.spf, status: row.bounce_spf_status },
    },
    bounce_domain: bounceDomain,
    bounces_ready: row.bounce_mx_status === 'Success' && row.bounce_spf_status === 'Success',
    checked_at: row.checked_at ? iso(row.checked_at) : null,
    warmup,
    blocks_24h: blocks,
    created_at: iso(row.created_at),
  };
}

/**
 * withWarmup turns domain rows into the API's shape, with each one's warm-up today (core/sending/dailyCaps.ts) and its
 * sender-side blocks of the last 24 hours (core/feedback/blocks.ts).
 */
async function withWarmup(ctx: AppContext, rows: DomainRow[]): Promise<DomainOut[]> {
  const query = ctx.database.query.bind(ctx.database) as QueryFn;
  const states = await warmupStates(query, rows, ctx.config.warmupSchedule);
  const blocks = rows.length ? await blocksByDomain(query, rows[0].project_id) : new Map<string, DomainBlocks>();
  return rows.map((r) => toDomain(r, ctx.config, states.get(r.id)!, blocks.get(r.domain)));
}

/** listDomains returns the project's sending domains, oldest first, with their records, statuses and warm-up. */
export async function listDomains(ctx: AppContext, project: ProjectScope): Promise<DomainOut[]> {
  const rows = await ctx.database.query<DomainRow>(`SELECT ${COLUMNS} FROM sending_domains WHERE project_id = $1 ORDER BY created_at, domain`, [project.id]);
  return withWarmup(ctx, rows);
}

/**
 * addDomain registers `domain` (lower-cased) for the project with a new 2048-bit RSA key pair and enqueues its first
 * DNS check. Throws BadRequest naming `domain` for an invalid or already registered domain.
 */
export async function addDomain(ctx: AppContext, project: ProjectScope, input: string): Promise<DomainOut> {
  const invalid = sendingDomainError(input);
  if (invalid) throw new BadRequest([`domain: ${invalid}`]);
  const domain = normalizeDomain(input);
  // Key generation takes ~100 ms of CPU: on the thread pool, so the server keeps answering meanwhile.
  const { publicKey, privateKey } = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const [row] = await ctx.database.query<DomainRow>(
    `INSERT INTO sending_domains (project_id, domain, dkim_selector, dkim_private_key, dkim_public_key)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (project_id, domain) DO NOTHING RETURNING ${COLUMNS}`,
    [project.id, domain, DKIM_SELECTOR, privateKey, Buffer.from(publicKey).toString('base64')],
  );
  if (!row) throw new BadRequest([`domain: ${domain} is already registered`]);
  await ctx.queue.enqueue('domain-check', { domainIds: [row.id] });
  return (await withWarmup(ctx, [row]))[0];
}

/**
 * setBounceDomain sets the project's domain `id`'s bounce subdomain ('' for the default bounces.<domain>),
 * resets its MX and SPF statuses to Pending and enqueues a DNS check. Throws NotFound for another project's or an
 * unknown domain, BadRequest naming `bounce_domain` for a name that is not a subdomain of it.
 */
export async function setBounceDomain(ctx: AppContext, project: ProjectScope, id: string, input: string): Promise<DomainOut> {
  const [current] = await ctx.database.query<{ domain: string }>('SELECT domain FROM sending_domains WHERE id = $1 AND project_id = $2', [id, project.id]);
  if (!current) throw new NotFound([`id: no sending domain ${id}`]);
  const value = input.trim() ? normalizeDomain(input) : '';
  const invalid = value ? bounceDomainError(value, current.domain) : undefined;
  if (invalid) throw new BadRequest([`bounce_domain: ${invalid}`]);
  const [row] = await ctx.database.query<DomainRow>(
    `UPDATE sending_domains SET bounce_domain = $3, bounce_mx_status = 'Pending', bounce_spf_status = 'Pending'
      WHERE id = $1 AND project_id = $2 RETURNING ${COLUMNS}`,
    [id, project.id, value && value !== `bounces.${current.domain}` ? value : null],
  );
  await ctx.queue.enqueue('domain-check', { domainIds: [row.id] });
  return (await withWarmup(ctx, [row]))[0];
}

/**
 * isBounceDomain tells whether `domain` (lower case) is the bounce subdomain of a sending domain whose MX record
 * verifies: the only domains the inbound receiver takes mail for.
 */
export async function isBounceDomain(query: QueryFn, domain: string): Promise<boolean> {
  const rows = await query(`SELECT 1 FROM sending_domains WHERE coalesce(bounce_domain, 'bounces.' || domain) = $1 AND bounce_mx_status = 'Success' LIMIT 1`, [
    domain,
  ]);
  return rows.length > 0;
}

/** mxLookup returns the exchanges of the MX records at `name`, [] when there are none (rethrows other failures). */
async function mxLookup(resolver: Resolver, name: string): Promise<string[]> {
  try {
    return (await resolver.resolveMx(name)).map((r) => r.exchange);
  } catch (err) {
    if (['ENOTFOUND', 'ENODATA'].includes((err as NodeJS.ErrnoException).code ?? '')) return [];
    throw err;
  }
}

/**
 * txtLookup returns the TXT strings at `name` (each record's chunks joined), [] when the name or its TXT records do
 * not exist; rethrows other resolver failures (time-out, SERVFAIL), which leave a status as it was.
 */
async function txtLookup(resolver: Resolver, name: string): Promise<string[]> {
  try {
    return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  } catch (err) {
    if (['ENOTFOUND', 'ENODATA'].includes((err as NodeJS.ErrnoException).code ?? '')) return [];
    throw err;
  }
}

/** resolverFor returns a DNS resolver on the configured servers (the system's when none are configured). */
export function resolverFor(servers: string[]): Resolver {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  if (servers.length) resolver.setServers(servers);
  return resolver;
}

/**
 * checkDomains looks up the DKIM, SPF and DMARC records of the given domains (all domains when `ids` is omitted) and
 * stores each record's status and checked_at (UTC). A domain whose lookups fail for another reason than "not found"
 * keeps its statuses and is reported in the returned errors. Returns the statuses by domain id.
 */
export async function checkDomains(query: QueryFn, config: { dnsResolvers: string[] } & RecordSettings, ids?: string[]) {
  const rows = await query<DomainRow>(
    `SELECT ${COLUMNS} FROM sending_domains WHERE $1::uuid[] IS NULL OR id = ANY($1::uuid[]) ORDER BY checked_at NULLS FIRST`,
    [ids ?? null],
  );
  const resolver = resolverFor(config.dnsResolvers);
  const statuses = new Map<
    string,
    { dkim: VerificationStatus; spf: VerificationStatus; dmarc: VerificationStatus; bounceMx: VerificationStatus; bounceSpf: VerificationStatus }
  >();
  const errors: string[] = [];
  for (const row of rows) {
    const records = domainRecords(row.domain, row.dkim_selector, row.dkim_public_key, config.spfRecord);
    try {
      const bounceDomain = bounceDomainOf(row.domain, row.bounce_domain);
      const [[dkim, spf, dmarc, bounceSpf], mx] = await Promise.all([
        Promise.all([records.dkim.name, records.spf.name, records.dmarc.name, bounceDomain].map((name) => txtLookup(resolver, name))),
        mxLookup(resolver, bounceDomain),
      ]);
      const status = {
        dkim: dkimStatus(dkim, row.dkim_public_key),
        spf: spfStatus(spf),
        dmarc: dmarcStatus(dmarc),
        bounceMx: mxStatus(mx, config.inbound.mxHost),
        bounceSpf: spfStatus(bounceSpf),
      };
      await query(
        `UPDATE sending_domains SET dkim_status = $2, spf_status = $3, dmarc_status = $4, bounce_mx_status = $5, bounce_spf_status = $6,
                spf_found = $7::text[], checked_at = now()
          WHERE id = $1`,
        [row.id, status.dkim, status.spf, status.dmarc, status.bounceMx, status.bounceSpf, spf.filter(isSpfRecord)],
      );
      statuses.set(row.id, status);
    } catch (err) {
      errors.push(`${row.domain}: DNS lookup failed (${(err as Error).message})`);
    }
  }
  return { statuses, errors };
}

/** The domain part of a sender persona's address (p = sender_personas), lower case: what its sending domain is matched on. */
const PERSONA_ADDRESS_DOMAIN = `lower(substring(p.email from '@([^@]*)$'))`;

/**
 * PERSONA_DOMAIN: which sending domain a sender persona sends from: the project's registered domain equal to the
 * part of the persona's address after the @ (p = sender_personas, d = sending_domains).
 */
const PERSONA_DOMAIN = `FROM sender_personas p
       JOIN sending_domains d ON d.project_id = p.project_id AND d.domain = ${PERSONA_ADDRESS_DOMAIN}`;

/**
 * unsignedPersonaWarnings says, for each of the sender personas `personaIds` of project `projectId` whose mail would
 * go out without a DKIM signature, why, in words for the console: its domain is not a sending domain of the project,
 * or its DKIM record is not found (status not Success). The rule is dkimKeys' (a persona signs only from a verified
 * domain). One query; personas that would be signed, or do not exist, give nothing.
 */
export async function unsignedPersonaWarnings(query: QueryFn, projectId: string, personaIds: string[]): Promise<string[]> {
  if (!personaIds.length) return [];
  const rows = await query<{ email: string; domain: string; registered: boolean; dkim_status: string | null }>(
    `SELECT p.email, ${PERSONA_ADDRESS_DOMAIN} AS domain, d.id IS NOT NULL AS registered, d.dkim_status
       FROM sender_personas p
       LEFT JOIN sending_domains d ON d.project_id = p.project_id AND d.domain = ${PERSONA_ADDRESS_DOMAIN}
      WHERE p.project_id = $1 AND p.id = ANY($2::uuid[]) AND p.archived_at IS NULL AND (d.id IS NULL OR d.dkim_status <> 'Success')
      ORDER BY p.email`,
    [projectId, personaIds],
  );
  return rows.map((r) =>
    r.registered
      ? `Mail from ${r.email} will not be DKIM-signed: the DKIM record of ${r.domain} is not found in DNS yet (Domain settings shows the record to publish). Receivers trust unsigned mail less.`
      : `Mail from ${r.email} will not be DKIM-signed: ${r.domain} is not a sending domain of this account. Add it in Domain settings and publish its records. Receivers trust unsigned mail less.`,
  );
}

/** A DKIM signing key: what nodemailer's DKIM signer takes. */
export interface DkimKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

/**
 * dkimKeys returns, for each of the sender personas whose address is on a verified (DKIM Success) sending domain of
 * its project, that domain's signing key, keyed by persona id. One query, so the sender runs it beside its others.
 */
export async function dkimKeys(query: QueryFn, personaIds: string[]): Promise<Map<string, DkimKey>> {
  if (!personaIds.length) return new Map();
  const rows = await query<{ persona_id: string; domain: string; dkim_selector: string; dkim_private_key: string }>(
    `SELECT p.id AS persona_id, d.domain, d.dkim_selector, d.dkim_private_key ${PERSONA_DOMAIN}
      WHERE p.id = ANY($1::uuid[]) AND d.dkim_status = 'Success'`,
    [personaIds],
  );
  return new Map(rows.map((r) => [r.persona_id, { domainName: r.domain, keySelector: r.dkim_selector, privateKey: r.dkim_private_key }]));
}

/**
 * personaSendingDomains returns, for each of the sender personas whose address is on a registered sending domain of
 * its project (verified or not), that domain's id and name, keyed by persona id: what the warm-up counts
 * (core/sending/dailyCaps.ts); and, once its bounce subdomain's MX and SPF records verify, that subdomain as
 * `returnPathDomain`: the domain of each email's per-message return path (mail/returnPath.ts). One query.
 */
export async function personaSendingDomains(
  query: QueryFn,
  personaIds: string[],
): Promise<Map<string, { id: string; domain: string; returnPathDomain?: string }>> {
  if (!personaIds.length) return new Map();
  const rows = await query<{ persona_id: string; id: string; domain: string; bounce_domain: string | null; bounces_ready: boolean }>(
    `SELECT p.id AS persona_id, d.id, d.domain, d.bounce_domain, (d.bounce_mx_status = 'Success' AND d.bounce_spf_status = 'Success') AS bounces_ready
       ${PERSONA_DOMAIN} WHERE p.id = ANY($1::uuid[])`,
    [personaIds],
  );
  return new Map(
    rows.map((r) => [
      r.persona_id,
      { id: r.id, domain: r.domain, ...(r.bounces_ready ? { returnPathDomain: bounceDomainOf(r.domain, r.bounce_domain) } : {}) },
    ]),
  );
}

/**
 * personaWarmup returns the warm-up today (UTC day of `now`, ms) of the sending domain sender persona `personaId`
 * sends from, or undefined when its address is on no registered domain of its project. Two statements.
 */
export async function personaWarmup(
  query: QueryFn,
  personaId: string,
  schedule: readonly number[] | null,
  now: number = Date.now(),
): Promise<{ domain: string; state: WarmupState } | undefined> {
  const [row] = await query<{ id: string; domain: string; warmup_started_on: string | null }>(
    `SELECT d.id, d.domain, d.warmup_started_on::text AS warmup_started_on ${PERSONA_DOMAIN} WHERE p.id = $1`,
    [personaId],
  );
  if (!row) return undefined;
  const states = await warmupStates(query, [row], schedule, now);
  return { domain: row.domain, state: states.get(row.id)! };
}
