/**
 * DMARC aggregate reports (RFC 7489 §7.2, Appendix C): receivers that honour a sending domain's DMARC record send a
 * daily XML report of the mail they saw with the domain in From — per source IP, how many messages, whether DKIM and
 * SPF passed aligned (policy_evaluated) and what the receiver did with them — to the record's rua address. The address
 * this service suggests is `dmarc@<bounce subdomain>` (domain/sendingDomain.ts domainRecords), whose MX already points
 * at the inbound receiver (gateways/inbound/receiver.ts), which hands such mail to applyDmarcReport.
 *
 * Reading a report never trusts it: the attachment (gzip, zip or plain XML) is inflated to at most
 * DMARC_MAX_XML_BYTES, counted on the bytes actually inflated, not the sizes the archive declares; a document with a
 * DOCTYPE or an entity declaration is refused before parsing (no entity is ever expanded: saxes, a strict parser,
 * knows only XML's five predefined entities); a report missing a required field, or about a domain that is not a
 * sending domain of the project the address belongs to, is refused whole. A report is stored in one transaction, once
 * per reporter and report id (a copy sent again changes nothing).
 *
 * dmarcSummary reads the stored rows back for GET /domains/{id}/dmarc: per UTC day, overall, and per source IP, with
 * the sources that are this install's relays (SMTP_URL's hosts, resolved) named.
 */
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import type { Readable } from 'node:stream';
import { SaxesParser } from 'saxes';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import ipaddr from 'ipaddr.js';
import { simpleParser } from 'mailparser';
import type { Database, QueryFn } from '../../db/client.ts';
import type { Config } from '../../config.ts';
import type { ProjectScope } from '../scope.ts';
import { NotFound } from '../../errors.ts';
import { bounceDomainOf } from '../../../domain/sendingDomain.ts';
import { dmarcNextStep, type DmarcPolicy } from '../../../domain/dmarc.ts';
import { parseRelayUrl } from '../sending/relays.ts';
import type { components } from '../../../../generated/types/domains.gen.ts';

type DmarcReportOut = components['schemas']['DmarcReport'];

/** The most XML bytes a report may inflate to (20 MiB): a bigger one is refused, whatever its archive declares. */
export const DMARC_MAX_XML_BYTES = 20 * 1024 * 1024;

/** The most rows (record elements) one report may hold. */
export const DMARC_MAX_RECORDS = 200_000;

/** The local part of the rua address at each bounce subdomain. */
export const DMARC_LOCAL_PART = 'dmarc';

/** Why a report was refused: for the log and the inbound metric. */
export type DmarcRefusalReason =
  | 'no_report' // no attachment that is a report
  | 'too_large' // it inflates past DMARC_MAX_XML_BYTES (or holds too many records)
  | 'hostile' // a DOCTYPE or entity declaration
  | 'malformed' // not well-formed XML, a broken archive, a required field missing or invalid
  | 'unknown_address' // the dmarc@ address is no project's verified bounce subdomain, or more than one's
  | 'foreign_domain'; // policy_published's domain is not a sending domain of the address's project

/** DmarcRefused: the report is refused; `reason` says why in one word, the message in words. */
export class DmarcRefused extends Error {
  constructor(
    readonly reason: DmarcRefusalReason,
    message: string,
  ) {
    super(message);
  }
}

/** One row of a report (`record`): `count` messages from `sourceIp`, with the receiver's verdicts. */
export interface DmarcRow {
  /** The source IP address, normalised (IPv4 dotted, IPv6 compressed; an IPv4-mapped IPv6 address as IPv4). */
  sourceIp: string;
  count: number;
  /** policy_evaluated/disposition: none, quarantine or reject. */
  disposition: 'none' | 'quarantine' | 'reject';
  /** policy_evaluated/dkim and spf: DMARC's verdict (aligned and passing), pass or fail. */
  dkim: 'pass' | 'fail';
  spf: 'pass' | 'fail';
  /** identifiers/header_from, lower case. */
  headerFrom: string;
  /** The first auth_results/dkim's domain and result, and the first auth_results/spf's; null when absent. */
  dkimDomain: string | null;
  dkimResult: string | null;
  spfDomain: string | null;
  spfResult: string | null;
}

