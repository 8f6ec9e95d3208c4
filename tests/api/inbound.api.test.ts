/**
 * Feedback from every relay: a sending domain's bounce subdomain verified against a real DNS server
 * (dns2: its MX to the inbound host and its SPF record), every email of a blast leaving with its own signed return
 * path there, and the relay's later bounces and complaint reports sent back over SMTP to those return paths, into the
 * inbound receiver: a user-unknown DSN suppresses its address (left out of the next blast), a mailbox-full one does
 * not, a "blocked using Spamhaus" one never touches the recipient, an ARF abuse report suppresses and unsubscribes;
 * the circuit-breaker's rates count them. The receiver refuses relaying (550) and oversized mail (552), and ignores
 * garbage, forged tokens and reports about addresses we never mailed. Runs on PGlite and PostgreSQL (API_DB).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import nodemailer from 'nodemailer';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { simpleParser } from 'mailparser';
import { checkDomains } from '../../src/server/core/domains/index.ts';
import { loadConfig, parseMailboxUrl } from '../../src/server/config.ts';
import { ImapFlow } from 'imapflow';
import { readBounceMailbox } from '../../src/server/core/feedback/bounceMailbox.ts';
import { inboundSettings } from '../../src/server/core/feedback/inbound.ts';
import { BlockWatch, JOB_BLOCK_ALERT, raiseBlockAlert } from '../../src/server/core/feedback/blocks.ts';
import { startDovecot, type TestDovecot } from '../helpers/dovecot.ts';
import { WebhookReceiver } from '../helpers/webhookReceiver.ts';
import { Webhook } from 'standardwebhooks';
import { EVENT } from '../../src/domain/events.ts';
import { API_DB, dueBlast, startHarness, type Harness, type Tenant } from './harness.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dnsServer.ts';

let dns: TestDnsServer;
let dovecot: TestDovecot;
const receiver = new WebhookReceiver();
let hookUrl: string;
let h: Harness;
let t: Tenant;
const MX_HOST = 'mx.feedback.test';

beforeAll(async () => {
  dns = await startDnsServer();
  dovecot = await startDovecot();
  hookUrl = await receiver.start();
  h = await startHarness({
    workers: true,
    config: {
      dnsResolvers: [dns.address],
      domainCheckCron: undefined,
      inbound: { ...loadConfig({}).inbound, port: 0, host: '127.0.0.1', mxHost: MX_HOST, maxBytes: 200_000 },
      // The scheduled reader never ticks during the test (it runs once a year); the test starts runs itself.
      bounceMailbox: { ...parseMailboxUrl(dovecot.url), doneFolder: 'Processed', cron: '0 0 1 1 *', idleSeconds: 0 },
      webhooks: { allowPrivate: true, timeoutMs: 2000, retryScheduleS: [1], retryForMs: 3_600_000, leaseMs: 10_000, pollMs: 100 },
    },
  });
  t = await h.tenant({ activated: true });
});
afterAll(async () => {
  await h?.close();
  await dns?.close();
  await dovecot?.close();
  await receiver.stop();
});

const check = () => checkDomains(h.runtime.database.query.bind(h.runtime.database), h.config);
const q = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => h.runtime.database.query<T>(text, params);

/**
 * blast sends a due marketing blast from news@shop.example. The harness's own expansion may find the workers expanded
 * the due blast first (on PostgreSQL, often) and queue nothing: the test then waits for the messages themselves.
 */
const blast = (emails: string[]) =>
  dueBlast(h, t, emails, { from: 'news@shop.example', type: 'TEMPLATE_MARKETING' }).catch((err: Error) => {
    if (!/^the blast queued 0 of /.test(err.message)) throw err;
  });

