/**
 * SMTP submission end to end, as applications send: two independent SMTP clients — nodemailer and Debian's Python
 * smtplib — submit over port-587-style STARTTLS with AUTH against a test certificate, and the real sender delivers to
 * an SMTP sink. To + Cc + Bcc each get one copy and no copy shows the Bcc; wrong passwords, an unverified From, an
 * oversized message, a header injection, a suppressed recipient and a revoked credential behave as the submission
 * server's rules say; the message activity shows the relay's acceptance and a later open.
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import nodemailer from 'nodemailer';
import SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';
import { simpleParser } from 'mailparser';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import { testCertificate } from '../helpers/tlsCert.ts';
import { loadConfig } from '../../src/server/config.ts';

let h: Harness;
let t: Tenant;
let port: number;
let user: { id: string; username: string; password: string };
const FROM = 'orders@shop.example.com';
const MAX_BYTES = 200_000;

async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function copiesFor(email: string) {
  return Promise.all(
    h.sink.messages.filter((m) => m.envelopeTo.includes(email)).map(async (m) => ({ raw: m.raw.toString('utf8'), parsed: await simpleParser(m.raw) })),
  );
}

const head = (raw: string) => raw.slice(0, raw.indexOf('\r\n\r\n'));

async function outboxCount(): Promise<number> {
  const [r] = await h.runtime.database.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE project_id = $1', [t.projectId]);
  return r.n;
}

/** A nodemailer client as an application configures one: STARTTLS required, AUTH PLAIN. */
function client(auth = { user: user.username, pass: user.password }) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    requireTLS: true,
    auth,
    authMethod: 'PLAIN',
    tls: { rejectUnauthorized: false },
  });
}

