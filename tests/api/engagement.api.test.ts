/**
 * Machine opens and bot clicks end to end: real emails through a real SMTP sink,
 * their pixels, links and honeypot requested the way Apple's proxy, a scanner, a person and the console's own viewer
 * request them; each recorded event carries its verdict, and every report's human and total counts equal a count over
 * the raw events. Time since delivery is set by moving the outbox row's sent_at back (an hour later, in effect).
 * Runs on PGlite and PostgreSQL (API_DB).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseIpRanges } from '../../src/domain/engagement.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import { EVENT } from '../../src/domain/events.ts';
import { displayToTree, type Display } from '../../src/domain/workflowGraph.ts';

let h: Harness;
let t: Tenant;
let personaId: string;
let templateId: string;

const APPLE_RANGES = '17.58.0.0/16,US,US-CA,Cupertino,\n172.224.226.0/27,GB,GB-EN,London,\n';
const DESKTOP = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const HTML = `<html><body><p>Hi {{user.first_name}}</p>
<a href="https://shop.example.com/a">A</a> <a href="https://shop.example.com/b">B</a> <a href="https://blog.example.com/c">C</a>
<a href="{{unsubscribe_link}}">Unsubscribe</a></body></html>`;

async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** send delivers one blast to new contacts and returns, per address, the paths of its pixel, links and honeypot. */
async function send(emails: string[]) {
  const users = (await h.call('POST', '/api/user/users', { key: t.apiKey, body: { users: emails.map((email) => ({ email, first_name: 'F' })) } })).body
    .data as Array<{ id: string; email: string }>;
  const id = randomUUID();
  const res = await h.call('POST', '/api/scheduler/scheduler', {
    key: t.apiKey,
    body: {
      id,
      name: `B ${id.slice(0, 6)}`,
      template_id: templateId,
      sender_persona_id: personaId,
      to_user_ids: users.map((u) => u.id),
      send_at: wallClockUtc(-1),
      timezone: 'UTC',
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await until(async () => (await h.sink.parsed()).filter((m) => emails.some((e) => m.envelopeTo.includes(e))).length === emails.length);
  await until(async () => {
    const rows = await h.runtime.database.query<{ n: number }>("SELECT count(*)::int AS n FROM outbox WHERE blast_id = $1 AND status = 'sent'", [id]);
    return rows[0].n === emails.length;
  });
  const out = new Map<string, { contactId: string; pixel: string; links: string[]; honeypot: string }>();
  for (const u of users) {
    const [mail] = (await h.sink.parsed()).filter((m) => m.envelopeTo.includes(u.email));
    const html = String(mail.html);
    const path = (m: string) => new URL(m.replace(/&amp;/g, '&')).pathname;
    out.set(u.email, {
      contactId: u.id,
      pixel: path(/<img src="([^"]+\/t\/o\/[^"]+)"/.exec(html)![1]),
      links: [...html.matchAll(/href="([^"]+\/t\/c\/[^"]+)"/g)].map((m) => path(m[1])),
      honeypot: path(/href="([^"]+\/t\/h\/[^"]+)"/.exec(html)![1]),
    });
  }
  return out;
}

/** later moves an email's delivery `ms` into the past, as if the request came that much later. */
async function later(email: string, ms = 3_600_000) {
  await h.runtime.database.query(`UPDATE outbox SET sent_at = sent_at - ($3 || ' milliseconds')::interval WHERE project_id = $1 AND email = $2`, [
    t.projectId,
    email,
    String(ms),
  ]);
}

const get = (url: string, headers: Record<string, string>, remoteAddress = '203.0.113.9') => h.app.inject({ method: 'GET', url, headers, remoteAddress });

async function eventsOf(email: string, name: string) {
  return h.runtime.database.query<{ id: string; json: Record<string, unknown> }>(
    'SELECT id, json FROM events WHERE project_id = $1 AND name = $2 AND email = $3 ORDER BY emitted_at, id',
    [t.projectId, name, email],
  );
}

beforeAll(async () => {
  h = await startHarness({ workers: true, config: { appleProxyRanges: parseIpRanges(APPLE_RANGES).ranges } });
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
    body: { templates: [{ name: 'Three links', subject: 'Hello', type: 'TEMPLATE_MARKETING', html_body: HTML }] },
  });
  templateId = tpl.body.data[0].id;
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe(`machine opens and bot clicks (${API_DB})`, () => {
  let mails: Awaited<ReturnType<typeof send>>;

  it('an Apple-proxy open right after delivery is a machine’s, from Apple’s ranges at any time; a desktop client’s later open is a person’s', async () => {
    mails = await send(['ann@people.example.com', 'bob@people.example.com', 'cat@people.example.com', 'dan@people.example.com']);
    const ann = mails.get('ann@people.example.com')!;
    expect((await get(ann.pixel, { 'user-agent': 'Mozilla/5.0' })).statusCode).toBe(200);
    await later('ann@people.example.com');
    expect((await get(ann.pixel, { 'user-agent': 'Mozilla/5.0' }, '172.224.226.12')).statusCode).toBe(200);
    expect((await get(ann.pixel, { 'user-agent': DESKTOP })).statusCode).toBe(200);
    expect((await eventsOf('ann@people.example.com', EVENT.open)).map((e) => [e.json.machine, e.json.machine_reason])).toEqual([
      [true, 'apple_mpp'],
      [true, 'apple_mpp'],
      [false, null],
    ]);
  });

  it('a scanner following every link within a second is a bot for each click, the first too; the honeypot click is a bot’s', async () => {
    const bob = mails.get('bob@people.example.com')!;
    expect(bob.links).toHaveLength(3);
    await later('bob@people.example.com'); // not "on delivery": the burst alone must tell
    // All at once, as scanners do: each request sees the others only after its own insert.
    const answers = await Promise.all(bob.links.map((l) => get(l, { 'user-agent': CHROME })));
    expect(answers.map((r) => r.statusCode)).toEqual([302, 302, 302]);
    const clicks = await eventsOf('bob@people.example.com', EVENT.click);
    expect(clicks.map((c) => [c.json.bot, c.json.bot_reason])).toEqual(Array(3).fill([true, 'all_links_at_once']));
    const honeypot = await get(bob.honeypot, { 'user-agent': CHROME });
    expect(honeypot.statusCode).toBe(204);
    const after = await eventsOf('bob@people.example.com', EVENT.click);
    expect(after).toHaveLength(4);
    expect(after[3].json).toMatchObject({ bot: true, bot_reason: 'honeypot', honeypot: true });
    expect(after[3].json.link).toBeUndefined();
  });

  it('a person’s click a while after delivery is a person’s; a click within seconds of delivery is a bot’s', async () => {
    const cat = mails.get('cat@people.example.com')!;
    const dan = mails.get('dan@people.example.com')!;
    expect((await get(dan.links[1], { 'user-agent': CHROME })).statusCode).toBe(302); // just delivered
    await later('cat@people.example.com');
    expect((await get(cat.pixel, { 'user-agent': DESKTOP })).statusCode).toBe(200);
    expect((await get(cat.links[0], { 'user-agent': DESKTOP })).statusCode).toBe(302);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await get(cat.links[2], { 'user-agent': DESKTOP })).statusCode).toBe(302); // another link, seconds later
    expect((await eventsOf('cat@people.example.com', EVENT.click)).map((c) => c.json.bot)).toEqual([false, false]);
    expect((await eventsOf('dan@people.example.com', EVENT.click)).map((c) => c.json.bot_reason)).toEqual(['on_delivery']);
  });

  it('records nothing for a load from the console’s own viewer (its referrer), and answers it as usual', async () => {
    const dan = mails.get('dan@people.example.com')!;
    const before = (await eventsOf('dan@people.example.com', EVENT.open)).length;
    const res = await get(dan.pixel, { 'user-agent': CHROME, referer: 'http://localhost:8080/email/abc' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/gif');
    const click = await get(dan.links[0], { 'user-agent': CHROME, referer: 'http://localhost:8080/email/abc' });
    expect(click.statusCode).toBe(302);
    expect((await eventsOf('dan@people.example.com', EVENT.open)).length).toBe(before);
    expect((await eventsOf('dan@people.example.com', EVENT.click)).length).toBe(1);
    // A webmail on another site is a reader, not the console.
    await later('dan@people.example.com');
    expect((await get(dan.pixel, { 'user-agent': CHROME, referer: 'https://mail.example.net/inbox' })).statusCode).toBe(200);
    expect((await eventsOf('dan@people.example.com', EVENT.open)).map((e) => e.json.machine)).toEqual([false]);
  });

  it('every report’s human and total counts equal a count over the raw events; filters count people unless include_machine', async () => {
    const raw = await h.runtime.database.query<{ name: string; email: string; json: Record<string, unknown> }>(
      `SELECT name, email, json FROM events WHERE project_id = $1 AND name IN ('${EVENT.open}', '${EVENT.click}', '${EVENT.sendSuccess}')`,
      [t.projectId],
    );
    const person = (e: { json: Record<string, unknown> }) => e.json.machine !== true && e.json.bot !== true;
    const key = (e: { json: Record<string, unknown> }) => String(e.json.message_id);
    const count = (name: string) => {
      const of = raw.filter((e) => e.name === name);
      const people = of.filter(person);
      return { name, num: of.length, num_unique: new Set(of.map(key)).size, num_human: people.length, num_unique_human: new Set(people.map(key)).size };
    };
    const quick = (await h.call('GET', '/api/reporting/quickstats', { key: t.apiKey })).body.data as Array<{ name: string }>;
    for (const name of [EVENT.open, EVENT.click, EVENT.sendSuccess])
      expect(
        quick.find((r) => r.name === name),
        name,
      ).toEqual(count(name));
    // The numbers are not vacuous: both kinds are there.
    expect(count(EVENT.open)).toMatchObject({ num: 5, num_human: 3 });
    expect(count(EVENT.click)).toMatchObject({ num: 7, num_human: 2 });

    const links = (await h.call('GET', '/api/reporting/mostclickedlinks', { key: t.apiKey })).body.data as Array<Record<string, unknown>>;
    for (const row of links) {
      const of = raw.filter((e) => e.name === EVENT.click && e.json.link === row.link_url);
      expect(row, String(row.link_url)).toEqual({
        link_url: row.link_url,
        num_clicks: of.length,
        num_unique_clicks: new Set(of.map(key)).size,
        num_human_clicks: of.filter(person).length,
        num_unique_human_clicks: new Set(of.filter(person).map(key)).size,
      });
    }
    // The recent lists say who made each open and click.
    const recent = (await h.call('GET', '/api/reporting/recentlyopenedemails', { key: t.apiKey, query: { limit: 100 } })).body.data as Array<{
      email: string;
      machine: boolean;
      machine_reason: string | null;
    }>;
    expect(recent.filter((r) => r.email === 'ann@people.example.com').map((r) => [r.machine, r.machine_reason])).toEqual([
      [false, null],
      [true, 'apple_mpp'],
      [true, 'apple_mpp'],
    ]);
    const recentClicks = (await h.call('GET', '/api/reporting/recentlyclickedlinks', { key: t.apiKey, query: { limit: 100 } })).body.data as Array<{
      email: string;
      bot: boolean;
      bot_reason: string | null;
    }>;
    expect(recentClicks.filter((r) => r.email === 'cat@people.example.com').map((r) => [r.bot, r.bot_reason])).toEqual([
      [false, null],
      [false, null],
    ]);
    const days = (await h.call('GET', '/api/reporting/sendslast31days', { key: t.apiKey })).body.data as Array<Record<string, number>>;
    expect(days.reduce((s, d) => s + d.opens, 0)).toBe(count(EVENT.open).num);
    expect(days.reduce((s, d) => s + d.human_opens, 0)).toBe(count(EVENT.open).num_human);
    expect(days.reduce((s, d) => s + d.human_clicks, 0)).toBe(count(EVENT.click).num_human);

    // Contacts: the filters pick those with a person's open (click), or with any when include_machine is true.
    const filter = async (attribute: string, include_machine?: boolean, keys: string[] = []) => {
      const res = await h.call('POST', '/api/segment/segments/filter_users', {
        key: t.apiKey,
        body: {
          user_filters: [{ attribute, operator: 'greater_than', values: [...keys, 0], ...(include_machine === undefined ? {} : { include_machine }) }],
          limit: 100,
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return (res.body.users as Array<{ email: string }>).map((u) => u.email).sort();
    };
    const peopleWho = (name: string, all = false) => [...new Set(raw.filter((e) => e.name === name && (all || person(e))).map((e) => e.email))].sort();
    expect(await filter('num_opens')).toEqual(peopleWho(EVENT.open));
    expect(await filter('num_opens', true)).toEqual(peopleWho(EVENT.open, true));
    expect(await filter('num_clicks')).toEqual(['cat@people.example.com']);
    expect(await filter('num_clicks', true)).toEqual(peopleWho(EVENT.click, true));
    // Per template: counted from the events themselves, with the same rule.
    expect(await filter('num_clicks_with_template', undefined, [templateId])).toEqual(['cat@people.example.com']);
    expect(await filter('num_opens_with_template', true, [templateId])).toEqual(peopleWho(EVENT.open, true));
  });
});

describe(`workflow triggers on opens and clicks count people (${API_DB})`, () => {
  /** trigger saves a workflow entered by `eventName` (people only unless includeMachine) and waits for its job; answers its id. */
  async function trigger(eventName: string, includeMachine: boolean): Promise<string> {
    const id = randomUUID();
    const display: Display = {
      nodes: [
        { id: 't', type: 'event', position: { x: 0, y: 0 }, properties: { eventName, ...(includeMachine ? { includeMachine: true } : {}) } },
        { id: 'u', type: 'update_user', position: { x: 0, y: 100 }, properties: { jsonToUpdate: { entered: 'yes' } } },
      ],
      links: [{ id: 'l', from: { nodeId: 't', portId: 'output' }, to: { nodeId: 'u', portId: 'input' } }],
    };
    const tree = displayToTree(display);
    expect(tree.errors).toEqual([]);
    expect(tree.tree!.settings.include_machine).toBe(includeMachine ? true : undefined);
    const res = await h.call('POST', '/api/workflowwrapper/workflows', {
      key: t.apiKey,
      body: { id, name: `${eventName} ${includeMachine}`, display, tree: tree.tree },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await until(async () => {
      const log = (await h.call('GET', '/api/joblog/joblog', { key: t.apiKey })).body.data as Array<{ id: string; ended_at: string | null }>;
      return !!log.find((j) => j.id === res.body.data.job_log_entry_id)?.ended_at;
    });
    return id;
  }
  /** Who completed a run of the workflow (its contact's address), and who was excluded. */
  async function runs(workflowId: string) {
    const rows = await h.runtime.database.query<{ email: string; status: string }>(
      'SELECT email, status FROM workflow_runs WHERE workflow_id = $1 ORDER BY email',
      [workflowId],
    );
    return {
      completed: rows.filter((r) => r.status === 'completed').map((r) => r.email),
      excluded: rows.filter((r) => r.status === 'excluded').map((r) => r.email),
      other: rows.filter((r) => r.status !== 'completed' && r.status !== 'excluded').map((r) => r.status),
    };
  }

  it('a machine open or a link scanner enters only workflows that include machines; a person enters both', async () => {
    const opens = { people: await trigger(EVENT.open, false), all: await trigger(EVENT.open, true) };
    const clicks = { people: await trigger(EVENT.click, false), all: await trigger(EVENT.click, true) };
    const m = await send(['mpp@flow.example.com', 'reader@flow.example.com', 'scanned@flow.example.com', 'clicker@flow.example.com']);
    // An Apple Mail Privacy Protection prefetch right after delivery: a machine's open.
    expect((await get(m.get('mpp@flow.example.com')!.pixel, { 'user-agent': 'Mozilla/5.0' })).statusCode).toBe(200);
    // A person reading a while later in a desktop client.
    await later('reader@flow.example.com');
    expect((await get(m.get('reader@flow.example.com')!.pixel, { 'user-agent': DESKTOP })).statusCode).toBe(200);
    // A link scanner following two links at once, a while after delivery: each click looks like a person's when it is
    // recorded, and is judged a bot's when the other arrives.
    await later('scanned@flow.example.com');
    const scanned = m.get('scanned@flow.example.com')!;
    expect((await Promise.all(scanned.links.slice(0, 2).map((l) => get(l, { 'user-agent': CHROME })))).map((r) => r.statusCode)).toEqual([302, 302]);
    // A person's click.
    await later('clicker@flow.example.com');
    expect((await get(m.get('clicker@flow.example.com')!.links[0], { 'user-agent': CHROME })).statusCode).toBe(302);

    // Every run that started has ended (a click trigger counting people starts 2 s late: core/workflows/sql).
    const settled = async (id: string, n: number) => {
      const r = await runs(id);
      return r.completed.length + r.excluded.length >= n && r.other.length === 0;
    };
    await until(async () => (await settled(clicks.all, 3)) && (await settled(opens.all, 2)), 30_000);
    await until(async () => await settled(clicks.people, 3), 30_000);
    await until(async () => await settled(opens.people, 1), 30_000);
    expect(await runs(opens.people)).toEqual({ completed: ['reader@flow.example.com'], excluded: [], other: [] });
    expect(await runs(opens.all)).toEqual({ completed: ['mpp@flow.example.com', 'reader@flow.example.com'], excluded: [], other: [] });
    // The scanner's clicks entered (they looked like a person's) and were excluded at the trigger once judged a bot's.
    const peopleClicks = await runs(clicks.people);
    expect(peopleClicks.completed).toEqual(['clicker@flow.example.com']);
    expect(peopleClicks.other).toEqual([]);
    expect(peopleClicks.excluded).toEqual(['scanned@flow.example.com', 'scanned@flow.example.com']);
    expect(await runs(clicks.all)).toEqual({
      completed: ['clicker@flow.example.com', 'scanned@flow.example.com', 'scanned@flow.example.com'],
      excluded: [],
      other: [],
    });
    // Nothing of the excluded runs happened: the people-only workflow's node ran for the person alone.
    const entered = await h.runtime.database.query<{ email: string }>(
      "SELECT email FROM contacts WHERE project_id = $1 AND json->>'entered' = 'yes' AND email LIKE '%@flow.example.com' ORDER BY email",
      [t.projectId],
    );
    expect(entered.map((c) => c.email)).toEqual(['clicker@flow.example.com', 'mpp@flow.example.com', 'reader@flow.example.com', 'scanned@flow.example.com']);
  }, 120_000);
});
