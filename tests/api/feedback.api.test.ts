/**
 * Delivery feedback end to end on a real database and a real SMTP sink: open pixel and click redirects with
 * signed tokens, one-click unsubscribe (RFC 8058) and the confirmation page, the mailbox simulator, SMTP 5xx bounces,
 * SES notifications through SNS (signed and unsigned), the JSON feedback form, suppression, and the audience
 * accounting of the next blast.
 */
import { generateKeyPairSync, createSign, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATOR_ADDRESSES } from '../../src/domain/feedback.ts';
import { pinSnsCertificate } from '../../src/server/gateways/event/sns.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import type { Json } from '../helpers/json.ts';
import { EVENT } from '../../src/domain/events.ts';

let h: Harness;
let t: Tenant;
let personaId: string;
let marketingId: string;
let transactionalId: string;

const HTML = `<html><body><p>Hi {{user.first_name}}</p><a href="http://shop.example.com/sale?x=1&amp;y=2">Sale</a>
<a href="mailto:help@example.com">Help</a><a href="{{unsubscribe_link}}">Unsubscribe</a></body></html>`;

async function contacts(emails: string[]): Promise<Array<{ id: string; email: string }>> {
  const res = await h.call('POST', '/api/user/users', { key: t.apiKey, body: { users: emails.map((email, i) => ({ email, first_name: `F${i}` })) } });
  expect(res.status).toBe(200);
  return res.body.data;
}

/** sendBlast schedules a blast due now to `ids` and waits until it has been distributed; returns the blast. */
async function sendBlast(ids: string[], templateId = marketingId) {
  const id = randomUUID();
  const res = await h.call('POST', '/api/scheduler/scheduler', {
    key: t.apiKey,
    body: {
      id,
      name: `B ${id.slice(0, 6)}`,
      template_id: templateId,
      sender_persona_id: personaId,
      to_user_ids: ids,
      send_at: wallClockUtc(-1),
      timezone: 'UTC',
    },
  });
  expect(res.status).toBe(200);
  await until(
    async () =>
      (
        await h.runtime.database.query(
          "SELECT 1 FROM job_log WHERE job_name = 'JOB_DISTRIBUTE_EMAIL_BLAST' AND start_details->>'scheduled_email_group_id' = $1",
          [id],
        )
      ).length > 0,
  );
  const list = await h.call('GET', '/api/scheduler/scheduler', { key: t.apiKey, query: { ids: id } });
  return list.body.data[0];
}

async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function eventsOf(name: string, email?: string) {
  return h.runtime.database.query<{ email: string; user_id: string | null; json: Record<string, Json>; blast_id: string | null }>(
    `SELECT email, user_id, json, blast_id FROM events WHERE project_id = $1 AND name = $2 ${email ? 'AND lower(email) = lower($3)' : ''} ORDER BY created_at`,
    email ? [t.projectId, name, email] : [t.projectId, name],
  );
}

/** header returns one raw header's value (mailparser folds List-* headers into an object). */
function header(mail: { headerLines: ReadonlyArray<{ key: string; line: string }> }, name: string): string | undefined {
  const line = mail.headerLines.find((l) => l.key === name)?.line;
  return line?.slice(line.indexOf(':') + 1).trim();
}

async function receivedBy(email: string) {
  const msgs = await h.sink.parsed();
  return msgs.filter((m) => m.envelopeTo.includes(email));
}

beforeAll(async () => {
  h = await startHarness({ workers: true });
  t = await h.tenant({ activated: true });
  personaId = (
    await h.call('POST', '/api/senderpersonawrapper/sender_personas', {
      key: t.apiKey,
      body: { sender_personas: [{ email: 'news@shop.example.com', first_name: 'Shop' }] },
    })
  ).body.data[0].id;
  await h.confirmPersonas();
  const tpl = await h.call('POST', '/api/template/templates', {
    key: t.apiKey,
    body: {
      templates: [
        { name: 'Marketing', subject: 'Sale for {{user.first_name}}', type: 'TEMPLATE_MARKETING', html_body: HTML },
        {
          name: 'Receipt',
          subject: 'Your receipt',
          type: 'TEMPLATE_TRANSACTIONAL',
          html_body: '<p>Thanks <a href="https://shop.example.com/orders">orders</a> <a href="{{unsubscribe_link}}">u</a></p>',
        },
      ],
    },
  });
  expect(tpl.status).toBe(200);
  [marketingId, transactionalId] = tpl.body.data.map((x: { id: string }) => x.id);
});
afterAll(async () => {
  await h?.close();
});

