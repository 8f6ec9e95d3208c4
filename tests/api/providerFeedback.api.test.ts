/**
 * Provider feedback webhooks, each signed by its provider's real scheme with a test key: Postmark (basic auth in the
 * webhook URL), Mailgun (HMAC-SHA256 of timestamp + token), SendGrid (ECDSA P-256 over timestamp + raw body), Brevo
 * (bearer token) and Resend (Svix / Standard Webhooks). For each, a blast's four recipients get a user-unknown bounce,
 * a mailbox-full bounce, a "blocked using Spamhaus" bounce labelled hard by the provider, and a spam complaint: the
 * first is suppressed, the second counted and not, the third never touches the recipient, the fourth is suppressed and
 * unsubscribed. Forged, stale and replayed requests get 401 and change nothing. Runs on PGlite and PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHmac, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { EVENT } from '../../src/domain/events.ts';
import { FEEDBACK_PROVIDERS, type FeedbackProvider } from '../../src/domain/providerFeedback.ts';
import { API_DB, dueBlast, startHarness, type Harness, type Tenant } from './harness.ts';
import { WebhookReceiver } from '../helpers/webhookReceiver.ts';

let h: Harness;
const receiver = new WebhookReceiver();
let hookUrl: string;
beforeAll(async () => {
  hookUrl = await receiver.start();
  h = await startHarness({
    workers: true,
    config: { webhooks: { allowPrivate: true, timeoutMs: 2000, retryScheduleS: [1], retryForMs: 3_600_000, leaseMs: 10_000, pollMs: 100 } },
  });
});
afterAll(async () => {
  await h?.close();
  await receiver.stop();
});

const q = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => h.runtime.database.query<T>(text, params);
const until = async (what: () => Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** What one case says, before a provider writes it in its own form. */
interface Case {
  email: string;
  messageId: string;
  kind: 'bounce' | 'complaint';
  label?: 'hard' | 'soft';
  status?: string;
  text?: string;
}

const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const SENDGRID_KEY = ec.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
const RESEND_SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const SECRETS: Record<FeedbackProvider, string> = {
  postmark: 'hook-user:hook-pass-1234',
  mailgun: 'key-mailgun-signing-0123456789',
  sendgrid: SENDGRID_KEY,
  brevo: 'brevo-token-0123456789',
  resend: RESEND_SECRET,
};

/** A request as the provider sends it: body text and headers. `at` is the signing time (s). */
interface Signed {
  body: string;
  headers: Record<string, string>;
}

/**
 * signed writes the cases as `provider` posts them, signed with `secret` at time `at` (Unix s). Each delivery's body is
 * its own, as the providers' are (Postmark's bounce ID, Brevo's ts_epoch in ms): a body seen twice is a replay.
 */
