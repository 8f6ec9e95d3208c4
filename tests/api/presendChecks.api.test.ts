/**
 * Pre-send checks (POST {template}/templates/{id}/check; docs/architecture.md §12) on a real database, a real HTTP
 * server for the links (it logs every request) and a real spamd: the size as sent against Gmail's 102 KB clipping,
 * made by the tracking rewrite; dead, slow and over-redirected links flagged, live ones not; unsubscribe, tracking
 * and variable links never requested; private addresses reported without a connection unless WEBHOOK_ALLOW_PRIVATE
 * allows them; a marketing template without a usable {{unsubscribe_link}} an error that also stops saving a blast;
 * SpamAssassin's score; another project's template a 404.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/config.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { SPAMD, startSpamd, type TestSpamd } from '../helpers/spamd.ts';
import { freePort } from '../helpers/processes.ts';
import { startHarness, type Harness, type OpResult, type Tenant } from './harness.ts';

type Check = OpResult<'checkTemplate'>['data'];

/** The links' server: /live 200, /dead 404, /slow never answers, /hop/N redirects N times before /live, /head405 refuses HEAD. */
const requested: string[] = [];
const server = http.createServer((req, res) => {
  requested.push(`${req.method} ${req.url}`);
  const url = req.url ?? '/';
  const hop = /^\/hop\/(\d+)$/.exec(url);
  if (url === '/slow') return; // never answers
  if (hop) {
    const n = Number(hop[1]);
    res.writeHead(302, { location: n > 1 ? `/hop/${n - 1}` : '/live' });
    return res.end();
  }
  if (url === '/head405' && req.method === 'HEAD') {
    res.writeHead(405);
    return res.end();
  }
  if (url === '/live' || url === '/head405' || url.startsWith('/big')) {
    res.writeHead(200, { 'content-type': 'text/html' });
    return res.end('<p>ok</p>');
  }
  res.writeHead(404);
  res.end('not found');
});
let origin = '';
let h: Harness;
let guarded: Harness;
let spamd: TestSpamd | undefined;
let a: Tenant;
let b: Tenant;
let personaId: string;
let contactId: string;

async function api<T = { data: Array<{ id: string }> }>(h0: Harness, t: Tenant, url: string, body: unknown): Promise<T> {
  const res = await h0.call('POST', url, { key: t.apiKey, body });
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as T;
}

async function template(
  h0: Harness,
  t: Tenant,
  html: string,
  type: 'TEMPLATE_MARKETING' | 'TEMPLATE_TRANSACTIONAL' = 'TEMPLATE_MARKETING',
  subject = 'News',
): Promise<string> {
  return (await api(h0, t, '/api/template/templates', { templates: [{ name: `T ${randomUUID().slice(0, 6)}`, subject, type, html_body: html }] })).data[0].id;
}