const until = async (what: () => Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** blastWithReturnPaths sends a blast to `people` and reads each email's return path (envelope sender) and Message-ID. */
async function blastWithReturnPaths(people: string[]): Promise<Map<string, { envelopeFrom: string; messageId: string }>> {
  await blast(people);
  const sent = () => h.sink.messages.filter((m) => people.includes(m.envelopeTo[0]));
  await until(async () => sent().length === people.length);
  const paths = new Map<string, { envelopeFrom: string; messageId: string }>();
  for (const m of sent()) {
    const parsed = await simpleParser(m.raw);
    expect(m.envelopeFrom).toMatch(/^b-[0-9a-z]+-[0-9a-f]{16}@bounces\.shop\.example$/);
    paths.set(m.envelopeTo[0], { envelopeFrom: m.envelopeFrom, messageId: parsed.messageId!.replace(/^<|>$/g, '') });
  }
  return paths;
}

/** send hands one raw message to the receiver over SMTP with the null sender, as a receiving MTA returns a bounce. */
async function send(to: string, raw: string): Promise<string> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: h.runtime.inbound!.port, secure: false, ignoreTLS: true });
  try {
    return (await transport.sendMail({ envelope: { from: '', to: [to] }, raw })).response;
  } finally {
    transport.close();
  }
}

/** A DSN (RFC 3464) as Postfix writes one: the human part, the delivery-status part and the returned headers. */
function dsn(o: { to: string; recipient: string; status: string; action?: string; diagnostic: string; messageId: string }): string {
  return [
    'From: MAILER-DAEMON@mx.receiver.example (Mail Delivery System)',
    `To: ${o.to}`,
    'Subject: Undelivered Mail Returned to Sender',
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=delivery-status; boundary="B0"',
    '',
    '--B0',
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'This is the mail system at host mx.receiver.example.',
    '',
    `<${o.recipient}>: host mx.receiver.example[192.0.2.7] said: ${o.diagnostic} (in reply to RCPT TO command)`,
    '',
    '--B0',
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx.receiver.example',
    '',
    `Final-Recipient: rfc822; ${o.recipient}`,
    `Action: ${o.action ?? 'failed'}`,
    `Status: ${o.status}`,
    'Remote-MTA: dns; mx.receiver.example',
    `Diagnostic-Code: smtp; ${o.diagnostic}`,
    '',
    '--B0',
    'Content-Type: text/rfc822-headers',
    '',
    'From: news@shop.example',
    `To: ${o.recipient}`,
    `Message-ID: <${o.messageId}>`,
    'Subject: S',
    '',
    '--B0--',
    '',
  ].join('\r\n');
}

/** An ARF abuse report (RFC 5965) as a mailbox provider's feedback loop sends one, with the recipient redacted. */
function arf(o: { to: string; messageId: string }): string {
  return [
    'From: fbl@provider.example',
    `To: ${o.to}`,
    'Subject: FW: S',
    'MIME-Version: 1.0',
    'Content-Type: multipart/report; report-type=feedback-report; boundary="A0"',
    '',
    '--A0',
    'Content-Type: text/plain',
    '',
    'This is an email abuse report for an email message received from IP 192.0.2.9.',
    '',
    '--A0',
    'Content-Type: message/feedback-report',
    '',
    'Feedback-Type: abuse',
    'User-Agent: Provider-FBL/1.0',
    'Version: 1',
    'Original-Rcpt-To: redacted@provider.example',
    '',
    '--A0',
    'Content-Type: text/rfc822-headers',
    '',
    'From: news@shop.example',
    'To: redacted@provider.example',
    `Message-ID: <${o.messageId}>`,
    '',
    '--A0--',
    '',
  ].join('\r\n');
}

/** The four people of the four-case test: user unknown, mailbox full, blocked by a blocklist, complaining. */
type Four = [gone: string, full: string, blocked: string, annoyed: string];

/** fourReports: the four reports (a user-unknown, a mailbox-full and a blocklist DSN, an ARF report), each to its email's return path. */
function fourReports(four: Four, rp: (email: string) => { envelopeFrom: string; messageId: string }): Array<{ to: string; raw: string }> {
  const [gone, full, blocked, annoyed] = four;
  const bounce = (email: string, status: string, diagnostic: string) => ({
    to: rp(email).envelopeFrom,
    raw: dsn({ to: rp(email).envelopeFrom, recipient: email, status, diagnostic, messageId: rp(email).messageId }),
  });
  return [
    bounce(gone, '5.1.1', `550 5.1.1 <${gone}>: Recipient address rejected: User unknown in virtual mailbox table`),
    bounce(full, '5.2.2', `552 5.2.2 <${full}>: Mailbox full`),
    bounce(blocked, '5.7.1', '554 5.7.1 Service unavailable; Client host [192.0.2.1] blocked using zen.spamhaus.org'),
    { to: rp(annoyed).envelopeFrom, raw: arf({ to: rp(annoyed).envelopeFrom, messageId: rp(annoyed).messageId }) },
  ];
}