function signed(provider: FeedbackProvider, cases: Case[], secret: string, at = Math.floor(Date.now() / 1000)): Signed[] {
  const json = { 'content-type': 'application/json' };
  switch (provider) {
    case 'postmark':
      return cases.map((c, i) => ({
        headers: { ...json, authorization: `Basic ${Buffer.from(secret).toString('base64')}` },
        body: JSON.stringify(
          c.kind === 'complaint'
            ? {
                RecordType: 'SpamComplaint',
                Type: 'SpamComplaint',
                TypeCode: 512,
                ID: i + 1 + Math.floor(Math.random() * 1e9),
                Email: c.email,
                Details: 'Complaint',
                BouncedAt: new Date(at * 1000).toISOString(),
              }
            : {
                RecordType: 'Bounce',
                Type: c.label === 'hard' ? 'HardBounce' : 'SoftBounce',
                ID: i + 1 + Math.floor(Math.random() * 1e9),
                Email: c.email,
                Details: c.text,
                BouncedAt: new Date(at * 1000).toISOString(),
              },
        ),
      }));
    case 'mailgun':
      return cases.map((c) => {
        const token = randomBytes(25).toString('hex');
        const signature = { timestamp: String(at), token, signature: createHmac('sha256', secret).update(`${at}${token}`).digest('hex') };
        const message = { headers: { 'message-id': c.messageId } };
        const data =
          c.kind === 'complaint'
            ? { event: 'complained', recipient: c.email, message }
            : {
                event: 'failed',
                severity: c.label === 'hard' ? 'permanent' : 'temporary',
                reason: 'bounce',
                recipient: c.email,
                message,
                'delivery-status': { code: Number(c.text!.slice(0, 3)), message: c.text, description: '', 'enhanced-code': c.status },
              };
        return { headers: json, body: JSON.stringify({ signature, 'event-data': { id: randomBytes(8).toString('hex'), ...data } }) };
      });
    case 'sendgrid': {
      // SendGrid posts every event of a period in one signed batch.
      const body = JSON.stringify(
        cases.map((c) =>
          c.kind === 'complaint'
            ? { email: c.email, event: 'spamreport', 'smtp-id': `<${c.messageId}>`, timestamp: at }
            : {
                email: c.email,
                event: 'bounce',
                type: c.label === 'hard' ? 'bounce' : 'blocked',
                status: c.status,
                reason: c.text,
                'smtp-id': `<${c.messageId}>`,
                timestamp: at,
              },
        ),
      );
      const signature = sign('sha256', Buffer.from(`${at}${body}`), ec.privateKey).toString('base64');
      return [
        {
          body,
          headers: { ...json, 'x-twilio-email-event-webhook-signature': signature, 'x-twilio-email-event-webhook-timestamp': String(at) },
        },
      ];
    }
    case 'brevo':
      return cases.map((c) => ({
        headers: { ...json, authorization: `Bearer ${secret}` },
        body: JSON.stringify(
          c.kind === 'complaint'
            ? { event: 'spam', email: c.email, 'message-id': `<${c.messageId}>`, ts_event: at, ts_epoch: Date.now() }
            : {
                event: c.label === 'hard' ? 'hard_bounce' : 'soft_bounce',
                email: c.email,
                'message-id': `<${c.messageId}>`,
                reason: c.text,
                ts_event: at,
                ts_epoch: Date.now(),
              },
        ),
      }));
    case 'resend':
      return cases.map((c) => {
        const id = `msg_${randomBytes(12).toString('hex')}`;
        const body = JSON.stringify(
          c.kind === 'complaint'
            ? { type: 'email.complained', created_at: new Date(at * 1000).toISOString(), data: { email_id: id, to: [c.email] } }
            : {
                type: 'email.bounced',
                created_at: new Date(at * 1000).toISOString(),
                data: { email_id: id, to: [c.email], bounce: { type: c.label === 'hard' ? 'Permanent' : 'Transient', subType: 'General', message: c.text } },
              },
        );
        const signature = new Webhook(secret).sign(id, new Date(at * 1000), body);
        return { body, headers: { ...json, 'svix-id': id, 'svix-timestamp': String(at), 'svix-signature': signature } };
      });
  }
}

const post = (provider: FeedbackProvider, key: string, r: Signed) =>
  h.app.inject({ method: 'POST', url: `/api/event/feedback/${provider}/${key}`, headers: r.headers, payload: r.body });