/** A parsed aggregate report (RFC 7489 Appendix C `feedback`). */
export interface DmarcReport {
  orgName: string;
  orgEmail: string | null;
  reportId: string;
  /** date_range begin and end (seconds since the epoch in the XML). */
  begin: Date;
  end: Date;
  /** policy_published/domain, lower case without a trailing dot. */
  domain: string;
  /** policy_published's other fields as reported (p, sp, pct, adkim, aspf, fo, np), lower case values. */
  policy: Record<string, string>;
  records: DmarcRow[];
}

/** An XML element as read: its local name (prefix dropped), its child elements and its text. */
interface XmlNode {
  name: string;
  children: XmlNode[];
  text: string;
}

/** The deepest element nesting a report needs is 5 (feedback/record/auth_results/dkim/domain); more is refused. */
const MAX_DEPTH = 12;
/**
 * The most elements a report may hold (about 20,000 records of some 25 elements each): counted as they open, so a
 * small gzip of millions of empty elements is refused before it becomes millions of objects in memory.
 */
export const DMARC_MAX_ELEMENTS = 500_000;

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

/**
 * parseXmlTree parses `xml` into elements, refusing a DOCTYPE or entity declaration (hostile) and anything that is not
 * well-formed (malformed). Namespaces are ignored: elements are matched by local name, as reporters use no, the RFC's
 * or their own namespace.
 */