async function check(h0: Harness, t: Tenant, id: string): Promise<Check> {
  const res = await h0.op('checkTemplate', { key: t.apiKey, path: { id } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

const codes = (c: Check, url?: string) => c.findings.filter((f) => url === undefined || f.url === url).map((f) => f.code);

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const closedPort = await freePort();
  // This install's own links point at the links' server, so a request for one would be logged.
  h = await startHarness({
    config: { publicUrl: origin, webhooks: { ...loadConfig({}).webhooks, allowPrivate: true }, spamdUrl: { host: '127.0.0.1', port: closedPort } },
  });
  spamd = await startSpamd();
  guarded = await startHarness({ config: { publicUrl: origin, ...(spamd ? { spamdUrl: { host: spamd.host, port: spamd.port } } : {}) } });
  a = await h.tenant({ activated: true });
  b = await h.tenant({ activated: true });
  personaId = (await api(h, a, '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'news@checks.example.com', first_name: 'News' }] }))
    .data[0].id;
  await h.sink.waitFor(() => h.sink.messages.length >= 1);
  await h.confirmPersonas();
  contactId = (await api(h, a, '/api/user/users', { users: [{ email: 'ann@example.com', first_name: 'Ann' }] })).data[0].id;
}, 120_000);

afterAll(async () => {
  await h?.close();
  await guarded?.close();
  await spamd?.close();
  await new Promise((resolve) => server.close(resolve));
});

describe('size as sent', () => {
  const page = (n: number) =>
    `<html><body><div class="preheader" style="display:none">Our picks</div><p>Picks</p>${Array.from(
      { length: n },
      (_, i) => `<a href="${origin}/big">Item ${i}</a>`,
    ).join('\n')}<a href="{{unsubscribe_link}}">Unsubscribe</a></body></html>`;

  it('an email over 102 KB once its links are tracked is flagged; one of 95 KB is not', async () => {
    const over = page(465);
    const under = page(400);
    // The template itself is far under the limit: the tracking rewrite is what makes the difference.
    expect(over.length).toBeLessThan(40_000);
    const big = await check(h, a, await template(h, a, over));
    expect(big.size_bytes).toBeGreaterThan(102_000);
    expect(big.size_bytes).toBeLessThan(115_000);
    const size = big.findings.find((f) => f.code === 'size')!;
    expect(size.severity).toBe('warning');
    expect(size.message).toMatch(/Gmail clips/);

    const fine = await check(h, a, await template(h, a, under));
    expect(fine.size_bytes).toBeGreaterThan(90_000);
    expect(fine.size_bytes).toBeLessThan(102_000);
    expect(fine.findings.find((f) => f.code === 'size')!.severity).toBe('info');
    // 400 identical links are one request (HEAD) per check.
    expect(requested.filter((r) => r.endsWith(' /big')).length).toBeLessThanOrEqual(2);
  });
});

describe('links', () => {
  it('dead, slow and over-redirected links are warnings; live ones, 5 redirects and a HEAD refusal are fine; unsubscribe, own and variable links are never requested', async () => {
    const html = `<html><body>
      <a href="${origin}/live">live</a> <a href="${origin}/dead">dead</a> <a href="${origin}/slow">slow</a>
      <a href="${origin}/hop/6">six hops</a> <a href="${origin}/hop/5">five hops</a> <a href="${origin}/head405">head refused</a>
      <a href="{{unsubscribe_link}}">Unsubscribe</a> <a href="${origin}/unsubscribe?list=1">leave</a>
      <a href="${origin}/u/sometoken">prefs</a> <a href="${origin}/t/c/sometoken">tracked</a> <a href="${origin}/v/x">v</a> <a href="${origin}/s/c/x">s</a>
      <a href="${origin}/var?who={{user.email}}">personal</a> <a href="mailto:help@example.com">mail</a>
      <img src="${origin}/logo.png"> <img src="${origin}/spacer.gif" alt="">
    </body></html>`;
    const started = Date.now();
    const c = await check(h, a, await template(h, a, html));
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(c.findings.find((f) => f.url === `${origin}/dead`)).toMatchObject({ code: 'link_dead', severity: 'warning' });
    expect(c.findings.find((f) => f.url === `${origin}/dead`)!.message).toMatch(/404/);
    expect(c.findings.find((f) => f.url === `${origin}/slow`)).toMatchObject({ code: 'link_slow', severity: 'warning' });
    expect(c.findings.find((f) => f.url === `${origin}/hop/6`)).toMatchObject({ code: 'link_redirects', severity: 'warning' });
    expect(codes(c, `${origin}/live`)).toEqual([]);
    expect(codes(c, `${origin}/hop/5`)).toEqual([]);
    expect(codes(c, `${origin}/head405`)).toEqual([]);
    expect(c.findings.find((f) => f.url === `${origin}/var?who={{user.email}}`)).toMatchObject({ code: 'link_variable', severity: 'info' });
    // Images: the one without alt is a warning; alt="" (decorative) is fine.
    expect(c.findings.filter((f) => f.code === 'image_alt').map((f) => f.url)).toEqual([`${origin}/logo.png`]);
    expect(requested).toContain('HEAD /head405');
    expect(requested).toContain('GET /head405');
    // Each hop was requested on its own, up to the limit.
    expect(requested.filter((r) => /^HEAD \/hop\//.test(r)).length).toBeGreaterThanOrEqual(11);
    const never = requested.filter((r) => /^\w+ \/(u|t|v|s|var|unsubscribe)(\/|\?|$)/.test(r));
    expect(never).toEqual([]);
    // No text part given: the sender makes one from the HTML.
    expect(c.findings.find((f) => f.code === 'text_part')).toMatchObject({ severity: 'info' });
    // SPAMD_URL points at a closed port here: an info finding, never a failure.
    expect(c.findings.find((f) => f.code === 'spam_unavailable')).toMatchObject({ severity: 'info' });
    expect(c.spam).toBeUndefined();
  });

  it('private, loopback and link-local addresses are reported without a connection when private addresses are not allowed', async () => {
    const t = await guarded.tenant({ activated: true });
    const html = `<p><a href="${origin}/private-probe">loopback</a> <a href="http://169.254.169.254/latest/meta-data/">metadata</a>
      <a href="http://10.255.255.1/x">ten</a> <a href="http://localhost:${new URL(origin).port}/private-by-name">by name</a></p>`;
    const started = Date.now();
    const c = await check(guarded, t, await template(guarded, t, html, 'TEMPLATE_TRANSACTIONAL'));
    // 10.255.255.1 would take the whole 5 s time-out if it were tried.
    expect(Date.now() - started).toBeLessThan(4000);
    for (const url of [
      `${origin}/private-probe`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.255.255.1/x',
      `http://localhost:${new URL(origin).port}/private-by-name`,
    ]) {
      const f = c.findings.find((x) => x.url === url);
      expect(f, url).toMatchObject({ code: 'link_private', severity: 'warning' });
      expect(f!.message).toMatch(/not checked: private address/);
    }
    expect(requested.filter((r) => r.includes('private'))).toEqual([]);
  });
});

describe('the unsubscribe link', () => {
  it('a marketing template whose {{unsubscribe_link}} is only in a comment, or missing, is an error, and an enabled blast of it is refused naming the field', async () => {
    const hidden = await template(h, a, '<p>Hello</p><!-- <a href="{{unsubscribe_link}}">Unsubscribe</a> -->');
    const c = await check(h, a, hidden);
    expect(c.findings[0]).toMatchObject({ code: 'unsubscribe_missing', severity: 'error', field: 'html_body' });

    // Saved before the rule, or written to the database directly: no variable at all.
    const bare = await template(h, a, '<p>Hello <a href="{{unsubscribe_link}}">u</a></p>');
    await h.runtime.database.query(`UPDATE templates SET html_body = '<p>Hello</p>' WHERE id = $1`, [bare]);
    expect((await check(h, a, bare)).findings[0]).toMatchObject({ code: 'unsubscribe_missing', severity: 'error' });

    const blast = (body: Record<string, unknown>) =>
      h.op('saveEmailBlast', {
        key: a.apiKey,
        body: {
          id: randomUUID(),
          name: 'Launch',
          sender_persona_id: personaId,
          to_user_ids: [contactId],
          send_at: wallClockUtc(60),
          timezone: 'UTC',
          ...body,
        } as never,
      });
    const one = await blast({ template_id: hidden });
    expect(one.status).toBe(400);
    expect(one.body.errors?.join('\n')).toMatch(/^template_id: template 'T .*': This marketing email has no unsubscribe link/m);
    const good = await template(h, a, '<p>Hello <a href="{{unsubscribe_link}}">Unsubscribe</a></p>');
    const ab = await blast({
      template_ids_with_weights: [
        { template_id: good, weight: 50 },
        { template_id: bare, weight: 50 },
      ],
    });
    expect(ab.status).toBe(400);
    expect(ab.body.errors?.join('\n')).toMatch(/^template_ids_with_weights: template/m);
    expect((await blast({ template_id: good })).status).toBe(200);
    // A transactional template needs no unsubscribe link.
    const receipt = await template(h, a, '<p>Your receipt</p>', 'TEMPLATE_TRANSACTIONAL');
    expect(codes(await check(h, a, receipt))).not.toContain('unsubscribe_missing');
  });
});

describe('subject and preheader', () => {
  it('a long subject and a missing preheader are warnings', async () => {
    const id = await template(
      h,
      a,
      '<p>Hi <a href="{{unsubscribe_link}}">u</a></p>',
      'TEMPLATE_MARKETING',
      `Hello {{user.first_name}}, ${'a very long subject '.repeat(4)}`,
    );
    const c = await check(h, a, id);
    expect(c.findings.find((f) => f.code === 'subject_long')).toMatchObject({ severity: 'warning', field: 'subject' });
    expect(c.findings.find((f) => f.code === 'preheader_empty')).toMatchObject({ severity: 'warning' });
  });
});

describe('spam score', () => {
  it.skipIf(!existsSync(SPAMD))(
    `SpamAssassin scores the email as sent, with its top rules${existsSync(SPAMD) ? '' : ` (skipped: ${SPAMD} is not installed; bash scripts/ensure-test-tools.sh installs it)`}`,
    async () => {
      expect(spamd, `${SPAMD} is installed but did not start`).toBeDefined();
      const t = await guarded.tenant({ activated: true });
      const id = await template(guarded, t, '<p>BUY VIAGRA NOW!!! 100% FREE, act now, click here to claim your prize <a href="{{unsubscribe_link}}">u</a></p>');
      const c = await check(guarded, t, id);
      expect(c.spam).toBeDefined();
      expect(c.spam!.threshold).toBe(5);
      expect(c.spam!.rules.length).toBeGreaterThan(0);
      expect(c.spam!.rules.length).toBeLessThanOrEqual(5);
      const scores = c.spam!.rules.map((r) => r.score);
      expect(scores).toEqual([...scores].sort((x, y) => y - x));
      expect(c.spam!.rules.every((r) => /^[A-Z0-9_]+$/.test(r.name) && r.description.length > 0)).toBe(true);
      expect(c.findings.find((f) => f.code === 'spam_score')!.severity).toBe(c.spam!.score >= c.spam!.threshold ? 'warning' : 'info');
    },
  );
});

describe('scope', () => {
  it("another project's template is answered 404, like an unknown id", async () => {
    const mine = await template(h, a, '<p>Mine <a href="{{unsubscribe_link}}">u</a></p>');
    const theirs = await h.op('checkTemplate', { key: b.apiKey, path: { id: mine } });
    expect(theirs.status).toBe(404);
    expect(theirs.body.errors?.[0]).toMatch(/^id: no template/);
    expect((await h.op('checkTemplate', { key: a.apiKey, path: { id: randomUUID() } })).status).toBe(404);
    expect((await h.op('checkTemplate', { path: { id: mine } })).status).toBe(401);
  });
});