describe(`opens, clicks and unsubscribes (${API_DB})`, () => {
  let ann: { id: string; email: string };
  let bob: { id: string; email: string };
  let html: string;
  let unsubscribeUrl: string;

  it('a marketing email carries a signed open pixel, tracked links and RFC 8058 one-click headers', async () => {
    [ann, bob] = await contacts(['ann@clicks.example.com', 'bob@clicks.example.com']);
    const blast = await sendBlast([ann.id, bob.id]);
    expect(blast.sent_emails).toBe(2);
    const [mail] = await receivedBy(ann.email);
    html = String(mail.html);
    expect(header(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    unsubscribeUrl = header(mail, 'list-unsubscribe')!.replace(/^<|>$/g, '');
    expect(unsubscribeUrl).toMatch(/^http:\/\/localhost:8080\/u\//);
    expect(html).toMatch(/<img src="http:\/\/localhost:8080\/t\/o\/[^"]+\.gif"/);
    expect(html).not.toContain('href="http://shop.example.com');
    expect(html).toContain('href="mailto:help@example.com"');
    expect(html).toContain(`href="${unsubscribeUrl}"`);
  });

  it('the pixel records ses_event_open with user agent, device and domain; a tampered pixel is 404 and records nothing', async () => {
    const pixel = /<img src="http:\/\/localhost:8080(\/t\/o\/[^"]+)"/.exec(html)![1];
    const ua = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148';
    const res = await h.app.inject({ method: 'GET', url: pixel, headers: { 'user-agent': ua } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/gif');
    const opens = await eventsOf('ses_event_open', ann.email);
    expect(opens).toHaveLength(1);
    expect(opens[0]).toMatchObject({ user_id: ann.id, json: { user_agent: ua, device: 'Mobile', to_domain: 'clicks.example.com', template_id: marketingId } });
    const tampered = pixel.replace(/\/t\/o\/(.)/, (_m, c: string) => `/t/o/${c === 'A' ? 'B' : 'A'}`);
    expect((await h.app.inject({ method: 'GET', url: tampered })).statusCode).toBe(404);
    expect(await eventsOf('ses_event_open', ann.email)).toHaveLength(1);
  });

  it('a tracked link redirects to the original URL and records ses_event_click; a changed destination is refused', async () => {
    const link = /href="http:\/\/localhost:8080(\/t\/c\/[^"]+)"/.exec(html)![1];
    const res = await h.app.inject({ method: 'GET', url: link, headers: { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64)' } });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('http://shop.example.com/sale?x=1&y=2');
    const clicks = await eventsOf(EVENT.click, ann.email);
    expect(clicks).toHaveLength(1);
    expect(clicks[0].json).toMatchObject({ link: 'http://shop.example.com/sale?x=1&y=2', device: 'Desktop / Other', to_domain: 'clicks.example.com' });
    const [payload, sig] = link.slice('/t/c/'.length).split('.');
    const evil = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('shop.example.com', 'evil.example.com')).toString('base64url');
    const forged = await h.app.inject({ method: 'GET', url: `/t/c/${evil}.${sig}` });
    expect(forged.statusCode).toBe(404);
    expect(forged.headers.location).toBeUndefined();
    expect(await eventsOf(EVENT.click)).toHaveLength(1);
    // A HEAD (link checkers, proxies' probes) is answered like the GET but never counted.
    const pixel = /<img src="http:\/\/localhost:8080(\/t\/o\/[^"]+)"/.exec(html)![1];
    expect((await h.app.inject({ method: 'HEAD', url: link })).statusCode).toBe(302);
    expect((await h.app.inject({ method: 'HEAD', url: pixel })).statusCode).toBe(200);
    expect(await eventsOf('ses_event_click')).toHaveLength(1);
    expect(await eventsOf('ses_event_open', ann.email)).toHaveLength(1);
  });

  it('a link written with HTML entities (as Handlebars escapes variables) is signed and redirects as a browser reads it', async () => {
    const tpl = await h.call('POST', '/api/template/templates', {
      key: t.apiKey,
      body: {
        templates: [
          {
            name: 'Entities',
            subject: 'Links',
            type: 'TEMPLATE_TRANSACTIONAL',
            html_body: '<p><a href="https://shop.example.com/p?{{user.json.q}}">Product</a></p>',
          },
        ],
      },
    });
    const [eve] = (
      await h.call('POST', '/api/user/users', { key: t.apiKey, body: { users: [{ email: 'eve@clicks.example.com', json: { q: 'id=7&ref=mail' } }] } })
    ).body.data;
    await sendBlast([eve.id], tpl.body.data[0].id);
    const [mail] = await receivedBy(eve.email);
    const link = /href="http:\/\/localhost:8080(\/t\/c\/[^"]+)"/.exec(String(mail.html))![1];
    const res = await h.app.inject({ method: 'GET', url: link });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('https://shop.example.com/p?id=7&ref=mail');
  });

  it('the unsubscribe page asks first (a GET changes nothing); the one-click POST unsubscribes once', async () => {
    const path = unsubscribeUrl.slice('http://localhost:8080'.length);
    const page = await h.app.inject({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(ann.email);
    expect(page.body).toContain('<form method="post">');
    expect(await eventsOf('user_unsubscribed')).toHaveLength(0);
    const post = await h.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(post.statusCode).toBe(200);
    const again = await h.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--x--\r\n',
    });
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe('Unsubscribed'); // the multipart form of the one-click POST is recognised too
    const events = await eventsOf('user_unsubscribed');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ email: ann.email, user_id: ann.id, json: { via: 'one-click' } });
    const [row] = await h.runtime.database.query<{ unsubscribed_at: Date | null }>('SELECT unsubscribed_at FROM contacts WHERE id = $1', [ann.id]);
    expect(row.unsubscribed_at).not.toBeNull();
    expect((await h.app.inject({ method: 'GET', url: path })).body).toContain('You are unsubscribed');
    expect((await h.app.inject({ method: 'POST', url: `${path.slice(0, -3)}zzz` })).statusCode).toBe(404);
  });

  it("an operator's test email of the marketing template still reaches the unsubscribed contact", async () => {
    const before = (await receivedBy(ann.email)).length;
    const res = await h.call('POST', '/api/event/emit_send_single_email_event', {
      key: t.apiKey,
      body: {
        mailer_payload: {
          is_test_email: true,
          template_id: marketingId,
          from: { user_id: personaId },
          to: [{ email: ann.email }],
        },
      },
    });
    expect(res.status).toBe(200);
    await until(async () => (await receivedBy(ann.email)).length === before + 1);
  });

  it('a recipient who is not a contact unsubscribes once, even with two clicks at the same moment', async () => {
    const walkIn = 'walk-in@clicks.example.com';
    const send = () =>
      h.call('POST', '/api/event/emit_send_single_email_event', {
        key: t.apiKey,
        body: {
          mailer_payload: {
            to: [{ email: walkIn }],
            from: { user_id: personaId },
            subject: 'Hello',
            body: '<p>Hi <a href="{{unsubscribe_link}}">unsubscribe</a></p>',
          },
        },
      });
    expect((await send()).status).toBe(200);
    await until(async () => (await receivedBy(walkIn)).length === 1);
    const path = /href="http:\/\/localhost:8080(\/u\/[^"]+)"/.exec(String((await receivedBy(walkIn))[0].html))![1];
    expect((await h.app.inject({ method: 'GET', url: path })).body).toContain('<form method="post">');
    const both = await Promise.all(
      [0, 1].map(() => h.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' })),
    );
    expect(both.map((r) => r.statusCode)).toEqual([200, 200]);
    expect(await eventsOf(EVENT.unsubscribed, walkIn)).toHaveLength(1);
    expect((await eventsOf(EVENT.unsubscribed, walkIn))[0]).toMatchObject({ user_id: null, json: { via: 'page' } });
    expect(await h.runtime.database.query('SELECT reason FROM suppressions WHERE project_id = $1 AND email = $2', [t.projectId, walkIn])).toEqual([
      { reason: 'unsubscribed' },
    ]);
    expect((await h.app.inject({ method: 'GET', url: path })).body).toContain('You are unsubscribed');
    // Unsubscribing stops marketing mail only: a later single (transactional) send still goes out.
    expect((await send()).status).toBe(200);
    await until(async () => (await receivedBy(walkIn)).length === 2);
    // If the address becomes a contact later, marketing blasts still leave it out, counted as unsubscribed.
    const [now] = await contacts([walkIn]);
    const blast = await sendBlast([now.id]);
    expect(blast.audience).toEqual({
      targeted: 1,
      queued: 0,
      excluded: { unconfirmed: 0, unsubscribed: 1, bounced: 0, suppressed: 0, invalid: 0, not_a_contact: 0, sunset: 0, frequency: 0 },
    });
  });

  it('the next marketing blast skips the unsubscribed contact and reports it; a transactional one still reaches it', async () => {
    const before = (await receivedBy(ann.email)).length;
    const blast = await sendBlast([ann.id, bob.id]);
    expect(blast.audience).toEqual({
      targeted: 2,
      queued: 1,
      excluded: { unconfirmed: 0, unsubscribed: 1, bounced: 0, suppressed: 0, invalid: 0, not_a_contact: 0, sunset: 0, frequency: 0 },
    });
    expect(blast.sent_emails).toBe(1);
    expect(await receivedBy(ann.email)).toHaveLength(before);
    const receipt = await sendBlast([ann.id], transactionalId);
    expect(receipt.audience.excluded.unsubscribed).toBe(0);
    const mails = await receivedBy(ann.email);
    expect(mails).toHaveLength(before + 1);
    expect(header(mails.at(-1)!, 'list-unsubscribe')).toBeUndefined();
    expect(header(mails.at(-1)!, 'list-unsubscribe-post')).toBeUndefined();
  });
});