function parseXmlTree(xml: string): XmlNode {
  // Refused before the parser sees it: no report needs a DTD, and entity declarations are how expansion attacks
  // (billion laughs) and external entities (XXE) start.
  if (/<!(DOCTYPE|ENTITY)/i.test(xml)) throw new DmarcRefused('hostile', 'the report declares a DOCTYPE or an entity');
  const parser = new SaxesParser({ position: false });
  const root: XmlNode = { name: '', children: [], text: '' };
  const stack: XmlNode[] = [root];
  parser.on('doctype', () => {
    throw new DmarcRefused('hostile', 'the report declares a DOCTYPE');
  });
  let elements = 0;
  parser.on('opentag', (tag) => {
    if (stack.length > MAX_DEPTH) throw new DmarcRefused('malformed', 'the report nests elements too deeply');
    if (++elements > DMARC_MAX_ELEMENTS) throw new DmarcRefused('too_large', `the report holds more than ${DMARC_MAX_ELEMENTS} elements`);
    const node: XmlNode = { name: localName(tag.name), children: [], text: '' };
    stack[stack.length - 1].children.push(node);
    stack.push(node);
  });
  parser.on('closetag', () => void stack.pop());
  const onText = (t: string) => {
    const top = stack[stack.length - 1];
    // Only leaf values are read, and none is long: text past 1,000 characters is not kept.
    if (top.text.length < 1000) top.text += t;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  try {
    parser.write(xml).close();
  } catch (err) {
    if (err instanceof DmarcRefused) throw err;
    throw new DmarcRefused('malformed', `the report is not well-formed XML (${(err as Error).message})`);
  }
  if (root.children.length !== 1) throw new DmarcRefused('malformed', 'the report has no root element');
  return root.children[0];
}

const child = (node: XmlNode | undefined, name: string) => node?.children.find((c) => c.name === name);
const children = (node: XmlNode | undefined, name: string) => node?.children.filter((c) => c.name === name) ?? [];
/** text of the child `name`, trimmed; undefined when absent or empty. */
const textOf = (node: XmlNode | undefined, name: string) => child(node, name)?.text.trim() || undefined;

/**
 * required: the trimmed text of `path` below `node` (the element at `section`, for the message), at most `max`
 * characters; refuses the report when missing or longer.
 */
function required(node: XmlNode | undefined, section: string, path: string, max = 255): string {
  const names = path.split('/');
  let at = node;
  for (const n of names.slice(0, -1)) at = child(at, n);
  const value = textOf(at, names[names.length - 1]);
  const field = `${section}/${path}`;
  if (value === undefined) throw new DmarcRefused('malformed', `the report has no ${field}`);
  if (value.length > max) throw new DmarcRefused('malformed', `the report's ${field} is longer than ${max} characters`);
  return value;
}

/** optional: like required, but undefined when missing; a value over `max` characters is cut. */
function optional(node: XmlNode | undefined, name: string, max = 255): string | null {
  return textOf(node, name)?.slice(0, max) ?? null;
}

/** epochSeconds reads a date_range bound (RFC 7489 Appendix C: seconds since the epoch, UTC). */
function epochSeconds(value: string, field: string): Date {
  if (!/^\d{1,12}$/.test(value)) throw new DmarcRefused('malformed', `the report's ${field} is not seconds since the epoch: ${value.slice(0, 40)}`);
  return new Date(Number(value) * 1000);
}

/** oneOf: `value` lower-cased when it is one of `allowed`; refuses the report otherwise. */
function oneOf<T extends string>(value: string, allowed: readonly T[], field: string): T {
  const v = value.toLowerCase() as T;
  if (!allowed.includes(v)) throw new DmarcRefused('malformed', `the report's ${field} is not ${allowed.join(', ')}: ${value.slice(0, 40)}`);
  return v;
}

/** normalizeIp: an IP address in its canonical text (an IPv4-mapped IPv6 address as IPv4); undefined when not one. */
export function normalizeIp(value: string): string | undefined {
  const v = value.trim();
  if (!ipaddr.isValid(v)) return undefined;
  return ipaddr.process(v).toString();
}

/** A domain as stored: trimmed, lower case, without the DNS root's trailing dot. */
const domainName = (value: string) => value.trim().toLowerCase().replace(/\.$/, '');

/**
 * parseDmarcXml reads one aggregate report's XML (RFC 7489 Appendix C; the reporters' variants: a namespace or
 * none, Microsoft's `version` and `xmlns:xsi`, Google's `extra_contact_info`) into a DmarcReport. Pure. Required:
 * report_metadata org_name, report_id and date_range begin/end (epoch seconds); policy_published domain; at least one
 * record, each with row source_ip (an IP address), count (0 to 2^31-1), policy_evaluated disposition (none, quarantine,
 * reject), dkim and spf (pass, fail), and identifiers header_from. auth_results are optional; the first dkim and the
 * first spf are kept. Throws DmarcRefused ('hostile' for a DOCTYPE or entity declaration, 'too_large' past
 * DMARC_MAX_RECORDS, 'malformed' otherwise) naming the field.
 */
export function parseDmarcXml(xml: string): DmarcReport {
  const feedback = parseXmlTree(xml.replace(/^\uFEFF/, ''));
  if (feedback.name !== 'feedback') throw new DmarcRefused('malformed', `the report's root element is ${feedback.name.slice(0, 40)}, not feedback`);
  const meta = child(feedback, 'report_metadata');
  const published = child(feedback, 'policy_published');
  const begin = epochSeconds(required(meta, 'report_metadata', 'date_range/begin'), 'date_range/begin');
  const end = epochSeconds(required(meta, 'report_metadata', 'date_range/end'), 'date_range/end');
  if (end < begin) throw new DmarcRefused('malformed', "the report's date_range ends before it begins");
  const policy: Record<string, string> = {};
  for (const name of ['p', 'sp', 'pct', 'adkim', 'aspf', 'fo', 'np']) {
    const value = optional(published, name, 40);
    if (value !== null) policy[name] = value.toLowerCase();
  }
  const records = children(feedback, 'record');
  if (!records.length) throw new DmarcRefused('malformed', 'the report has no record');
  if (records.length > DMARC_MAX_RECORDS) throw new DmarcRefused('too_large', `the report has more than ${DMARC_MAX_RECORDS} records`);
  return {
    orgName: required(meta, 'report_metadata', 'org_name'),
    orgEmail: optional(meta, 'email'),
    reportId: required(meta, 'report_metadata', 'report_id'),
    begin,
    end,
    domain: domainName(required(published, 'policy_published', 'domain')),
    policy,
    records: records.map(parseRecord),
  };
}

/** parseRecord reads one `record` element (see parseDmarcXml). */
function parseRecord(record: XmlNode): DmarcRow {
  const row = child(record, 'row');
  const evaluated = child(row, 'policy_evaluated');
  const rawIp = required(row, 'record/row', 'source_ip', 64);
  const sourceIp = normalizeIp(rawIp);
  if (!sourceIp) throw new DmarcRefused('malformed', `the report's record/row/source_ip is not an IP address: ${rawIp}`);
  const rawCount = required(row, 'record/row', 'count', 12);
  const count = Number(rawCount);
  if (!/^\d+$/.test(rawCount) || count > 2 ** 31 - 1) throw new DmarcRefused('malformed', `the report's record/row/count is not a count: ${rawCount}`);
  const auth = child(record, 'auth_results');
  const dkim = child(auth, 'dkim');
  const spf = child(auth, 'spf');
  const lower = (v: string | null) => (v === null ? null : v.toLowerCase());
  return {
    sourceIp,
    count,
    disposition: oneOf(
      required(evaluated, 'record/row/policy_evaluated', 'disposition', 40),
      ['none', 'quarantine', 'reject'] as const,
      'record/row/policy_evaluated/disposition',
    ),
    dkim: oneOf(required(evaluated, 'record/row/policy_evaluated', 'dkim', 40), ['pass', 'fail'] as const, 'record/row/policy_evaluated/dkim'),
    spf: oneOf(required(evaluated, 'record/row/policy_evaluated', 'spf', 40), ['pass', 'fail'] as const, 'record/row/policy_evaluated/spf'),
    headerFrom: domainName(required(child(record, 'identifiers'), 'record/identifiers', 'header_from')),
    dkimDomain: dkim ? lower(optional(dkim, 'domain')) : null,
    dkimResult: dkim ? lower(optional(dkim, 'result', 20)) : null,
    spfDomain: spf ? lower(optional(spf, 'domain')) : null,
    spfResult: spf ? lower(optional(spf, 'result', 20)) : null,
  };
}

const tooLarge = (limit: number) => new DmarcRefused('too_large', `the report inflates to more than ${limit} bytes`);

/** inflateGzip inflates gzip data, stopping (too_large) once the output passes `limit` bytes (zlib's maxOutputLength). */
async function inflateGzip(data: Buffer, limit: number): Promise<Buffer> {
  try {
    return await promisify(gunzip)(data, { maxOutputLength: limit });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw tooLarge(limit);
    throw new DmarcRefused('malformed', `the gzip attachment cannot be read (${(err as Error).message})`);
  }
}

/** The most zip entries looked at for the report (a report's zip holds one). */
const MAX_ZIP_ENTRIES = 10;

/**
 * inflateZip returns the first `.xml` entry of a zip archive (yauzl), refusing one whose declared size passes `limit`
 * and stopping the inflation itself once the bytes actually inflated pass it (a declared size may lie; yauzl's
 * validateEntrySizes also refuses an entry that inflates to more or less than it declares).
 */
async function inflateZip(data: Buffer, limit: number): Promise<Buffer> {
  let zip: ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(data, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false });
  } catch (err) {
    throw new DmarcRefused('malformed', `the zip attachment cannot be read (${(err as Error).message})`);
  }
  try {
    for (let seen = 0; seen < MAX_ZIP_ENTRIES; seen++) {
      const entry = await new Promise<Entry | undefined>((resolve, reject) => {
        zip.once('entry', resolve);
        zip.once('end', () => resolve(undefined));
        zip.once('error', reject);
        zip.readEntry();
      }).finally(() => zip.removeAllListeners());
      if (!entry) break;
      if (!/\.xml$/i.test(entry.fileName)) continue;
      if (entry.uncompressedSize > limit) throw tooLarge(limit);
      const stream = await new Promise<Readable>((resolve, reject) => zip.openReadStream(entry, (err, s) => (err || !s ? reject(err) : resolve(s))));
      const chunks: Buffer[] = [];
      let bytes = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (bytes > limit) {
          stream.destroy();
          throw tooLarge(limit);
        }
        chunks.push(chunk);
      }
      return Buffer.concat(chunks);
    }
  } catch (err) {
    if (err instanceof DmarcRefused) throw err;
    // yauzl's validateEntrySizes: the entry inflates to more than its headers declare.
    if (/too many bytes/.test((err as Error).message)) throw tooLarge(limit);
    throw new DmarcRefused('malformed', `the zip attachment cannot be read (${(err as Error).message})`);
  } finally {
    zip.close();
  }
  throw new DmarcRefused('no_report', 'the zip attachment holds no .xml file');
}