const feedbackCount = async (projectId: string) =>
  (await q<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND name IN ($2, $3)`, [projectId, EVENT.bounce, EVENT.complaint]))[0].n;

describe.each(FEEDBACK_PROVIDERS)(`provider feedback webhooks: %s (${API_DB})`, (provider) => {
  let t: Tenant;
  let key: string;
  let cases: Case[];
  const people = ['gone', 'full', 'blocked', 'annoyed'].map((n) => `${n}-${provider}@receiver.example`);

  it('sends a blast, then takes the provider’s signed bounces and complaint for it', async () => {
    t = await h.tenant({ activated: true });
    [{ integration_key: key }] = await q<{ integration_key: string }>('SELECT integration_key FROM projects WHERE id = $1', [t.projectId]);
    // Not set up yet: 401.
    const early = signed(provider, [{ email: people[0], messageId: 'x@y', kind: 'complaint' }], SECRETS[provider]);
    expect((await post(provider, key, early[0])).statusCode).toBe(401);

    const set = await h.call('PUT', `/api/event/feedback_integrations/${provider}`, { key: t.apiKey, body: { secret: SECRETS[provider] } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ provider, secret_hint: `…${SECRETS[provider].slice(-4)}` });
    expect(set.body.webhook_url).toMatch(new RegExp(`/api/event/feedback/${provider}/${key}$`));
    expect(JSON.stringify((await h.call('GET', '/api/event/feedback_integrations', { key: t.apiKey })).body)).not.toContain(SECRETS[provider]);
    // A secret of the wrong form for the provider is refused with the field named.
    if (provider === 'sendgrid' || provider === 'resend' || provider === 'postmark') {
      const bad = await h.call('PUT', `/api/event/feedback_integrations/${provider}`, { key: t.apiKey, body: { secret: 'not-a-key-at-all' } });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0]).toMatch(/^secret: /);
    }
    if (provider === 'sendgrid') {
      // An EC key on another curve is not a SendGrid verification key either.
      const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
      const bad = await h.call('PUT', `/api/event/feedback_integrations/${provider}`, { key: t.apiKey, body: { secret: p384 } });
      expect(bad.status).toBe(400);
      const kept = (await h.call('GET', '/api/event/feedback_integrations', { key: t.apiKey })).body.data as Array<{ provider: string; secret_hint: string }>;
      expect(kept.find((i) => i.provider === provider)?.secret_hint).toBe(`…${SECRETS[provider].slice(-4)}`);
    }

    // The customer's own endpoint for bounces and complaints (Standard Webhooks, core/webhooks).
    const hook = await h.call('POST', '/api/webhooks/endpoints', {
      key: t.apiKey,
      body: { url: `${hookUrl}/${provider}`, event_types: ['email.bounced', 'email.complained'] },
    });
    expect(hook.status).toBe(200);
    const secret = hook.body.data.secret as string;

    await dueBlast(h, t, people, { from: 'news@shop.example', type: 'TEMPLATE_MARKETING' }).catch((err: Error) => {
      if (!/^the blast queued 0 of /.test(err.message)) throw err;
    });
    const sent = () =>
      q<{ email: string; message_id: string }>(`SELECT email, message_id FROM outbox WHERE project_id = $1 AND status = 'sent'`, [t.projectId]);
    await until(async () => (await sent()).length === people.length);
    const ids = new Map((await sent()).map((r) => [r.email, r.message_id.replace(/^<|>$/g, '')]));
    cases = [
      {
        email: people[0],
        messageId: ids.get(people[0])!,
        kind: 'bounce',
        label: 'hard',
        status: '5.1.1',
        text: '550 5.1.1 The email account that you tried to reach does not exist',
      },
      { email: people[1], messageId: ids.get(people[1])!, kind: 'bounce', label: 'soft', status: '5.2.2', text: '552 5.2.2 Mailbox full' },
      // Labelled hard by the provider; the receiver's words say the sender was refused.
      {
        email: people[2],
        messageId: ids.get(people[2])!,
        kind: 'bounce',
        label: 'hard',
        status: '5.7.1',
        text: '554 5.7.1 Client host [192.0.2.1] blocked using zen.spamhaus.org',
      },
      { email: people[3], messageId: ids.get(people[3])!, kind: 'complaint' },
    ];
    for (const r of signed(provider, cases, SECRETS[provider])) {
      const res = await post(provider, key, r);
      expect(res.statusCode, res.body).toBe(200);
    }

    const events = await q<{ name: string; email: string; json: { source: string; bounce?: { bounceType: string; class: string } } }>(
      `SELECT name, email, json FROM events WHERE project_id = $1 AND name IN ($2, $3) ORDER BY email`,
      [t.projectId, EVENT.bounce, EVENT.complaint],
    );
    expect(events.map((e) => [e.name, e.email, e.json.source, e.json.bounce?.bounceType, e.json.bounce?.class])).toEqual([
      [EVENT.complaint, people[3], provider, undefined, undefined],
      [EVENT.bounce, people[2], provider, 'Transient', 'sender'],
      [EVENT.bounce, people[1], provider, 'Transient', 'soft'],
      [EVENT.bounce, people[0], provider, 'Permanent', 'hard'],
    ]);
    const suppressions = await q<{ email: string; reason: string }>('SELECT email, reason FROM suppressions WHERE project_id = $1 ORDER BY reason', [
      t.projectId,
    ]);
    expect(suppressions).toEqual([
      { email: people[0], reason: 'bounce' },
      { email: people[3], reason: 'complaint' },
    ]);
    const [annoyed] = await q<{ unsubscribed_at: Date | null }>('SELECT unsubscribed_at FROM contacts WHERE project_id = $1 AND email = $2', [
      t.projectId,
      people[3],
    ]);
    expect(annoyed.unsubscribed_at).not.toBeNull();
    // The blocklist bounce raised the sending domain's block notification.
    const log = (await h.call('GET', '/api/joblog/joblog', { key: t.apiKey })).body.data as Array<{ job_name: string; start_details: Record<string, unknown> }>;
    expect(log.filter((e) => e.job_name === 'JOB_BLOCK_ALERT').map((e) => e.start_details)).toEqual([
      expect.objectContaining({ domain: 'shop.example', blocks: 1, sends: 4 }),
    ]);
    // The reports count the same bounces and complaint (from the raw events, as they arrived)…
    const quick = (await h.call('GET', '/api/reporting/quickstats', { key: t.apiKey })).body.data as Array<{ name: string; num: number }>;
    expect(Object.fromEntries(quick.filter((r) => r.name === EVENT.bounce || r.name === EVENT.complaint).map((r) => [r.name, r.num]))).toEqual({
      [EVENT.bounce]: 3,
      [EVENT.complaint]: 1,
    });
    // …the customer's webhook gets one signed email.bounced per bounce and one email.complained…
    const mine = () => receiver.requests.filter((r) => r.body && JSON.parse(r.body).data?.email?.endsWith(`-${provider}@receiver.example`));
    const until2 = Date.now() + 20_000;
    while (mine().length < 4 && Date.now() < until2) await new Promise((r) => setTimeout(r, 100));
    const delivered = mine().map((r) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { type: string; data: { email: string } });
    expect(delivered.map((d) => [d.type, d.data.email]).sort()).toEqual(
      [
        ['email.bounced', people[0]],
        ['email.bounced', people[1]],
        ['email.bounced', people[2]],
        ['email.complained', people[3]],
      ].sort(),
    );
    // …and the circuit-breaker's rates count the hard bounce and the complaint.
    const status = (await h.call('GET', '/api/scheduler/sending_status', { key: t.apiKey })).body;
    expect(status.bounce_rate).toBeCloseTo(1 / 4, 5);
    expect(status.complaint_rate).toBeCloseTo(1 / 4, 5);
  });

  it('answers 401 to forged, stale and replayed requests, and they change nothing', async () => {
    const before = await feedbackCount(t.projectId);
    const again: Case = { ...cases[1] };
    // Forged: signed with another secret (SendGrid: a body altered after signing).
    const wrong: Record<FeedbackProvider, string> = {
      ...SECRETS,
      postmark: 'hook-user:guessed',
      mailgun: 'key-guessed',
      brevo: 'guessed-token',
      resend: `whsec_${randomBytes(24).toString('base64')}`,
    };
    const forged = signed(provider, [again], wrong[provider])[0];
    if (provider === 'sendgrid') forged.body = forged.body.replace('Mailbox full', 'Mailbox FULL');
    expect((await post(provider, key, forged)).statusCode).toBe(401);
    // No proof at all.
    const bare = signed(provider, [again], SECRETS[provider])[0];
    const stripped = { body: bare.body, headers: { 'content-type': 'application/json' } };
    if (provider === 'mailgun') stripped.body = JSON.stringify({ 'event-data': JSON.parse(bare.body)['event-data'] });
    expect((await post(provider, key, stripped)).statusCode).toBe(401);
    if (provider === 'mailgun' || provider === 'sendgrid' || provider === 'resend') {
      // Stale: signed ten minutes ago.
      const stale = signed(provider, [again], SECRETS[provider], Math.floor(Date.now() / 1000) - 600)[0];
      expect((await post(provider, key, stale)).statusCode).toBe(401);
    }
    // Replayed: a genuine request, sent twice (Postmark and Brevo sign nothing: the same body is the copy).
    const genuine = signed(provider, [{ ...cases[1] }], SECRETS[provider])[0];
    const first = await post(provider, key, genuine);
    expect(first.statusCode, `${provider}: ${first.body}`).toBe(200);
    const replay = await post(provider, key, genuine);
    expect(replay.statusCode).toBe(401);
    expect(replay.json().errors[0]).toMatch(/replay/);
    // The genuine repeat of a bounce already recorded for that email changes nothing either.
    expect(await feedbackCount(t.projectId)).toBe(before);
    // Another project's key with this project's proof: 401 (the other project has no such provider set up).
    const other = await h.tenant({ activated: true });
    const [{ integration_key: otherKey }] = await q<{ integration_key: string }>('SELECT integration_key FROM projects WHERE id = $1', [other.projectId]);
    expect((await post(provider, otherKey, signed(provider, [again], SECRETS[provider])[0])).statusCode).toBe(401);
  });
});