describe(`bounces, complaints and suppression (${API_DB})`, () => {
  it('simulator addresses produce their events without delivery; hard bounces and complaints are suppressed and excluded next time', async () => {
    const sim = await contacts([SIMULATOR_ADDRESSES.bounce, SIMULATOR_ADDRESSES.complaint, SIMULATOR_ADDRESSES.ooto, SIMULATOR_ADDRESSES.suppressionlist]);
    const delivered = h.sink.count;
    const blast = await sendBlast(sim.map((c) => c.id));
    expect(blast.sent_emails).toBe(4);
    expect(h.sink.count).toBe(delivered);
    await until(async () => (await eventsOf(EVENT.bounce)).length + (await eventsOf(EVENT.complaint)).length >= 4);
    const bounce = (await eventsOf(EVENT.bounce, SIMULATOR_ADDRESSES.bounce))[0];
    expect(bounce.json.bounce).toMatchObject({
      bounceType: 'Permanent',
      bouncedRecipients: [{ emailAddress: SIMULATOR_ADDRESSES.bounce, diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
    });
    expect(bounce.blast_id).toBe(blast.id);
    expect((await eventsOf(EVENT.complaint, SIMULATOR_ADDRESSES.complaint))[0].json.complaint.complaintFeedbackType).toBe('abuse');
    expect((await eventsOf(EVENT.bounce, SIMULATOR_ADDRESSES.ooto))[0].json.bounce.bounceType).toBe('Transient');
    const suppressed = await h.runtime.database.query<{ email: string; reason: string }>(
      "SELECT email, reason FROM suppressions WHERE project_id = $1 AND reason <> 'unsubscribed' ORDER BY email",
      [t.projectId],
    );
    expect(suppressed.map((s) => s.email)).toEqual([SIMULATOR_ADDRESSES.bounce, SIMULATOR_ADDRESSES.complaint, SIMULATOR_ADDRESSES.suppressionlist].sort());
    const next = await sendBlast(sim.map((c) => c.id));
    expect(next.audience).toEqual({
      targeted: 4,
      queued: 1,
      excluded: { unconfirmed: 0, unsubscribed: 0, bounced: 2, suppressed: 1, invalid: 0, not_a_contact: 0, sunset: 0, frequency: 0 },
    });
  });

  it('a relay 550 at send time is a failed send plus a hard bounce that suppresses the address', async () => {
    const [gone] = await contacts(['gone@bounce-relay.example.com']);
    h.sink.refuse.set(gone.email, { code: 550, message: '5.1.1 <gone@bounce-relay.example.com>: user unknown' });
    const blast = await sendBlast([gone.id]);
    expect(blast.failed_emails).toBe(1);
    expect(await eventsOf(EVENT.sendFailure, gone.email)).toHaveLength(1);
    const [bounce] = await eventsOf(EVENT.bounce, gone.email);
    expect(bounce.json).toMatchObject({
      source: 'smtp',
      bounce: {
        bounceType: 'Permanent',
        class: 'hard',
        reason: 'userunknown',
        bouncedRecipients: [{ diagnosticCode: expect.stringContaining('550'), status: '5.1.1' }],
      },
    });
    const [s] = await h.runtime.database.query('SELECT reason FROM suppressions WHERE project_id = $1 AND email = $2', [t.projectId, gone.email]);
    expect(s).toEqual({ reason: 'bounce' });
  });

  it('a relay refusing for policy (5.7.1) is a failed send and a bounce of the sender’s side, which does not suppress the address', async () => {
    const [blocked] = await contacts(['blocked@policy-relay.example.com']);
    h.sink.refuse.set(blocked.email, { code: 550, message: '5.7.1 Message rejected under policy' });
    const blast = await sendBlast([blocked.id]);
    expect(blast.failed_emails).toBe(1);
    const [bounce] = await eventsOf(EVENT.bounce, blocked.email);
    expect(bounce.json).toMatchObject({
      source: 'smtp',
      bounce: { bounceType: 'Transient', bounceSubType: 'General', class: 'sender', reason: 'policyviolation' },
    });
    expect(await h.runtime.database.query('SELECT 1 FROM suppressions WHERE project_id = $1 AND email = $2', [t.projectId, blocked.email])).toEqual([]);
    h.sink.refuse.delete(blocked.email);
  });

  it('a single send to a suppressed address fails visibly instead of going out', async () => {
    const res = await h.call('POST', '/api/event/emit_send_single_email_event', {
      key: t.apiKey,
      body: {
        mailer_payload: {
          to: [{ email: 'gone@bounce-relay.example.com' }],
          from: { user_id: personaId },
          subject: 'Hello',
          body: '<p>Hello</p>',
        },
      },
    });
    expect(res.status).toBe(200);
    await until(async () => (await eventsOf(EVENT.sendFailure, 'gone@bounce-relay.example.com')).length === 2);
    const failures = await eventsOf(EVENT.sendFailure, 'gone@bounce-relay.example.com');
    expect(failures[1].json.error_string).toContain('suppression list');
  });

  it('the JSON feedback form records bounces and complaints, and names bad fields', async () => {
    const bad = await h.call('POST', '/api/event/feedback', { key: t.apiKey, body: { notifications: [{ type: 'bounced', email: 'x@example.com' }] } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.join(' ')).toMatch(/notifications\/0\/type|notifications\[0\]\.type/);
    const ok = await h.call('POST', '/api/event/feedback', {
      key: t.apiKey,
      body: {
        notifications: [
          { type: 'bounce', email: 'Hard@Relay.example.com', bounce_type: 'Permanent', diagnostic_code: 'smtp; 550 no such user' },
          { type: 'bounce', email: 'soft@relay.example.com', bounce_type: 'Transient' },
          { type: 'complaint', email: 'angry@relay.example.com', feedback_type: 'abuse' },
        ],
      },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ recorded: 3, suppressed: 2 });
    expect((await h.call('POST', '/api/event/feedback', { body: { notifications: [] } })).status).toBe(401);
  });
});

describe(`SES notifications through SNS (${API_DB})`, () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const certUrl = `https://sns.us-east-1.amazonaws.com/SimpleNotificationService-${'a'.repeat(32)}.pem`;
  let integrationKey: string;

  const sesBounce = (email: string) =>
    JSON.stringify({
      notificationType: 'Bounce',
      mail: { messageId: 'ses-1', headers: [{ name: 'Message-ID', value: '<nope@example.com>' }] },
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: 'General',
        timestamp: new Date().toISOString(),
        bouncedRecipients: [{ emailAddress: email, diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
      },
    });
  const signed = (fields: Record<string, string>) => {
    const keys = ['Message', 'MessageId', 'Subject', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'].filter((k) => k in fields);
    const sign = createSign('RSA-SHA256');
    sign.update(keys.map((k) => `${k}\n${fields[k]}\n`).join(''));
    return { ...fields, SignatureVersion: '2', SigningCertURL: certUrl, Signature: sign.sign(privateKey, 'base64') };
  };
  const post = (body: unknown, key = integrationKey) =>
    h.app.inject({
      method: 'POST',
      url: `/api/event/feedback/ses/${key}`,
      headers: { 'content-type': 'text/plain; charset=UTF-8' },
      payload: JSON.stringify(body),
    });

  beforeAll(async () => {
    [{ integration_key: integrationKey }] = await h.runtime.database.query<{ integration_key: string }>('SELECT integration_key FROM projects WHERE id = $1', [
      t.projectId,
    ]);
    pinSnsCertificate(certUrl, publicKey.export({ type: 'spki', format: 'pem' }) as string);
  });

  it('with verification on, refuses unsigned and wrongly signed messages and accepts a signed bounce', async () => {
    h.runtime.ctx.config.snsVerify = true;
    const base = {
      Type: 'Notification',
      MessageId: randomUUID(),
      TopicArn: 'arn:aws:sns:us-east-1:1:ses',
      Timestamp: new Date().toISOString(),
      Message: sesBounce('sns-hard@relay.example.com'),
    };
    expect((await post(base)).statusCode).toBe(403);
    const forged = { ...signed(base), Message: sesBounce('someone-else@relay.example.com') };
    const refused = await post(forged);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().errors[0]).toMatch(/^signature: /);
    expect(await eventsOf(EVENT.bounce, 'someone-else@relay.example.com')).toHaveLength(0);
    const ok = await post(signed(base));
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ type: 'Notification', recorded: 1, suppressed: 1 });
    const [e] = await eventsOf(EVENT.bounce, 'sns-hard@relay.example.com');
    expect(e.json).toMatchObject({
      source: 'sns',
      bounce: { bounceType: 'Permanent', bouncedRecipients: [{ diagnosticCode: 'smtp; 550 5.1.1 user unknown' }] },
    });
    expect((await post(signed(base), 'not-a-real-integration-key')).statusCode).toBe(401);
  });

  it('with SNS_TOPIC_ARNS set, a validly signed message from another topic is refused', async () => {
    h.runtime.ctx.config.snsVerify = true;
    h.runtime.ctx.config.snsTopicArns = ['arn:aws:sns:us-east-1:1:ses'];
    try {
      const base = { Type: 'Notification', Timestamp: new Date().toISOString(), Message: sesBounce('topic-check@relay.example.com') };
      const foreign = await post(signed({ ...base, MessageId: randomUUID(), TopicArn: 'arn:aws:sns:us-east-1:666:other' }));
      expect(foreign.statusCode).toBe(403);
      expect(foreign.json().errors[0]).toMatch(/^TopicArn: /);
      expect(await eventsOf(EVENT.bounce, 'topic-check@relay.example.com')).toHaveLength(0);
      const ours = await post(signed({ ...base, MessageId: randomUUID(), TopicArn: 'arn:aws:sns:us-east-1:1:ses' }));
      expect(ours.statusCode).toBe(200);
    } finally {
      h.runtime.ctx.config.snsTopicArns = [];
    }
  });

  it('a redelivered notification (same MessageId) records nothing twice; recipients without an address are skipped', async () => {
    h.runtime.ctx.config.snsVerify = true;
    const message = JSON.stringify({
      notificationType: 'Bounce',
      mail: { messageId: 'ses-2' },
      bounce: {
        bounceType: 'Permanent',
        bouncedRecipients: [{ emailAddress: 'sns-twice@relay.example.com' }, { diagnosticCode: 'no address' }, { emailAddress: 42 }],
      },
    });
    const note = signed({
      Type: 'Notification',
      MessageId: randomUUID(),
      TopicArn: 'arn:aws:sns:us-east-1:1:ses',
      Timestamp: new Date().toISOString(),
      Message: message,
    });
    const first = await post(note);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ type: 'Notification', recorded: 1, suppressed: 1 });
    const again = await post(note);
    expect(again.json()).toEqual(first.json());
    expect(await eventsOf(EVENT.bounce, 'sns-twice@relay.example.com')).toHaveLength(1);
  });

  it('with verification off, confirms a subscription by visiting SubscribeURL and reads an SES complaint', async () => {
    h.runtime.ctx.config.snsVerify = false;
    let visited = '';
    const server = createServer((req, res) => {
      visited = req.url ?? '';
      res.end('<ConfirmSubscriptionResponse/>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/?Action=ConfirmSubscription&Token=abc`;
      const res = await post({ Type: 'SubscriptionConfirmation', SubscribeURL: url, Token: 'abc', TopicArn: 'arn:aws:sns:us-east-1:1:ses' });
      expect(res.statusCode).toBe(200);
      expect(visited).toBe('/?Action=ConfirmSubscription&Token=abc');
    } finally {
      server.close();
    }
    const complaint = JSON.stringify({
      notificationType: 'Complaint',
      mail: { messageId: 'x' },
      complaint: { complaintFeedbackType: 'abuse', complainedRecipients: [{ emailAddress: 'sns-complaint@relay.example.com' }] },
    });
    const res = await post({ Type: 'Notification', Message: complaint });
    expect(res.json()).toEqual({ type: 'Notification', recorded: 1, suppressed: 1 });
    expect((await post({ Type: 'Notification', Message: 'not json' })).statusCode).toBe(400);
    h.runtime.ctx.config.snsVerify = true;
  });
});

describe(`the suppression list API (${API_DB})`, () => {
  it('adds addresses by hand (reporting invalid ones), lists and filters them, and keeps tenants apart', async () => {
    const add = await h.call('POST', '/api/event/suppressions', {
      key: t.apiKey,
      body: { emails: ['Manual-One@list.example.com', 'not-an-email', 'manual-two@list.example.com'] },
    });
    expect(add.status).toBe(200);
    expect(add.body).toEqual({ changed: 2, failed: [{ index: 1, errors: [expect.stringMatching(/^emails\[1\]: /)] }] });
    const again = await h.call('POST', '/api/event/suppressions', { key: t.apiKey, body: { emails: ['manual-one@list.example.com'] } });
    expect(again.body.changed).toBe(0); // already listed: the entry is kept as it was
    const none = await h.call('POST', '/api/event/suppressions', { key: t.apiKey, body: { emails: ['nope'] } });
    expect(none.status).toBe(400);
    expect(none.body.errors[0]).toMatch(/^emails\[0\]: /);

    const page = await h.call('GET', '/api/event/suppressions', { key: t.apiKey, query: { email: 'LIST.example', limit: '1' } });
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(2);
    expect(page.body.data).toHaveLength(1);
    expect(page.body.data[0]).toMatchObject({ reason: 'manual', email: expect.stringMatching(/^manual-(one|two)@list\.example\.com$/) });
    const all = await h.call('GET', '/api/event/suppressions', { key: t.apiKey, query: { limit: '1000' } });
    expect(all.body.data.map((x: { reason: string }) => x.reason)).toEqual(expect.arrayContaining(['bounce', 'complaint', 'manual', 'unsubscribed']));
    expect(all.body.total).toBe(all.body.data.length);

    const other = await h.tenant({ activated: true });
    expect((await h.call('GET', '/api/event/suppressions', { key: other.apiKey })).body).toEqual({ data: [], total: 0 });
    expect((await h.call('GET', '/api/event/suppressions', {})).status).toBe(401);
  });

  it('a manual entry stops even transactional mail; removing it (or a bounce) lets the next send through', async () => {
    const [kim] = await contacts(['kim@list.example.com']);
    await h.call('POST', '/api/event/suppressions', { key: t.apiKey, body: { emails: [kim.email] } });
    const blocked = await sendBlast([kim.id], transactionalId);
    expect(blocked.audience.excluded.suppressed).toBe(1);
    expect(blocked.audience.queued).toBe(0);

    const removed = await h.call('POST', '/api/event/suppressions/remove', {
      key: t.apiKey,
      body: { emails: ['KIM@list.example.com', 'never-listed@list.example.com'] },
    });
    expect(removed.body).toEqual({ changed: 1, failed: [] });
    const sent = await sendBlast([kim.id], transactionalId);
    expect(sent.audience.queued).toBe(1);
    expect(sent.sent_emails).toBe(1);

    // The relay's earlier hard bounce: removing it clears the contact's bounced_at too, so marketing reaches it again.
    const gone = 'gone@bounce-relay.example.com';
    h.sink.refuse.delete(gone);
    await h.call('POST', '/api/event/suppressions/remove', { key: t.apiKey, body: { emails: [gone] } });
    const [row] = await h.runtime.database.query<{ id: string; bounced_at: Date | null }>(
      'SELECT id, bounced_at FROM contacts WHERE project_id = $1 AND email = $2',
      [t.projectId, gone],
    );
    expect(row.bounced_at).toBeNull();
    const back = await sendBlast([row.id]);
    expect(back.audience.queued).toBe(1);
  });
});

describe(`public events API (${API_DB})`, () => {
  it("stores valid events with the contact's user_id, reports bad ones by index and field, and keeps tenants apart", async () => {
    const [carol] = await contacts(['carol@events.example.com']);
    const res = await h.call('POST', '/api/event/events', {
      key: t.apiKey,
      body: {
        events: [
          { name: 'order_placed', email: 'carol@events.example.com', metric1: 42.5, json: { sku: 'A1' } },
          { name: '', email: 'x@events.example.com' },
          { name: 'viewed', email: 'nope', metric2: 'ten' },
          { name: 'viewed', email: 'dan@events.example.com', json: [1, 2] },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.stored).toBe(2);
    expect(res.body.failed).toEqual([
      { index: 1, errors: ['events[1].name: Required field'] },
      { index: 2, errors: ['events[2].email: Invalid email', 'events[2].metric2: must be a number'] },
    ]);
    const stored = await h.call('GET', '/api/event/all_events', { key: t.apiKey, query: { include_events: 'order_placed,viewed' } });
    const byName = Object.fromEntries(stored.body.data.map((e: { name: string }) => [e.name, e]));
    expect(byName.order_placed).toMatchObject({ email: 'carol@events.example.com', user_id: carol.id, metric1: 42.5, json: { sku: 'A1' } });
    expect(byName.viewed).toMatchObject({ user_id: null, json: { value: [1, 2] } });
    const other = await h.tenant({ activated: true });
    expect((await h.call('GET', '/api/event/all_events', { key: other.apiKey, query: { include_events: 'order_placed' } })).body.data).toEqual([]);
  });

  it('refuses a batch with no valid event, an oversize batch, bad JSON and a missing key with a clear error', async () => {
    const none = await h.call('POST', '/api/event/events', { key: t.apiKey, body: { events: [{ email: 'a@b.co' }] } });
    expect(none.status).toBe(400);
    expect(none.body.errors).toEqual(['events[0].name: Required field']);
    const big = await h.call('POST', '/api/event/events', {
      key: t.apiKey,
      body: { events: Array.from({ length: 1001 }, () => ({ name: 'n', email: 'a@b.co' })) },
    });
    expect(big.status).toBe(400);
    expect(big.body.errors.join(' ')).toMatch(/events/);
    const bytes = await h.call('POST', '/api/event/events', {
      key: t.apiKey,
      body: { events: [{ name: 'n', email: 'a@b.co', json: { pad: 'x'.repeat(1_100_000) } }] },
    });
    expect(bytes.status).toBe(400);
    expect(bytes.body.errors[0]).toMatch(/^events: the batch is \d+ bytes/);
    const badJson = await h.app.inject({
      method: 'POST',
      url: '/api/event/events',
      headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json' },
      payload: '{"events": [',
    });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json().errors.length).toBeGreaterThan(0);
    expect((await h.call('POST', '/api/event/events', { body: { events: [{ name: 'n', email: 'a@b.co' }] } })).status).toBe(401);
  });

  it('refuses the names of events the product records itself, naming each, and stores the rest', async () => {
    const u = await h.tenant({ activated: true });
    const names = Object.values(EVENT);
    const res = await h.call('POST', '/api/event/events', {
      key: u.apiKey,
      body: {
        events: [
          { name: 'order_placed', email: 'buyer@events.example.com' },
          ...names.map((name, i) => ({ name: i % 2 ? name.toUpperCase() : ` ${name} `, email: `fake${i}@events.example.com` })),
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.stored).toBe(1);
    expect(res.body.failed.map((f: { index: number }) => f.index)).toEqual(names.map((_, i) => i + 1));
    for (const [i, name] of names.entries()) {
      expect(res.body.failed[i].errors).toHaveLength(1);
      expect(res.body.failed[i].errors[0].toLowerCase()).toContain(`events[${i + 1}].name: "${name}" is an event mailwright records itself`);
    }
    // A batch of nothing else is refused whole, storing nothing.
    const only = await h.call('POST', '/api/event/events', { key: u.apiKey, body: { events: [{ name: EVENT.sendSuccess, email: 'a@events.example.com' }] } });
    expect(only.status).toBe(400);
    expect(only.body.errors).toEqual([expect.stringMatching(/^events\[0\]\.name: "email_send_result_success" is an event Mailwright records itself/)]);
    const [{ n }] = await h.runtime.database.query<{ n: number }>('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [u.projectId]);
    expect(n).toBe(1);
  });

  it("counts only the product's own events toward the circuit-breaker, the reports and the month's sends", async () => {
    const u = await h.tenant({ activated: true });
    const q = h.runtime.database.query.bind(h.runtime.database);
    // 300 sends that the product did not record (as a customer could post them before the API refused the name) and
    // 2 that it did.
    await q(
      `INSERT INTO events (project_id, name, email, is_system, json)
         SELECT $1, '${EVENT.sendSuccess}', 'posted' || g || '@events.example.com', false, '{}'::jsonb FROM generate_series(1, 300) g`,
      [u.projectId],
    );
    await q(
      `INSERT INTO events (project_id, name, email, is_system, json)
         SELECT $1, '${EVENT.sendSuccess}', 'real' || g || '@events.example.com', true, jsonb_build_object('message_id', '<real' || g || '@events.example.com>')
           FROM generate_series(1, 2) g`,
      [u.projectId],
    );
    const status = await h.call('GET', '/api/scheduler/sending_status', { key: u.apiKey });
    expect(status.body.sends_24h).toBe(2);
    const sends = async () =>
      ((await h.call('GET', '/api/reporting/quickstats', { key: u.apiKey })).body.data as Array<{ name: string; num: number }>).find(
        (r) => r.name === EVENT.sendSuccess,
      )?.num ?? 0;
    expect(await sends()).toBe(2);
    // The same after the aggregates are rebuilt from the raw events.
    await q('SELECT report_rebuild($1::uuid)', [u.projectId]);
    expect(await sends()).toBe(2);
  });

  // PGlite's listeners live in its own thread and have no connection that could drop.
  it.skipIf(process.env.API_DB !== 'postgres')('on PostgreSQL, a listener whose connection is killed LISTENs again on a new one', async () => {
    const payloads: string[] = [];
    // A channel of the test's own (the workflow engine listens on workflow_steps; nothing sends on this one but the test).
    const stop = await h.runtime.database.listen('reconnect_probe', (p) => payloads.push(p));
    try {
      const killed = await h.runtime.database.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE query = 'LISTEN "reconnect_probe"' AND datname = current_database() AND pid <> pg_backend_pid()`,
      );
      expect(killed.length).toBeGreaterThan(0);
      await h.runtime.database.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [killed.map((k) => k.pid)]);
      await until(
        async () =>
          (
            await h.runtime.database.query(
              `SELECT 1 FROM pg_stat_activity WHERE query = 'LISTEN "reconnect_probe"' AND datname = current_database() AND pid <> ALL($1::int[])`,
              [killed.map((k) => k.pid)],
            )
          ).length > 0,
        10_000,
      );
      await h.runtime.database.query("SELECT pg_notify('reconnect_probe', $1)", [t.projectId]);
      await until(async () => payloads.includes(t.projectId), 5000);
    } finally {
      await stop();
    }
  });

  it('an Idempotency-Key makes a retried batch store nothing twice', async () => {
    const send = () =>
      h.app.inject({
        method: 'POST',
        url: '/api/event/events',
        headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json', 'idempotency-key': 'batch-7' },
        payload: JSON.stringify({
          events: [
            { name: 'idem', email: 'i@events.example.com' },
            { name: 'idem', email: 'j@events.example.com' },
          ],
        }),
      });
    const first = await send();
    const second = await send();
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
    const count = await h.call('GET', '/api/event/all_events/count', { key: t.apiKey, query: { include_events: 'idem' } });
    expect(count.body.num_events).toBe(2);
  });

  it('refuses a reused Idempotency-Key with a different batch (422 naming the key) and stores nothing of it', async () => {
    const send = (events: unknown[], key = 'batch-8') =>
      h.app.inject({
        method: 'POST',
        url: '/api/event/events',
        headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json', 'idempotency-key': key },
        payload: JSON.stringify({ events }),
      });
    const first = await send([{ name: 'idem2', email: 'k@events.example.com', json: { a: 1, b: 2 } }]);
    expect(first.statusCode).toBe(200);
    const other = await send([{ name: 'idem2', email: 'other@events.example.com' }]);
    expect(other.statusCode).toBe(422);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.json().errors).toEqual([
      'Idempotency-Key: "batch-8" was already used for a different request in the last 24 hours; use a new key for a new batch',
    ]);
    // The same batch with its keys in another order is the same request: replayed.
    const same = await send([{ json: { b: 2, a: 1 }, email: 'k@events.example.com', name: 'idem2' }]);
    expect(same.statusCode).toBe(200);
    expect(same.headers['idempotent-replayed']).toBe('true');
    expect(same.json()).toEqual(first.json());
    const stored = await h.call('GET', '/api/event/all_events', { key: t.apiKey, query: { include_events: 'idem2', limit: 100 } });
    expect(stored.body.data.map((e: { email: string }) => e.email)).toEqual(['k@events.example.com']);
    // Keys are per project: another project may use the same key for its own batch.
    const u = await h.tenant();
    const theirs = await h.app.inject({
      method: 'POST',
      url: '/api/event/events',
      headers: { 'x-api-key': u.apiKey, 'content-type': 'application/json', 'idempotency-key': 'batch-8' },
      payload: JSON.stringify({ events: [{ name: 'idem2', email: 'u@events.example.com' }] }),
    });
    expect(theirs.statusCode).toBe(200);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
  });
});