/**
 * unpackDmarcAttachment returns a report attachment's XML text: gzip (RFC 1952 magic 1f 8b) and zip (PK\x03\x04) are
 * inflated, anything else is taken as the XML itself; by content, not by name or media type, which reporters
 * get wrong. Throws DmarcRefused: too_large once the XML passes `limit` bytes (default DMARC_MAX_XML_BYTES), malformed
 * for a broken archive, no_report for a zip without an .xml entry.
 */
export async function unpackDmarcAttachment(data: Buffer, limit = DMARC_MAX_XML_BYTES): Promise<string> {
  let xml: Buffer;
  if (data[0] === 0x1f && data[1] === 0x8b) xml = await inflateGzip(data, limit);
  else if (data.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))) xml = await inflateZip(data, limit);
  else if (data.length > limit) throw tooLarge(limit);
  else xml = data;
  return xml.toString('utf8');
}

/** Attachment names and media types a report comes as (RFC 7489 §7.2.1.1: gzip; zip and plain XML in practice). */
const REPORT_NAME = /\.(xml|xml\.gz|gz|zip)$/i;
const REPORT_TYPE = /^(application\/(gzip|x-gzip|zip|x-zip|x-zip-compressed|xml|octet-stream)|text\/xml)$/i;

/**
 * readDmarcMessage reads an email carrying an aggregate report (RFC 7489 §7.2.1.1) and returns the report: its first
 * attachment named or typed as a report (a message whose whole body is the gzip counts too), unpacked and parsed.
 * Throws DmarcRefused (see unpackDmarcAttachment and parseDmarcXml); no_report when the email carries none.
 */