/**
 * expectFourApplied: the four reports were applied, each to its own recipient, from `source`: the unknown user and the
 * complaining one suppressed (the latter unsubscribed too), the full mailbox a soft bounce, the blocklist a sender-side one.
 */
async function expectFourApplied(four: Four, source: string): Promise<void> {
  const [gone, full, blocked, annoyed] = four;
  const events = await q<{ name: string; email: string; json: { source: string; bounce?: { bounceType: string; class: string } } }>(
    `SELECT name, email, json FROM events WHERE project_id = $1 AND name IN ($2, $3) AND email = ANY($4) ORDER BY emitted_at`,
    [t.projectId, EVENT.bounce, EVENT.complaint, four],
  );
  expect(events.map((e) => [e.name, e.email, e.json.source, e.json.bounce?.bounceType, e.json.bounce?.class])).toEqual([
    [EVENT.bounce, gone, source, 'Permanent', 'hard'],
    [EVENT.bounce, full, source, 'Transient', 'soft'],
    [EVENT.bounce, blocked, source, 'Transient', 'sender'],
    [EVENT.complaint, annoyed, source, undefined, undefined],
  ]);
  const suppressions = await q<{ email: string; reason: string }>(
    'SELECT email, reason FROM suppressions WHERE project_id = $1 AND email = ANY($2) ORDER BY reason',
    [t.projectId, four],
  );
  expect(suppressions).toEqual([
    { email: gone, reason: 'bounce' },
    { email: annoyed, reason: 'complaint' },
  ]);
  const [contact] = await q<{ unsubscribed_at: Date | null }>('SELECT unsubscribed_at FROM contacts WHERE project_id = $1 AND email = $2', [
    t.projectId,
    annoyed,
  ]);
  expect(contact.unsubscribed_at).not.toBeNull();
  // The blocklist bounce counts against the sending domain and the relay that sent it, with the receiver's words, and
  // (more than 2 % of the domain's sends in the hour) raised one notification.
  const [domain] = (await h.call('GET', '/api/domains/dkim', { key: t.apiKey })).body.data as Array<{
    blocks_24h: { count: number; by_relay: Array<{ relay: string; count: number }>; last: { diagnostic: string } | null };
  }>;
  expect(domain.blocks_24h.count).toBeGreaterThanOrEqual(1);
  expect(domain.blocks_24h.by_relay[0]).toMatchObject({ relay: expect.stringContaining('127.0.0.1') });
  expect(domain.blocks_24h.last?.diagnostic).toMatch(/blocked using zen\.spamhaus\.org/);
  const log = (await h.call('GET', '/api/joblog/joblog', { key: t.apiKey })).body.data as Array<{ job_name: string; start_details: Record<string, unknown> }>;
  const alerts = log.filter((e) => e.job_name === 'JOB_BLOCK_ALERT');
  expect(alerts).toHaveLength(1);
  expect(alerts[0].start_details).toMatchObject({ domain: 'shop.example', last_diagnostic: expect.stringMatching(/spamhaus/) });
}