/** smtplib runs a Python script with Debian's python3 and resolves with its stdout (rejects with its stderr). */
function smtplib(script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('/usr/bin/python3', ['-c', script], { timeout: 20_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${stderr}`)) : resolve(stdout)));
  });
}

const python = (body: string) => `
import smtplib, ssl, sys
ctx = ssl.create_default_context()
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
s = smtplib.SMTP('127.0.0.1', ${port}, timeout=15)
s.ehlo('app.example.com')
s.starttls(context=ctx)
s.ehlo('app.example.com')
${body}
`;

beforeAll(async () => {
  const tls = testCertificate();
  h = await startHarness({
    workers: true,
    config: { submission: { ...loadConfig({}).submission, port: 0, host: '127.0.0.1', hostname: 'localhost', tls, maxBytes: MAX_BYTES, authFailures: 3 } },
  });
  port = h.runtime.submission!.port!;
  t = await h.tenant({ activated: true });
  await h.call('POST', '/api/senderpersonawrapper/sender_personas', { key: t.apiKey, body: { sender_personas: [{ email: FROM, first_name: 'Shop' }] } });
  await h.confirmPersonas();
  const made = await h.call('POST', '/api/email/smtp_credentials', { key: t.apiKey, body: { name: 'Shop backend' } });
  expect(made.status).toBe(200);
  user = made.body.data;
  expect(user.password.length).toBeGreaterThanOrEqual(40);
  const listed = await h.call('GET', '/api/email/smtp_credentials', { key: t.apiKey });
  expect(JSON.stringify(listed.body)).not.toContain(user.password);
  expect(listed.body.ports).toEqual({ starttls: port, tls: null });
});
afterAll(async () => {
  await h?.close();
});

describe(`SMTP submission (${API_DB})`, () => {
  it('nodemailer: STARTTLS + AUTH; To, Cc and Bcc each get one copy, no copy shows the Bcc; the 250 names our Message-ID', async () => {
    const info = await client().sendMail({
      from: '"Shop" <orders@shop.example.com>',
      to: 'ann@smtp.example.com',
      cc: 'cat@smtp.example.com',
      bcc: 'hidden@smtp.example.com',
      subject: 'Your receipt',
      text: 'Thanks for order 1234',
      html: '<p>Thanks for order <b>1234</b></p>',
      headers: { 'X-Mailwright-Tag': 'receipt', 'X-Mailwright-Metadata': '{"order":"1234"}', 'X-App': 'shop' },
      attachments: [{ filename: 'receipt.txt', content: 'receipt 1234' }],
    });
    expect(info.accepted.sort()).toEqual(['ann@smtp.example.com', 'cat@smtp.example.com', 'hidden@smtp.example.com']);
    const answered = /queued as (<[^>]+>)/.exec(info.response)?.[1];
    expect(answered).toMatch(/^<[0-9a-f-]+@shop\.example\.com>$/);
    for (const who of ['ann@smtp.example.com', 'cat@smtp.example.com', 'hidden@smtp.example.com']) await until(async () => (await copiesFor(who)).length > 0);
    await new Promise((r) => setTimeout(r, 300));
    const ids = new Set<string>();
    for (const who of ['ann@smtp.example.com', 'cat@smtp.example.com', 'hidden@smtp.example.com']) {
      const copies = await copiesFor(who);
      expect(copies).toHaveLength(1);
      const [{ raw, parsed }] = copies;
      expect(head(raw)).not.toMatch(/hidden@smtp\.example\.com/i);
      expect(head(raw)).not.toMatch(/^(bcc|x-mailwright-[a-z]+):/im);
      expect(parsed.headers.get('x-app')).toBe('shop');
      expect(parsed.attachments.map((a) => a.content.toString())).toEqual(['receipt 1234']);
      expect(parsed.html).toContain('<b>1234</b>');
      ids.add(parsed.messageId!);
    }
    expect(ids.size).toBe(3);
    expect([...ids].map((id) => `<${id.replace(/[<>]/g, '')}>`)).toContain(answered);
    const listed = await h.call('GET', '/api/messages', { key: t.apiKey, query: { tag: 'receipt' } });
    expect(listed.body.data).toHaveLength(3);
    expect(listed.body.data[0]).toMatchObject({ source: 'smtp', stream: 'transactional', metadata: { order: '1234' } });
  });

  it("Python's smtplib: STARTTLS, AUTH LOGIN and sendmail to two recipients", async () => {
    const out = await smtplib(
      python(`
s.login('${user.username}', '${user.password}')
msg = "From: Shop <${FROM}>\\r\\nTo: py1@smtp.example.com\\r\\nSubject: From Python\\r\\nContent-Type: text/plain; charset=utf-8\\r\\n\\r\\nSent by smtplib\\r\\n"
refused = s.sendmail('${FROM}', ['py1@smtp.example.com', 'py2@smtp.example.com'], msg)
print('refused', refused)
print('noop', s.noop()[0])
s.quit()
`),
    );
    expect(out).toContain('refused {}');
    for (const who of ['py1@smtp.example.com', 'py2@smtp.example.com']) await until(async () => (await copiesFor(who)).length === 1);
    const [{ parsed, raw }] = await copiesFor('py2@smtp.example.com');
    expect(parsed.subject).toBe('From Python');
    expect(parsed.text).toContain('Sent by smtplib');
    expect(head(raw)).not.toContain('py2@smtp.example.com');
  });

  it('refuses an unverified From (550 5.7.1 naming it), an oversized message (552), a malformed recipient (553), a header injection and a missing From (554); nothing is queued', async () => {
    const before = await outboxCount();
    const mail = client();
    await expect(mail.sendMail({ from: 'nobody@elsewhere.example.com', to: 'x@smtp.example.com', subject: 's', text: 't' })).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringMatching(/5\.7\.1 from: nobody@elsewhere\.example\.com is not a verified sender persona/),
    });
    await expect(mail.sendMail({ from: FROM, to: 'x@smtp.example.com', subject: 'big', text: 'x'.repeat(MAX_BYTES + 50_000) })).rejects.toMatchObject({
      responseCode: 552,
    });
    await expect(mail.sendMail({ from: FROM, to: 'x@nodot', subject: 's', text: 't' })).rejects.toMatchObject({ responseCode: 553 });
    const injected = Buffer.from('Hi\r\nBcc: evil@attacker.example.com').toString('base64');
    await expect(
      mail.sendMail({
        envelope: { from: FROM, to: ['x@smtp.example.com'] },
        raw: `From: ${FROM}\r\nTo: x@smtp.example.com\r\nSubject: =?utf-8?B?${injected}?=\r\n\r\nbody\r\n`,
      }),
    ).rejects.toMatchObject({ responseCode: 554, response: expect.stringContaining('subject: must be one line') });
    await expect(
      mail.sendMail({ envelope: { from: FROM, to: ['x@smtp.example.com'] }, raw: 'To: x@smtp.example.com\r\nSubject: no sender\r\n\r\nbody\r\n' }),
    ).rejects.toMatchObject({ responseCode: 554, response: expect.stringContaining('from: Required field') });
    mail.close();
    expect(await outboxCount()).toBe(before);
  });

  it('records a suppressed recipient as suppressed and does not send to it', async () => {
    const added = await h.call('POST', '/api/event/suppressions', { key: t.apiKey, body: { emails: ['blocked@smtp.example.com'] } });
    expect(added.status).toBe(200);
    const info = await client().sendMail({ from: FROM, to: ['blocked@smtp.example.com', 'fine@smtp.example.com'], subject: 'Two', text: 'two' });
    expect(info.response).toMatch(/^250 /);
    await until(async () => (await copiesFor('fine@smtp.example.com')).length === 1);
    const listed = await h.call('GET', '/api/messages', { key: t.apiKey, query: { recipient: 'blocked@smtp.example.com' } });
    expect(listed.body.data.map((m: { status: string; last_error: string }) => [m.status, m.last_error])).toEqual([
      ['suppressed', 'suppressed: blocked@smtp.example.com is on the suppression list (manual)'],
    ]);
    await new Promise((r) => setTimeout(r, 300));
    expect(await copiesFor('blocked@smtp.example.com')).toHaveLength(0);
  });

  it("the activity timeline shows the relay's acceptance and a later open", async () => {
    const info = await client().sendMail({
      from: FROM,
      to: 'reader@smtp.example.com',
      subject: 'Tracked news',
      html: '<p>Read <a href="https://shop.example.com/news">the news</a></p>',
      headers: { 'X-Mailwright-Stream': 'broadcast' },
    });
    const messageId = /queued as (<[^>]+>)/.exec(info.response)![1];
    await until(async () => (await copiesFor('reader@smtp.example.com')).length === 1);
    const [{ parsed }] = await copiesFor('reader@smtp.example.com');
    const pixel = /<img src="http:\/\/localhost:8080(\/t\/o\/[^"]+)"/.exec(String(parsed.html))![1];
    await new Promise((r) => setTimeout(r, 1500));
    const opened = await h.app.inject({
      method: 'GET',
      url: pixel,
      headers: { 'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)' },
    });
    expect(opened.statusCode).toBe(200);
    await until(async () =>
      (await h.call('GET', `/api/messages/${encodeURIComponent(messageId)}`, { key: t.apiKey })).body.data.timeline.some(
        (e: { type: string }) => e.type === 'opened',
      ),
    );
    const detail = (await h.call('GET', `/api/messages/${encodeURIComponent(messageId)}`, { key: t.apiKey })).body.data;
    expect(detail).toMatchObject({ status: 'sent', stream: 'broadcast', source: 'smtp', email: 'reader@smtp.example.com' });
    expect(detail.timeline.map((e: { type: string }) => e.type)).toEqual(['queued', 'sent', 'opened']);
    expect(detail.timeline[1].detail).toMatch(/^250 /);
    expect(detail.copy.html).toContain('/t/c/');
  });

  it('a revoked credential stops at once, also on a connection already signed in', async () => {
    const made = (await h.call('POST', '/api/email/smtp_credentials', { key: t.apiKey, body: { name: 'Short-lived' } })).body.data;
    const conn = new SMTPConnection({ host: '127.0.0.1', port, secure: false, requireTLS: true, tls: { rejectUnauthorized: false } });
    await new Promise<void>((resolve, reject) => conn.connect((err?: Error) => (err ? reject(err) : resolve())));
    await new Promise<void>((resolve, reject) => conn.login({ user: made.username, pass: made.password }, (err) => (err ? reject(err) : resolve())));
    const send = (to: string) =>
      new Promise<string>((resolve, reject) =>
        conn.send({ from: FROM, to: [to] }, `From: ${FROM}\r\nTo: ${to}\r\nSubject: hi\r\n\r\nhi\r\n`, (err, info) =>
          err ? reject(err) : resolve(info.response),
        ),
      );
    expect(await send('before-revoke@smtp.example.com')).toMatch(/^250 /);
    expect((await h.call('DELETE', `/api/email/smtp_credentials/${made.id}`, { key: t.apiKey })).body.data.revoked_at).toBeTruthy();
    await expect(send('after-revoke@smtp.example.com')).rejects.toMatchObject({ responseCode: 535 });
    conn.close();
    await expect(client({ user: made.username, pass: made.password }).verify()).rejects.toMatchObject({ responseCode: 535 });
    const [{ n }] = await h.runtime.database.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox WHERE email = 'after-revoke@smtp.example.com'");
    expect(n).toBe(0);
  });

  // Last: it locks this client address out of AUTH for 15 minutes.
  it('refuses AUTH with a wrong password (535 5.7.8), then the client address for a while (421)', async () => {
    const wrong = client({ user: user.username, pass: 'not-the-password' });
    await expect(client({ user: 'mw_nobody', pass: 'x' }).verify()).rejects.toMatchObject({ responseCode: 535, response: expect.stringContaining('5.7.8') });
    const codes: number[] = [];
    for (let i = 0; i < 5; i++)
      codes.push(
        await wrong.verify().then(
          () => 250,
          (e: { responseCode: number }) => e.responseCode,
        ),
      );
    // At most SUBMISSION_AUTH_FAILURES (3) failures, counting the earlier tests' one, then 421 for every try.
    const locked = codes.indexOf(421);
    expect(locked).toBeGreaterThan(0);
    expect(locked).toBeLessThanOrEqual(2);
    expect(codes.slice(0, locked).every((c) => c === 535)).toBe(true);
    expect(codes.slice(locked).every((c) => c === 421)).toBe(true);
    // The right password is refused too, until the failures age.
    await expect(client().verify()).rejects.toMatchObject({ responseCode: 421 });
    const out = await smtplib(
      python(`
try:
    s.login('${user.username}', '${user.password}')
    print('signed in')
except smtplib.SMTPException as e:
    print('refused', e)
`),
    ).catch((e: Error) => e.message);
    expect(out).toMatch(/421|Connection unexpectedly closed/);
  });
});