export async function readDmarcMessage(raw: Buffer, limit = DMARC_MAX_XML_BYTES): Promise<DmarcReport> {
  const mail = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
  const attachment = mail.attachments.find((a) => REPORT_NAME.test(a.filename ?? '') || REPORT_TYPE.test(a.contentType));
  if (!attachment) throw new DmarcRefused('no_report', 'the email has no report attachment (.xml.gz, .zip or .xml)');
  return parseDmarcXml(await unpackDmarcAttachment(attachment.content, limit));
}

/** isDmarcAddress: whether an envelope recipient is a rua address of ours in form (dmarc@…, any case). */
export function isDmarcAddress(address: string): boolean {
  const at = address.lastIndexOf('@');
  return at > 0 && address.slice(0, at).toLowerCase() === DMARC_LOCAL_PART;
}

/** What became of one report email. */
export interface DmarcOutcome {
  /** stored: the report and its rows were written; duplicate: that reporter's report id was stored before; refused: nothing. */
  outcome: 'stored' | 'duplicate' | 'refused';
  reason?: DmarcRefusalReason;
  /** Why, in words, for the log. */
  detail?: string;
  projectId?: string;
  domain?: string;
  orgName?: string;
  reportId?: string;
  /** Rows stored. */
  records: number;
}

/**
 * ADDRESS_PROJECTS: the projects whose sending domain has bounce subdomain $1 (lower case) with its MX verified:
 * what a dmarc@ address belongs to (the same rule as the receiver's isBounceDomain).
 */
const ADDRESS_PROJECTS = `SELECT DISTINCT project_id FROM sending_domains
  WHERE coalesce(bounce_domain, 'bounces.' || domain) = $1 AND bounce_mx_status = 'Success' LIMIT 2`;

/** PROJECT_HAS_DOMAIN: whether project $1 has sending domain $2 (lower case). */
const PROJECT_HAS_DOMAIN = 'SELECT 1 FROM sending_domains WHERE project_id = $1 AND domain = $2';

/** INSERT_REPORT: a report, once per project, reporter and report id (dmarc_reports_reporter_idx); no row when it was stored before. */
const INSERT_REPORT = `INSERT INTO dmarc_reports (project_id, domain, org_name, org_email, report_id, begin_at, end_at, policy)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)
  ON CONFLICT (project_id, org_name, report_id) DO NOTHING RETURNING id`;

/** INSERT_RECORDS: report $1's rows (project $2, domain $3, UTC day $4), one array per column ($5 to $14). */
const INSERT_RECORDS = `INSERT INTO dmarc_records
    (report_id, project_id, domain, day, source_ip, count, header_from, disposition, dkim, spf, dkim_domain, dkim_result, spf_domain, spf_result)
  SELECT $1, $2, $3, $4::date, r.* FROM unnest($5::text[], $6::int[], $7::text[], $8::text[], $9::text[], $10::text[],
                                                 $11::text[], $12::text[], $13::text[], $14::text[]) AS r`;