describe(`feedback from every relay: the return path and the inbound receiver (${API_DB})`, () => {
  let returnPaths: Map<string, { envelopeFrom: string; messageId: string }>;
  const people = ['gone@receiver.example', 'full@receiver.example', 'blocked@receiver.example', 'annoyed@receiver.example', 'fine@receiver.example'];

  it('verifies the bounce subdomain’s MX and SPF, and then sends every email with its own signed return path there', async () => {
    const added = await h.call('POST', '/api/domains/domains', { key: t.apiKey, body: { domain: 'shop.example' } });
    expect(added.status).toBe(200);
    expect(added.body.data).toMatchObject({
      bounce_domain: 'bounces.shop.example',
      bounces_ready: false,
      records: {
        bounce_mx: { type: 'MX', name: 'bounces.shop.example', value: MX_HOST, priority: 10 },
        bounce_spf: { type: 'TXT', name: 'bounces.shop.example', value: h.config.spfRecord },
      },
    });
    // Before the records verify, mail keeps the persona's address as its return path.
    const early = () => h.sink.messages.find((m) => m.envelopeTo.includes('early@receiver.example'));
    await blast(['early@receiver.example']);
    await until(async () => !!early());
    expect(early()!.envelopeFrom).toBe('news@shop.example');

    dns.mx.set('bounces.shop.example', [MX_HOST]);
    dns.zone.set('bounces.shop.example', [h.config.spfRecord]);
    await check();
    const listed = (await h.call('GET', '/api/domains/dkim', { key: t.apiKey })).body.data as Array<Record<string, unknown>>;
    expect(listed[0]).toMatchObject({ bounces_ready: true, records: { bounce_mx: { status: 'Success' }, bounce_spf: { status: 'Success' } } });

    returnPaths = await blastWithReturnPaths(people);
    expect(new Set([...returnPaths.values()].map((r) => r.envelopeFrom)).size).toBe(people.length);
  });

  it('applies a user-unknown, a mailbox-full, a blocklist DSN and an ARF report each to its own recipient', async () => {
    const four = people.slice(0, 4) as Four;
    // The customer's endpoint for bounces and complaints (Standard Webhooks, core/webhooks).
    const hook = await h.call('POST', '/api/webhooks/endpoints', { key: t.apiKey, body: { url: hookUrl, event_types: ['email.bounced', 'email.complained'] } });
    expect(hook.status).toBe(200);
    for (const r of fourReports(four, (email) => returnPaths.get(email)!)) expect(await send(r.to, r.raw)).toMatch(/^250/);
    await expectFourApplied(four, 'smtp');

    // The reports count the same bounces and complaint, and the webhook gets one signed message for each.
    const quick = (await h.call('GET', '/api/reporting/quickstats', { key: t.apiKey })).body.data as Array<{ name: string; num: number }>;
    expect(Object.fromEntries(quick.filter((r) => r.name === EVENT.bounce || r.name === EVENT.complaint).map((r) => [r.name, r.num]))).toEqual({
      [EVENT.bounce]: 3,
      [EVENT.complaint]: 1,
    });
    await until(async () => receiver.requests.length >= 4);
    const delivered = receiver.requests.map(
      (r) => new Webhook(hook.body.data.secret as string).verify(r.body, r.headers as Record<string, string>) as { type: string; data: { email: string } },
    );
    expect(delivered.map((d) => [d.type, d.data.email]).sort()).toEqual(
      [
        ['email.bounced', four[0]],
        ['email.bounced', four[1]],
        ['email.bounced', four[2]],
        ['email.complained', four[3]],
      ].sort(),
    );

    // The circuit-breaker's rates count the hard bounce and the complaint over the window's 6 sends.
    const status = (await h.call('GET', '/api/scheduler/sending_status', { key: t.apiKey })).body;
    expect(status).toMatchObject({ sends_24h: 6 });
    expect(status.bounce_rate).toBeCloseTo(1 / 6, 5);
    expect(status.complaint_rate).toBeCloseTo(1 / 6, 5);

    // The next blast to all of them leaves out the hard-bounced and the complaining address. (dueBlast counts what its
    // own expansion queued, which is nothing when the workers expanded the due blast first: the rows are read instead.)
    await dueBlast(h, t, people, { from: 'news@shop.example', type: 'TEMPLATE_MARKETING' }).catch(() => undefined);
    const queued = () =>
      q<{ email: string }>(
        `SELECT email FROM outbox WHERE blast_id = (SELECT id FROM email_blasts WHERE project_id = $1 ORDER BY created_at DESC LIMIT 1) ORDER BY email`,
        [t.projectId],
      );
    await until(async () => (await queued()).length > 0);
    expect((await queued()).map((r) => r.email)).toEqual(['blocked@receiver.example', 'fine@receiver.example', 'full@receiver.example']);
  });

  it('ignores forged tokens, recipients we never mailed, garbage, delay warnings and repeated reports, changing nothing', async () => {
    const fine = returnPaths.get('fine@receiver.example')!;
    const count = async () =>
      (
        await q<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND name IN ($2, $3)`, [t.projectId, EVENT.bounce, EVENT.complaint])
      )[0].n;
    const before = await count();
    const forged = fine.envelopeFrom.replace(/-[0-9a-f]{16}@/, '-0000000000000000@');
    // A forged token and no Message-ID of ours: nothing is applied.
    expect(
      await send(
        forged,
        dsn({ to: forged, recipient: 'fine@receiver.example', status: '5.1.1', diagnostic: '550 5.1.1 user unknown', messageId: 'not-ours@elsewhere.example' }),
      ),
    ).toMatch(/^250/);
    // A genuine token, but the DSN names two addresses, neither the one this email went to.
    const two = dsn({
      to: fine.envelopeFrom,
      recipient: 'someone-else@receiver.example',
      status: '5.1.1',
      diagnostic: '550 5.1.1 user unknown',
      messageId: fine.messageId,
    }).replace(
      'Diagnostic-Code: smtp; 550 5.1.1 user unknown\r\n',
      'Diagnostic-Code: smtp; 550 5.1.1 user unknown\r\n\r\nFinal-Recipient: rfc822; third@receiver.example\r\nAction: failed\r\nStatus: 5.1.1\r\n',
    );
    expect(await send(fine.envelopeFrom, two)).toMatch(/^250/);
    expect(await send(fine.envelopeFrom, 'this is not an email at all\r\n\u0000\u0001')).toMatch(/^250/);
    // A delay warning is not a bounce; the same bounce again is counted once.
    expect(
      await send(
        fine.envelopeFrom,
        dsn({
          to: fine.envelopeFrom,
          recipient: 'fine@receiver.example',
          status: '4.4.7',
          action: 'delayed',
          diagnostic: '451 4.4.7 delivery delayed',
          messageId: fine.messageId,
        }),
      ),
    ).toMatch(/^250/);
    const gone = returnPaths.get('gone@receiver.example')!;
    expect(
      await send(
        gone.envelopeFrom,
        dsn({ to: gone.envelopeFrom, recipient: 'gone@receiver.example', status: '5.1.1', diagnostic: '550 5.1.1 user unknown', messageId: gone.messageId }),
      ),
    ).toMatch(/^250/);
    expect(await count()).toBe(before);
    expect((await q('SELECT 1 FROM suppressions WHERE project_id = $1 AND email = $2', [t.projectId, 'fine@receiver.example'])).length).toBe(0);
  });

  it('matches a report without a return path by its Message-ID, only at a bounce domain of the email’s own project; a hard bounce after a soft one still suppresses', async () => {
    const fine = returnPaths.get('fine@receiver.example')!;
    const complaints = async () =>
      (
        await q<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND name = $2 AND email = $3`, [
          t.projectId,
          EVENT.complaint,
          'fine@receiver.example',
        ])
      )[0].n;
    // Another tenant with a verified bounce domain of its own: a report there naming this tenant's email changes nothing.
    const other = await h.tenant({ activated: true });
    expect((await h.call('POST', '/api/domains/domains', { key: other.apiKey, body: { domain: 'other.example' } })).status).toBe(200);
    dns.mx.set('bounces.other.example', [MX_HOST]);
    dns.zone.set('bounces.other.example', [h.config.spfRecord]);
    await check();
    expect(await send('fbl@bounces.other.example', arf({ to: 'fbl@bounces.other.example', messageId: fine.messageId }))).toMatch(/^250/);
    expect(await complaints()).toBe(0);
    // A feedback loop's report to a fixed address at this tenant's own bounce domain is applied, by Message-ID.
    expect(await send('fbl@bounces.shop.example', arf({ to: 'fbl@bounces.shop.example', messageId: fine.messageId }))).toMatch(/^250/);
    expect(await complaints()).toBe(1);
    expect(await q('SELECT reason FROM suppressions WHERE project_id = $1 AND email = $2', [t.projectId, 'fine@receiver.example'])).toEqual([
      { reason: 'complaint' },
    ]);

    // full@ bounced soft; its final hard bounce of the same email still suppresses it.
    const full = returnPaths.get('full@receiver.example')!;
    expect(
      await send(
        full.envelopeFrom,
        dsn({ to: full.envelopeFrom, recipient: 'full@receiver.example', status: '5.1.1', diagnostic: '550 5.1.1 user unknown', messageId: full.messageId }),
      ),
    ).toMatch(/^250/);
    expect(await q('SELECT reason FROM suppressions WHERE project_id = $1 AND email = $2', [t.projectId, 'full@receiver.example'])).toEqual([
      { reason: 'bounce' },
    ]);
  });

  it('applies reports arriving at once over many sessions (applied together in one transaction), each to its own email', async () => {
    const many = Array.from({ length: 12 }, (_, i) => `at-once-${i}@receiver.example`);
    const paths = await blastWithReturnPaths(many);
    const answers = await Promise.all(
      many.map((email) =>
        send(
          paths.get(email)!.envelopeFrom,
          dsn({
            to: paths.get(email)!.envelopeFrom,
            recipient: email,
            status: '5.1.1',
            diagnostic: '550 5.1.1 user unknown',
            messageId: paths.get(email)!.messageId,
          }),
        ),
      ),
    );
    for (const a of answers) expect(a).toMatch(/^250/);
    const rows = await q<{ email: string; n: number }>(
      `SELECT e.email, count(*)::int AS n FROM events e WHERE e.project_id = $1 AND e.name = $2 AND e.email = ANY($3) GROUP BY e.email ORDER BY e.email`,
      [t.projectId, EVENT.bounce, many],
    );
    expect(rows).toEqual([...many].sort().map((email) => ({ email, n: 1 })));
    expect((await q('SELECT 1 FROM suppressions WHERE project_id = $1 AND email = ANY($2)', [t.projectId, many])).length).toBe(many.length);
  });

  it('refuses relaying for other domains (550) and oversized mail (552)', async () => {
    await expect(send('someone@other.example', 'Subject: hi\r\n\r\nhello')).rejects.toMatchObject({ responseCode: 550 });
    await expect(send('b-1-0000000000000000@bounces.unknown.example', 'Subject: hi\r\n\r\nhello')).rejects.toMatchObject({ responseCode: 550 });
    const fine = returnPaths.get('fine@receiver.example')!;
    const big = `Subject: big\r\n\r\n${'x'.repeat(76).concat('\r\n').repeat(4000)}`;
    await expect(send(fine.envelopeFrom, big)).rejects.toMatchObject({ responseCode: 552 });
    // The receiver still answers afterwards.
    const conn = new SMTPConnection({ host: '127.0.0.1', port: h.runtime.inbound!.port, ignoreTLS: true });
    await new Promise<void>((resolve, reject) => conn.connect((err?: Error) => (err ? reject(err) : resolve())));
    conn.quit();
  });
});