/** Rows written per INSERT_RECORDS statement. */
const RECORDS_PER_STATEMENT = 5000;

/** utcDay: the UTC calendar day of an instant, YYYY-MM-DD. */
const utcDay = (d: Date) => d.toISOString().slice(0, 10);

/**
 * storeDmarcReport writes `report` for project `projectId` with `query` (the caller's transaction): the report once per
 * reporter and report id, then its rows with day = the UTC day date_range begins on. Returns 'duplicate' (nothing
 * written) when that reporter's report id is stored already.
 */
export async function storeDmarcReport(query: QueryFn, projectId: string, report: DmarcReport): Promise<'stored' | 'duplicate'> {
  const [inserted] = await query<{ id: string }>(INSERT_REPORT, [
    projectId,
    report.domain,
    report.orgName,
    report.orgEmail,
    report.reportId,
    report.begin,
    report.end,
    JSON.stringify(report.policy),
  ]);
  if (!inserted) return 'duplicate';
  const day = utcDay(report.begin);
  for (let i = 0; i < report.records.length; i += RECORDS_PER_STATEMENT) {
    const rows = report.records.slice(i, i + RECORDS_PER_STATEMENT);
    const column = <K extends keyof DmarcRow>(k: K) => rows.map((r) => r[k]);
    await query(INSERT_RECORDS, [
      inserted.id,
      projectId,
      report.domain,
      day,
      column('sourceIp'),
      column('count'),
      column('headerFrom'),
      column('disposition'),
      column('dkim'),
      column('spf'),
      column('dkimDomain'),
      column('dkimResult'),
      column('spfDomain'),
      column('spfResult'),
    ]);
  }
  return 'stored';
}

/**
 * applyDmarcReport reads an email sent to `envelopeTo` (one of them dmarc@<bounce subdomain>) carrying an aggregate
 * report and stores it, all in one transaction of `db`: the address must belong to exactly one project (a verified
 * bounce subdomain of one of its sending domains) and the report's policy_published domain must be a sending domain
 * of that project. Anything else — no report, an archive past DMARC_MAX_XML_BYTES, a DOCTYPE or entity, malformed XML,
 * a missing field, another domain — is refused with nothing written. Never throws for the mail's content; throws only
 * when the database fails (the receiver then answers 451 so the sender retries).
 */
export async function applyDmarcReport(
  db: Pick<Database, 'transaction'>,
  raw: Buffer,
  envelopeTo: string[],
  limit = DMARC_MAX_XML_BYTES,
): Promise<DmarcOutcome> {
  let report: DmarcReport;
  try {
    report = await readDmarcMessage(raw, limit);
  } catch (err) {
    if (err instanceof DmarcRefused) return { outcome: 'refused', reason: err.reason, detail: err.message, records: 0 };
    return { outcome: 'refused', reason: 'malformed', detail: `the email cannot be read (${(err as Error).message})`, records: 0 };
  }
  const about = { domain: report.domain, orgName: report.orgName, reportId: report.reportId };
  return db.transaction(async (query) => {
    const projects = new Set<string>();
    for (const address of envelopeTo.filter(isDmarcAddress)) {
      const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
      for (const r of await query<{ project_id: string }>(ADDRESS_PROJECTS, [domain])) projects.add(r.project_id);
    }
    if (projects.size !== 1) {
      const detail = projects.size ? 'the address belongs to more than one project' : 'the address is no verified bounce subdomain';
      return { outcome: 'refused', reason: 'unknown_address', detail, ...about, records: 0 };
    }
    const [projectId] = projects;
    const owned = await query(PROJECT_HAS_DOMAIN, [projectId, report.domain]);
    if (!owned.length) {
      const detail = `${report.domain} is not a sending domain of the project the address belongs to`;
      return { outcome: 'refused', reason: 'foreign_domain', detail, projectId, ...about, records: 0 };
    }
    const stored = await storeDmarcReport(query, projectId, report);
    return { outcome: stored, projectId, ...about, records: stored === 'stored' ? report.records.length : 0 };
  });
}

/** An install's relay as DMARC sources are matched against it: its name and the host of its URL. */
interface RelayHost {
  name: string;
  host: string;
}

/** installRelays: SMTP_URL's relays (the main one and the backups) with their host names. */
function installRelays(config: Pick<Config, 'smtpUrl' | 'relayName' | 'backupRelays'>): RelayHost[] {
  const urls = [
    ...(config.smtpUrl ? [{ url: config.smtpUrl, name: config.relayName ?? parseRelayUrl(config.smtpUrl).name }] : []),
    ...config.backupRelays.map((r) => ({ url: r.url, name: r.name })),
  ];
  return urls.map((r) => ({ name: r.name, host: new URL(r.url).hostname.replace(/^\[|\]$/g, '') }));
}

/** Addresses a relay host name resolved to, kept for five minutes (a failed lookup: one minute, with none). */
const resolved = new Map<string, { ips: string[]; until: number }>();

/** hostAddresses: the IP addresses of `host` (itself when it is one), by the system's resolver as the sender connects. */
async function hostAddresses(host: string): Promise<string[]> {
  if (isIP(host)) return [normalizeIp(host)!];
  const hit = resolved.get(host);
  if (hit && hit.until > Date.now()) return hit.ips;
  let ips: string[] = [];
  try {
    ips = (await lookup(host, { all: true })).map((a) => normalizeIp(a.address)!).filter(Boolean);
  } catch {
    // An unresolvable relay names no source.
  }
  if (resolved.size > 1000) resolved.clear();
  resolved.set(host, { ips, until: Date.now() + (ips.length ? 300_000 : 60_000) });
  return ips;
}

/**
 * relayByAddress maps each IP address of this install's relays (SMTP_URL's hosts, resolved) to the relay's name
 * (scheme, host and port). A relay provider's outgoing addresses can differ from its submission host's: such sources
 * are not named.
 */
export async function relayByAddress(config: Pick<Config, 'smtpUrl' | 'relayName' | 'backupRelays'>): Promise<Map<string, string>> {
  const byIp = new Map<string, string>();
  for (const relay of installRelays(config)) for (const ip of await hostAddresses(relay.host)) if (!byIp.has(ip)) byIp.set(ip, relay.name);
  return byIp;
}

/** The project's sending domain $2 (id) with its bounce subdomain, for dmarcSummary's 404. $1 project. */
const SUMMARY_DOMAIN = 'SELECT domain, bounce_domain FROM sending_domains WHERE project_id = $1 AND id = $2';

/** The counts of DmarcCounts over dmarc_records rows (c = count column). */
const COUNTS = `coalesce(sum(count), 0)::bigint AS messages,
       coalesce(sum(count) FILTER (WHERE dkim = 'pass'), 0)::bigint AS dkim_pass,
       coalesce(sum(count) FILTER (WHERE spf = 'pass'), 0)::bigint AS spf_pass,
       coalesce(sum(count) FILTER (WHERE dkim = 'pass' OR spf = 'pass'), 0)::bigint AS dmarc_pass,
       coalesce(sum(count) FILTER (WHERE disposition = 'quarantine'), 0)::bigint AS quarantined,
       coalesce(sum(count) FILTER (WHERE disposition = 'reject'), 0)::bigint AS rejected`;

/** DAILY_COUNTS: project $1's domain $2's counts per UTC day from day $3 on (dmarc_records_domain_day_idx). */
const DAILY_COUNTS = `SELECT day::text AS day, count(DISTINCT report_id)::int AS reports, ${COUNTS}
  FROM dmarc_records WHERE project_id = $1 AND domain = $2 AND day >= $3::date GROUP BY day ORDER BY day`;

/**
 * SOURCE_COUNTS: the same per source IP, failing messages first (most first), then by messages (at most 100), with the
 * DKIM and SPF domains of its latest row.
 */
const SOURCE_COUNTS = `SELECT source_ip, ${COUNTS},
       (array_agg(dkim_domain ORDER BY id DESC))[1] AS dkim_domain, (array_agg(spf_domain ORDER BY id DESC))[1] AS spf_domain
  FROM dmarc_records WHERE project_id = $1 AND domain = $2 AND day >= $3::date
  GROUP BY source_ip
  ORDER BY coalesce(sum(count) FILTER (WHERE dkim <> 'pass' AND spf <> 'pass'), 0) DESC, sum(count) DESC, source_ip
  LIMIT 100`;