describe(`feedback from every relay: the bounce mailbox (IMAP, dovecot) (${API_DB})`, () => {
  const four: Four = ['m-gone@receiver.example', 'm-full@receiver.example', 'm-blocked@receiver.example', 'm-annoyed@receiver.example'];
  let paths: Map<string, { envelopeFrom: string; messageId: string }>;
  const settings = () => h.config.bounceMailbox!;
  const apply = () => inboundSettings(h.config, h.runtime.ctx.blocks);

  /** withMailbox runs `work` with an IMAP session of the test's own, as the operator's mail server delivering. */
  async function withMailbox<T>(work: (c: ImapFlow) => Promise<T>): Promise<T> {
    const c = new ImapFlow({ host: '127.0.0.1', port: dovecot.port, secure: false, auth: { user: dovecot.user, pass: dovecot.password }, logger: false });
    await c.connect();
    try {
      return await work(c);
    } finally {
      await c.logout();
    }
  }
  /** deliver puts a returned email into the INBOX as the mail server would: with Delivered-To naming its return path. */
  const deliver = (c: ImapFlow, to: string, raw: string) => c.append('INBOX', `Delivered-To: ${to}\r\nReturn-Path: <>\r\n${raw}`);
  const count = (c: ImapFlow, folder: string) => c.status(folder, { messages: true }).then((s) => (s ? (s.messages ?? 0) : 0));

  it('reads the four reports as they arrive (IDLE), applies each to its own recipient, and moves them out of the INBOX', async () => {
    paths = await blastWithReturnPaths(four);
    // The reader is started first and waits on IDLE; the reports arrive while it waits.
    const run = readBounceMailbox(h.runtime.database, settings(), apply(), 6);
    await new Promise((r) => setTimeout(r, 1500));
    await withMailbox(async (c) => {
      for (const r of fourReports(four, (email) => paths.get(email)!)) await deliver(c, r.to, r.raw);
    });
    expect(await run).toEqual({ read: 4, applied: 4, failed: 0 });
    await expectFourApplied(four, 'mailbox');
    await withMailbox(async (c) => {
      expect(await count(c, 'INBOX')).toBe(0);
      expect(await count(c, 'Processed')).toBe(4);
    });
    // Never read twice.
    expect(await readBounceMailbox(h.runtime.database, settings(), apply(), 0)).toEqual({ read: 0, applied: 0, failed: 0 });
  });

  it('the scheduled job reads the mailbox: garbage and a forged token are read, ignored and moved; nothing changes', async () => {
    const events = async () =>
      (
        await q<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND name IN ($2, $3)`, [t.projectId, EVENT.bounce, EVENT.complaint])
      )[0].n;
    const before = await events();
    const full = paths.get(four[1])!;
    const forged = full.envelopeFrom.replace(/-[0-9a-f]{16}@/, '-0000000000000000@');
    await withMailbox(async (c) => {
      await deliver(c, 'postmaster@bounces.shop.example', 'Subject: not a bounce\r\n\r\n\u0000garbage');
      await deliver(c, forged, dsn({ to: forged, recipient: four[1], status: '5.1.1', diagnostic: '550 5.1.1 user unknown', messageId: 'not-ours@x.example' }));
    });
    await h.runtime.queue.enqueue('bounce-mailbox', {});
    await until(() => withMailbox(async (c) => (await count(c, 'INBOX')) === 0), 30_000);
    expect(await events()).toBe(before);
    expect(await q('SELECT 1 FROM suppressions WHERE project_id = $1 AND email = $2', [t.projectId, four[1]])).toEqual([]);
  });

  it('a run takes no new message after its time is up: the rest wait, unread, for the next run', async () => {
    await withMailbox(async (c) => {
      for (const n of [1, 2]) await deliver(c, 'postmaster@bounces.shop.example', `Subject: not a bounce ${n}\r\n\r\nhello`);
    });
    expect(await readBounceMailbox(h.runtime.database, settings(), apply(), 0, 0)).toEqual({ read: 0, applied: 0, failed: 0 });
    expect(await withMailbox((c) => count(c, 'INBOX'))).toBe(2);
    expect(await readBounceMailbox(h.runtime.database, settings(), apply(), 0)).toEqual({ read: 2, applied: 0, failed: 0 });
    expect(await withMailbox((c) => count(c, 'INBOX'))).toBe(0);
  });
});

describe(`feedback from every relay: the block alert's looks (${API_DB})`, () => {
  /** sends and blocks write `n` success events and sender-side bounce events of sending domain `domain`, now. */
  const sends = (projectId: string, domain: string, n: number) =>
    q(
      `INSERT INTO events (project_id, name, email, is_system, json)
       SELECT $1, $2, 'r' || g || '@receiver.example', true, jsonb_build_object('sending_domain', $3::text) FROM generate_series(1, $4) g`,
      [projectId, EVENT.sendSuccess, domain, n],
    );
  const blocks = (projectId: string, domain: string, n: number) =>
    q(
      `INSERT INTO events (project_id, name, email, json)
       SELECT $1, $2, 'b' || g || '@receiver.example',
              jsonb_build_object('sending_domain', $3::text, 'relay', 'relay.example',
                                 'bounce', jsonb_build_object('class', 'sender', 'bouncedRecipients', jsonb_build_array(jsonb_build_object('diagnosticCode', 'smtp; 554 5.7.1 blocked using zen.spamhaus.org'))))
         FROM generate_series(1, $4) g`,
      [projectId, EVENT.bounce, domain, n],
    );
  const alerts = (projectId: string) =>
    q<{ details: { domain: string; blocks: number; sends: number } }>(`SELECT start_details AS details FROM job_log WHERE project_id = $1 AND job_name = $2`, [
      projectId,
      JOB_BLOCK_ALERT,
    ]);
  const query = q;

  it("looks again when the time between looks is up, so a burst's end is not missed", async () => {
    const { projectId } = await h.tenant({ activated: true });
    const watch = new BlockWatch(query, 0.02, 300);
    await sends(projectId, 'burst.example', 100);
    await blocks(projectId, 'burst.example', 1);
    // 1 block of 100 sends: under 2 %, no alert.
    expect(await watch.blocked(query, projectId, 'burst.example')).toBe(false);
    // The rest of the burst arrives before the next look is allowed: no look now, one when the time is up.
    await blocks(projectId, 'burst.example', 4);
    expect(await watch.blocked(query, projectId, 'burst.example')).toBe(false);
    expect(await alerts(projectId)).toEqual([]);
    await until(async () => (await alerts(projectId)).length > 0, 5000);
    expect((await alerts(projectId)).map((a) => a.details)).toEqual([expect.objectContaining({ domain: 'burst.example', blocks: 5, sends: 100 })]);
    // Once logged, more blocks within the hour log nothing more.
    await blocks(projectId, 'burst.example', 10);
    await new Promise((r) => setTimeout(r, 400));
    expect(await watch.blocked(query, projectId, 'burst.example')).toBe(false);
    await watch.stop();
    expect(await alerts(projectId)).toHaveLength(1);
  });

  it('logs one alert when two processes look at once', async () => {
    const { projectId } = await h.tenant({ activated: true });
    // Blocks reported after the hour of their sends count against at least as many sends: never over 100 %.
    await sends(projectId, 'twice.example', 2);
    await blocks(projectId, 'twice.example', 5);
    const looks = await Promise.all([1, 2, 3].map(() => raiseBlockAlert(query, projectId, 'twice.example', 0.02)));
    expect(looks.filter(Boolean)).toHaveLength(1);
    expect((await alerts(projectId)).map((a) => a.details)).toEqual([expect.objectContaining({ domain: 'twice.example', blocks: 5, sends: 2, rate: 1 })]);
  });
});

describe(`feedback from every relay: a relay that keeps the persona's address (return_path=persona) (${API_DB})`, () => {
  let h2: Harness;
  beforeAll(async () => {
    h2 = await startHarness({
      workers: true,
      config: { relayReturnPath: 'persona', dnsResolvers: [dns.address], domainCheckCron: undefined, inbound: { ...h.config.inbound, port: 0 } },
    });
  });
  afterAll(() => h2?.close());

  it('sends with the persona’s address as envelope sender even once the bounce subdomain verifies', async () => {
    const t2 = await h2.tenant({ activated: true });
    expect((await h2.call('POST', '/api/domains/domains', { key: t2.apiKey, body: { domain: 'office.example' } })).status).toBe(200);
    dns.mx.set('bounces.office.example', [MX_HOST]);
    dns.zone.set('bounces.office.example', [h2.config.spfRecord]);
    await checkDomains(h2.runtime.database.query.bind(h2.runtime.database), h2.config);
    const [domain] = (await h2.call('GET', '/api/domains/dkim', { key: t2.apiKey })).body.data as Array<{ bounces_ready: boolean }>;
    expect(domain.bounces_ready).toBe(true);
    await dueBlast(h2, t2, ['kept@receiver.example'], { from: 'news@office.example', type: 'TEMPLATE_MARKETING' }).catch((err: Error) => {
      if (!/^the blast queued 0 of /.test(err.message)) throw err;
    });
    const sent = () => h2.sink.messages.find((m) => m.envelopeTo.includes('kept@receiver.example'));
    await until(async () => !!sent());
    expect(sent()!.envelopeFrom).toBe('news@office.example');
  });
});