/** LATEST_POLICY: the p= receivers last found published for project $1's domain $2. */
const LATEST_POLICY = `SELECT policy->>'p' AS p FROM dmarc_reports WHERE project_id = $1 AND domain = $2 ORDER BY begin_at DESC, received_at DESC LIMIT 1`;

type CountsRow = Record<'messages' | 'dkim_pass' | 'spf_pass' | 'dmarc_pass' | 'quarantined' | 'rejected', string | number>;
const counts = (r: CountsRow) => ({
  messages: Number(r.messages),
  dkim_pass: Number(r.dkim_pass),
  spf_pass: Number(r.spf_pass),
  dmarc_pass: Number(r.dmarc_pass),
  quarantined: Number(r.quarantined),
  rejected: Number(r.rejected),
});
const rate = (part: number, whole: number) => (whole ? part / whole : null);

/**
 * dmarcSummary answers GET /domains/{id}/dmarc: the stored reports of the project's domain `domainId` whose period
 * begins in the last `days` UTC days up to `now` (ms; today included) — per day, overall with pass rates, and per
 * source IP (failing first, this install's relays named: relayByAddress) — with the rua address to publish and the
 * next step of the policy (domain/dmarc.ts dmarcNextStep). Throws NotFound for another project's or an unknown domain.
 */
export async function dmarcSummary(
  query: QueryFn,
  config: Pick<Config, 'smtpUrl' | 'relayName' | 'backupRelays'>,
  project: ProjectScope,
  domainId: string,
  days: number,
  now: number = Date.now(),
): Promise<DmarcReportOut> {
  const [domain] = await query<{ domain: string; bounce_domain: string | null }>(SUMMARY_DOMAIN, [project.id, domainId]);
  if (!domain) throw new NotFound([`id: no sending domain ${domainId}`]);
  const since = utcDay(new Date(now - (days - 1) * 86_400_000));
  const params = [project.id, domain.domain, since];
  const [daily, sources, [latest], relays] = await Promise.all([
    query<CountsRow & { day: string; reports: number }>(DAILY_COUNTS, params),
    query<CountsRow & { source_ip: string; dkim_domain: string | null; spf_domain: string | null }>(SOURCE_COUNTS, params),
    query<{ p: string | null }>(LATEST_POLICY, [project.id, domain.domain]),
    relayByAddress(config),
  ]);
  const totals = counts({
    messages: 0,
    dkim_pass: 0,
    spf_pass: 0,
    dmarc_pass: 0,
    quarantined: 0,
    rejected: 0,
  });
  const perDay = daily.map((d) => ({ day: d.day, ...counts(d) }));
  for (const d of perDay) for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += d[k];
  const rua = `mailto:${DMARC_LOCAL_PART}@${bounceDomainOf(domain.domain, domain.bounce_domain)}`;
  const published = (['none', 'quarantine', 'reject'] as const).find((p) => p === latest?.p) ?? null;
  const dmarcPassRate = rate(totals.dmarc_pass, totals.messages);
  const step = dmarcNextStep({ published: published as DmarcPolicy | null, passRate: dmarcPassRate, daysWithReports: perDay.length, rua });
  return {
    domain: domain.domain,
    days,
    since,
    rua,
    reports: daily.reduce((n, d) => n + d.reports, 0),
    policy: { published, next: step.next, advice: step.advice },
    totals,
    dkim_pass_rate: rate(totals.dkim_pass, totals.messages),
    spf_pass_rate: rate(totals.spf_pass, totals.messages),
    dmarc_pass_rate: dmarcPassRate,
    daily: perDay,
    sources: sources.map((s) => {
      const c = counts(s);
      return {
        source_ip: s.source_ip,
        messages: c.messages,
        dmarc_pass: c.dmarc_pass,
        pass_rate: c.messages ? c.dmarc_pass / c.messages : 1,
        relay: relays.get(s.source_ip) ?? null,
        dkim_domain: s.dkim_domain,
        spf_domain: s.spf_domain,
      };
    }),
  };
}
