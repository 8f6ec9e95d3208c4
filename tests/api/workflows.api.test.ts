/**
 * Workflows end to end on the API: saving and archiving as jobs with their job-log entries, the
 * validation errors naming the node, the engine running every node type against a real SMTP sink — the issue's
 * example (event 'signed_up' → delay 2 s → filter email contains 'a' → send, with {{event.*}} variables), metadata,
 * segments, unsubscribes, hand-offs between workflows with the hop guard, delay-until exclusion, contacts entering on
 * upsert and from a segment — each step recorded once; disabling stops new entries and archiving ends runs; another
 * tenant's events enter nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { API_DB, startHarness, type Harness, type Tenant } from './harness.ts';
import type { QueryFn } from '../../src/server/db/client.ts';
import { displayToTree, type Display, type DisplayNode, type NodeType } from '../../src/domain/workflowGraph.ts';
import { EVENT } from '../../src/domain/events.ts';

let h: Harness;
let t: Tenant;
let query: QueryFn;
let persona = '';
let template = '';

const node = (id: string, type: NodeType, properties: DisplayNode['properties'] = {}): DisplayNode => ({ id, type, position: { x: 0, y: 0 }, properties });
const link = (from: string, to: string, port = 'output') => ({
  id: `${from}-${to}-${port}`,
  from: { nodeId: from, portId: port },
  to: { nodeId: to, portId: 'input' },
});
const api = (method: string, url: string, body?: unknown, key = t.apiKey) => h.call(method, url, { key, body });

/** save saves a workflow through the job and waits for its JOB_CREATE_WORKFLOW entry to end; returns the entry. */
async function save(id: string, name: string, display: Display, key = t.apiKey) {
  const tree = displayToTree(display);
  expect(tree.errors).toEqual([]);
  const res = await api('POST', '/api/workflowwrapper/workflows', { id, name, display, tree: tree.tree }, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return waitForJob(res.body.data.job_log_entry_id, key);
}

async function waitForJob(id: string, key = t.apiKey) {
  for (let i = 0; i < 200; i++) {
    const entry = (await api('GET', '/api/joblog/joblog', undefined, key)).body.data.find((j: { id: string }) => j.id === id);
    if (entry?.ended_at) return entry;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${id} did not end`);
}

/** until polls `check` every 100 ms for up to `ms`. */
async function until(check: () => Promise<boolean>, ms = 30_000, what = 'condition') {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function contacts(users: Array<Record<string, unknown>>, key = t.apiKey) {
  const res = await api('POST', '/api/user/users', { users }, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Array<{ id: string; email: string }>;
}

const runsOf = (workflowId: string) =>
  query<{ id: string; contact_id: string; email: string; status: string; hops: number }>(
    'SELECT id, contact_id, email, status, hops FROM workflow_runs WHERE workflow_id = $1 ORDER BY created_at',
    [workflowId],
  );

beforeAll(async () => {
  h = await startHarness({ workers: true, config: { workflowPollMs: 200, reportCompactMs: 60_000 } });
  query = h.runtime.ctx.database.query.bind(h.runtime.ctx.database) as QueryFn;
  t = await h.tenant({ activated: true });
  const p = await api('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'flows@wf.example.com', first_name: 'Flow' }] });
  persona = p.body.data[0].id;
  await until(
    async () =>
      (await h.confirmPersonas()) > 0 ||
      (await query<{ v: boolean }>('SELECT verified_at IS NOT NULL AS v FROM sender_personas WHERE id = $1', [persona]))[0].v,
    10_000,
    'persona verification',
  );
  const tpl = await api('POST', '/api/template/templates', {
    templates: [
      {
        name: 'Welcome',
        subject: 'Welcome {{user.first_name}}',
        type: 'TEMPLATE_TRANSACTIONAL',
        html_body: '<p>Event {{event.name}} plan {{event.json.plan}} for {{user.email}}</p>',
      },
    ],
  });
  template = tpl.body.data[0].id;
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe(`workflows (${API_DB})`, () => {
  it("runs the issue's example: signed_up → delay 2 s → filter email contains a → send, only to matching contacts, no sooner than 2 s", async () => {
    const id = randomUUID();
    const entry = await save(id, 'Welcome drip', {
      nodes: [
        node('t', 'event', { eventName: 'signed_up' }),
        node('d', 'delay', { delayMS: 2000 }),
        node('f', 'splitter', { filters: [{ attribute: 'contact_email', operator: 'contains', values: ['a'] }] }),
        node('s', 'sender', { templateId: template, senderPersonaId: persona }),
      ],
      links: [link('t', 'd'), link('d', 'f'), link('f', 's', 'output1')],
    });
    expect(entry).toMatchObject({
      job_name: 'JOB_CREATE_WORKFLOW',
      success: true,
      start_details: { workflow_id: id, workflow_payload: { name: 'Welcome drip' } },
    });
    const list = await api('GET', '/api/workflowwrapper/workflows', undefined);
    expect(list.body.data.map((w: { id: string }) => w.id)).toContain(id);
    await contacts([
      { email: 'anna@test.io', first_name: 'Anna' },
      { email: 'carla@test.io', first_name: 'Carla' },
      { email: 'bob@test.io', first_name: 'Bob' },
    ]);
    const before = h.sink.messages.length;
    const posted = Date.now();
    const res = await api('POST', '/api/event/events', {
      events: ['anna@test.io', 'carla@test.io', 'bob@test.io'].map((email) => ({ name: 'signed_up', email, json: { plan: 'pro' } })),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await until(async () => (await runsOf(id)).every((r) => r.status === 'completed') && (await runsOf(id)).length === 3, 30_000, 'three runs to complete');
    await h.sink.waitFor(() => h.sink.messages.length >= before + 2, 20_000);
    await new Promise((r) => setTimeout(r, 1000));
    const mail = h.sink.messages.slice(before);
    expect(mail.map((m) => m.envelopeTo[0]).sort()).toEqual(['anna@test.io', 'carla@test.io']);
    const parsed = await simpleParser(mail.find((m) => m.envelopeTo[0] === 'anna@test.io')!.raw);
    expect(parsed.subject).toBe('Welcome Anna');
    expect(parsed.html).toContain('Event signed_up plan pro for anna@test.io');
    // The filter ran no sooner than 2 s after the event, for everyone; each node ran exactly once per contact.
    const steps = await query<{ email: string; node_id: string; status: string; outcome: string; executed_at: Date; due_at: Date }>(
      `SELECT r.email, s.node_id, s.status, s.outcome, s.executed_at, s.due_at FROM workflow_steps s JOIN workflow_runs r ON r.id = s.run_id WHERE s.workflow_id = $1 ORDER BY r.email, s.id`,
      [id],
    );
    const path = (email: string) => steps.filter((s) => s.email === email).map((s) => `${s.node_id}:${s.outcome}`);
    expect(path('anna@test.io')).toEqual([
      't:entered by event signed_up',
      expect.stringMatching(/^d:waits until \S+Z$/),
      'f:match',
      expect.stringMatching(/^s:queued email \d+$/),
    ]);
    expect(path('bob@test.io')).toEqual(['t:entered by event signed_up', expect.stringMatching(/^d:waits until \S+Z$/), 'f:no match']);
    // The delay says until when: the instant the filter after it was due.
    for (const email of ['anna@test.io', 'bob@test.io']) {
      const mine = steps.filter((s) => s.email === email);
      const delay = mine.find((s) => s.node_id === 'd')!;
      expect(Date.parse(delay.outcome.replace('waits until ', ''))).toBe(new Date(mine.find((s) => s.node_id === 'f')!.due_at).getTime());
      expect(Date.parse(delay.outcome.replace('waits until ', ''))).toBe(new Date(delay.due_at).getTime() + 2000);
    }
    for (const s of steps.filter((x) => x.node_id === 'f')) {
      expect(new Date(s.executed_at).getTime()).toBeGreaterThanOrEqual(posted + 2000 - 50);
      expect(new Date(s.due_at).getTime()).toBeGreaterThanOrEqual(posted + 2000 - 50);
    }
    const [sent] = await query<{ n: number; first: Date }>(
      `SELECT count(*)::int AS n, min(sent_at) AS first FROM outbox WHERE workflow_id = $1 AND status = 'sent'`,
      [id],
    );
    expect(sent.n).toBe(2);
    expect(new Date(sent.first).getTime()).toBeGreaterThanOrEqual(posted + 2000);
    // The events a workflow writes: started and completed per run, and its sends attributed to it.
    const [ev] = await query<{ started: number; completed: number; sends: number }>(
      `SELECT count(*) FILTER (WHERE name = '${EVENT.workflowStarted}')::int AS started, count(*) FILTER (WHERE name = '${EVENT.workflowCompleted}')::int AS completed,
              count(*) FILTER (WHERE name = '${EVENT.sendSuccess}')::int AS sends FROM events WHERE json->>'workflow_id' = $1`,
      [id],
    );
    expect(ev).toEqual({ started: 3, completed: 3, sends: 2 });
    // The path is visible from the workflow and from the contact.
    const runs = await api('GET', `/api/workflowwrapper/workflows/${id}/runs`, undefined);
    expect(runs.body.total).toBe(3);
    const anna = runs.body.data.find((r: { email: string }) => r.email === 'anna@test.io');
    expect(anna).toMatchObject({ status: 'completed', trigger_event: 'signed_up', workflow_name: 'Welcome drip' });
    expect(anna.steps.map((s: { node_type: string; status: string }) => `${s.node_type}:${s.status}`)).toEqual([
      'event:done',
      'delay:done',
      'splitter:done',
      'sender:done',
    ]);
    const byContact = await api('GET', '/api/workflowwrapper/runs', undefined).catch(() => undefined);
    expect(byContact?.status).toBe(400); // contact_id is required
    const mine = await h.call('GET', '/api/workflowwrapper/runs', { key: t.apiKey, query: { contact_id: anna.contact_id } });
    expect(mine.body.data.map((r: { workflow_id: string }) => r.workflow_id)).toEqual([id]);
  });

  it('refuses bad workflows with errors naming the node, at validate and in the save job', async () => {
    const bad = async (body: Record<string, unknown>, pattern: RegExp) => {
      const res = await api('POST', '/api/workflow/workflows/validate', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.join('\n')).toMatch(pattern);
    };
    const good = {
      nodes: [node('t', 'event', { eventName: 'x' }), node('s', 'sender', { templateId: template, senderPersonaId: persona })],
      links: [link('t', 's')],
    };
    expect((await api('POST', '/api/workflow/workflows/validate', { id: randomUUID(), name: 'Good', display: good })).body).toEqual({
      valid: true,
      errors: [],
    });
    await bad({ id: randomUUID(), name: ' ', display: good }, /^name: You must provide a workflow name$/);
    await bad(
      { id: randomUUID(), name: 'Two roots', display: { ...good, nodes: [...good.nodes, node('t2', 'user_upserted')] } },
      /only one trigger is allowed/,
    );
    await bad(
      { id: randomUUID(), name: 'Into trigger', display: { ...good, links: [...good.links, link('s', 't')] } },
      /nothing may link into the trigger Event trigger/,
    );
    const missing = randomUUID();
    await bad(
      {
        id: randomUUID(),
        name: 'Missing',
        display: {
          nodes: [node('t', 'event', { eventName: 'x' }), node('s', 'sender', { templateId: missing, senderPersonaId: persona })],
          links: [link('t', 's')],
        },
      },
      new RegExp(`node s: no template with id ${missing} in this project`),
    );
    await bad(
      { id: randomUUID(), name: 'No trigger', display: { nodes: [node('d', 'delay', { delayMS: 1000 })], links: [] } },
      /Please add a trigger node to the workflow/,
    );
    // The save itself answers at once; its job ends failed with the errors.
    const res = await api('POST', '/api/workflowwrapper/workflows', {
      id: randomUUID(),
      name: 'Bad',
      display: {
        nodes: [node('t', 'event', { eventName: 'x' }), node('s', 'sender', { templateId: missing, senderPersonaId: persona })],
        links: [link('t', 's')],
      },
    });
    expect(res.status).toBe(200);
    const entry = await waitForJob(res.body.data.job_log_entry_id);
    expect(entry.success).toBe(false);
    expect(entry.end_details.error).toMatch(/no template with id/);
    expect((await api('POST', '/api/workflowwrapper/workflows', { id: randomUUID(), name: '' })).body.errors).toEqual([
      'name: You must provide a workflow name',
    ]);
  });

  it('updates metadata, adds to a segment and unsubscribes every member of a segment entered by Run segment', async () => {
    const seg = (
      await api('POST', '/api/segment/segments', {
        segments: [
          { name: 'Entered', user_ids: [] },
          { name: 'Tagged', user_ids: [] },
        ],
      })
    ).body.data;
    const people = await contacts([{ email: 'm1@seg.io' }, { email: 'm2@seg.io' }, { email: 'm3@seg.io' }, { email: 'out@seg.io' }]);
    await api('POST', `/api/segment/segments/${seg[0].id}/users`, { user_ids: people.slice(0, 3).map((p) => p.id) });
    const id = randomUUID();
    expect(
      (
        await save(id, 'Tagger', {
          nodes: [
            node('r', 'root'),
            node('u', 'update_user', { jsonToUpdate: { tier: 'gold', score: 7 } }),
            node('g', 'segmenter', { segmentId: seg[1].id, segmentOperation: 'ADD' }),
            node('x', 'unsubscriber'),
          ],
          links: [link('r', 'u'), link('u', 'g'), link('g', 'x')],
        })
      ).success,
    ).toBe(true);
    const errors = async (body: Record<string, unknown>) => await api('POST', '/api/segmentwrapper/segments/send_to_workflow', body);
    expect((await errors({ segment_id: randomUUID(), workflow_id: id, root_node_id: 'r' })).status).toBe(404);
    const notRoot = await errors({ segment_id: seg[0].id, workflow_id: id, root_node_id: 'u' });
    expect(notRoot.status).toBe(400);
    expect(notRoot.body.errors[0]).toMatch(/^root_node_id: .*Please add a trigger node to the workflow/);
    const entered = await errors({ segment_id: seg[0].id, workflow_id: id, root_node_id: 'r' });
    expect(entered.body).toEqual({ data: { num_users: 3, workflow_id: id }, errors: [] });
    await until(async () => (await runsOf(id)).filter((r) => r.status === 'completed').length === 3, 30_000, 'tagger runs');
    const rows = await query<{ email: string; json: Record<string, unknown>; unsubscribed: boolean; tagged: boolean }>(
      `SELECT c.email, c.json, c.unsubscribed_at IS NOT NULL AS unsubscribed,
              EXISTS (SELECT 1 FROM segment_members m WHERE m.contact_id = c.id AND m.segment_id = $2) AS tagged
         FROM contacts c WHERE c.project_id = $1 AND c.email LIKE '%@seg.io' ORDER BY c.email`,
      [t.projectId, seg[1].id],
    );
    expect(rows).toEqual([
      { email: 'm1@seg.io', json: { tier: 'gold', score: 7 }, unsubscribed: true, tagged: true },
      { email: 'm2@seg.io', json: { tier: 'gold', score: 7 }, unsubscribed: true, tagged: true },
      { email: 'm3@seg.io', json: { tier: 'gold', score: 7 }, unsubscribed: true, tagged: true },
      { email: 'out@seg.io', json: {}, unsubscribed: false, tagged: false },
    ]);
    const [{ n }] = await query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE name = '${EVENT.unsubscribed}' AND json->>'workflow_id' = $1 AND json->>'via' = 'workflow'`,
      [id],
    );
    expect(n).toBe(3);
  });

  it('enters a contact created or updated through the API into a user_upserted workflow', async () => {
    const id = randomUUID();
    await save(id, 'On upsert', {
      nodes: [node('r', 'user_upserted'), node('s', 'sender', { templateId: template, senderPersonaId: persona })],
      links: [link('r', 's')],
    });
    const before = h.sink.messages.length;
    await contacts([{ email: 'newbie@up.io', first_name: 'New' }]);
    await h.sink.waitFor(() => h.sink.messages.slice(before).some((m) => m.envelopeTo[0] === 'newbie@up.io'), 20_000);
    const parsed = await simpleParser(h.sink.messages.slice(before).find((m) => m.envelopeTo[0] === 'newbie@up.io')!.raw);
    expect(parsed.html).toContain('Event  plan  for newbie@up.io'); // no event: its variables render blank
    // Updating the contact enters it again: a new run.
    await contacts([{ email: 'newbie@up.io', last_name: 'Comer' }]);
    await until(async () => (await runsOf(id)).length === 2, 10_000, 'second entry');
    await api('POST', `/api/workflowwrapper/workflows/${id}/disable`);
    await contacts([{ email: 'newbie@up.io', last_name: 'Again' }]);
    await new Promise((r) => setTimeout(r, 800));
    expect(await runsOf(id)).toHaveLength(2); // disabled: no new entries
  });

  it('hands contacts between workflows and stops a cycle after 10 hand-offs', async () => {
    const w1 = randomUUID();
    const w2 = randomUUID();
    await save(w1, 'Ping', { nodes: [node('t', 'event', { eventName: 'ping' }), node('d', 'delay', { delayMS: 1000 })], links: [link('t', 'd')] });
    await save(w2, 'Pong', { nodes: [node('r', 'root'), node('h', 'send_to_workflow', { workflowId: w1 })], links: [link('r', 'h')] });
    expect(
      (
        await save(w1, 'Ping', {
          nodes: [node('t', 'event', { eventName: 'ping' }), node('h', 'send_to_workflow', { workflowId: w2 })],
          links: [link('t', 'h')],
        })
      ).success,
    ).toBe(true);
    const self = await api('POST', '/api/workflow/workflows/validate', {
      id: w1,
      name: 'Self',
      display: { nodes: [node('t', 'event', { eventName: 'ping' }), node('h', 'send_to_workflow', { workflowId: w1 })], links: [link('t', 'h')] },
    });
    expect(self.body.errors.join(' ')).toMatch(/cannot hand contacts to itself/);
    await contacts([{ email: 'looper@loop.io' }]);
    await api('POST', '/api/event/events', { events: [{ name: 'ping', email: 'looper@loop.io' }] });
    await until(
      async () => {
        const [{ n }] = await query<{ n: number }>(`SELECT count(*)::int AS n FROM workflow_runs WHERE workflow_id = ANY($1::uuid[]) AND status = 'active'`, [
          [w1, w2],
        ]);
        const [{ total }] = await query<{ total: number }>('SELECT count(*)::int AS total FROM workflow_runs WHERE workflow_id = ANY($1::uuid[])', [[w1, w2]]);
        return n === 0 && total > 1;
      },
      30_000,
      'the loop to stop',
    );
    const runs = await query<{ hops: number }>('SELECT hops FROM workflow_runs WHERE workflow_id = ANY($1::uuid[]) ORDER BY hops', [[w1, w2]]);
    expect(runs.map((r) => r.hops)).toEqual(Array.from({ length: 11 }, (_, i) => i));
    const [last] = await query<{ outcome: string }>(
      `SELECT s.outcome FROM workflow_steps s JOIN workflow_runs r ON r.id = s.run_id WHERE r.hops = 10 AND s.node_id = 'h' AND r.workflow_id = ANY($1::uuid[])`,
      [[w1, w2]],
    );
    expect(last.outcome).toBe('not handed: more than 10 hand-offs');
  });

  it('excludes a contact from a delay-until whose time has passed (exclude tardy) and lets one through (allow tardy)', async () => {
    const id = randomUUID();
    const [strict, lenient] = [randomUUID(), randomUUID()];
    await save(strict, 'Strict', {
      nodes: [
        node('t', 'event', { eventName: 'late' }),
        node('u', 'delay_until', { timeHelper: { date: '2020-01-01', time: '12:30', timezone: 'UTC' }, delayUntilExclusive: true }),
        node('x', 'unsubscriber'),
      ],
      links: [link('t', 'u'), link('u', 'x')],
    });
    await save(lenient, 'Lenient', {
      nodes: [
        node('t', 'event', { eventName: 'late' }),
        node('u', 'delay_until', { timeHelper: { date: '2020-01-01', time: '12:30', timezone: 'Europe/Paris' } }),
        node('m', 'update_user', { jsonToUpdate: { late: true } }),
      ],
      links: [link('t', 'u'), link('u', 'm')],
    });
    await contacts([{ email: 'tardy@late.io' }]);
    await api('POST', '/api/event/events', { events: [{ name: 'late', email: 'tardy@late.io' }] });
    await until(
      async () => [...(await runsOf(strict)), ...(await runsOf(lenient))].every((r) => r.status !== 'active') && (await runsOf(lenient)).length === 1,
      20_000,
      'late runs',
    );
    expect((await runsOf(strict))[0].status).toBe('excluded');
    expect((await runsOf(lenient))[0].status).toBe('completed');
    const [c] = await query<{ json: Record<string, unknown>; unsubscribed: boolean }>(
      `SELECT json, unsubscribed_at IS NOT NULL AS unsubscribed FROM contacts WHERE email = 'tardy@late.io'`,
    );
    expect(c).toEqual({ json: { late: true }, unsubscribed: false });
    void id;
  });

  it('ends runs in flight when a workflow is archived (pending steps cancelled, no email), and answers the job', async () => {
    const id = randomUUID();
    await save(id, 'Slow', {
      nodes: [
        node('t', 'event', { eventName: 'slow' }),
        node('d', 'delay', { delayMS: 60_000 }),
        node('s', 'sender', { templateId: template, senderPersonaId: persona }),
      ],
      links: [link('t', 'd'), link('d', 's')],
    });
    await contacts([{ email: 'waiting@slow.io' }]);
    await api('POST', '/api/event/events', { events: [{ name: 'slow', email: 'waiting@slow.io' }] });
    await until(
      async () =>
        (await query<{ n: number }>(`SELECT count(*)::int AS n FROM workflow_steps WHERE workflow_id = $1 AND node_id = 's' AND status = 'pending'`, [id]))[0]
          .n === 1,
      10_000,
      'the pending send',
    );
    const res = await api('DELETE', `/api/workflowwrapper/workflows/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.workflow_id).toBe(id);
    const entry = await waitForJob(res.body.job_log_id);
    expect(entry).toMatchObject({ job_name: 'JOB_DELETE_WORKFLOW', success: true, start_details: { workflow_id: id } });
    expect((await runsOf(id))[0].status).toBe('ended');
    const [step] = await query<{ status: string }>(`SELECT status FROM workflow_steps WHERE workflow_id = $1 AND node_id = 's'`, [id]);
    expect(step.status).toBe('cancelled');
    expect((await api('GET', '/api/workflowwrapper/workflows', undefined)).body.data.map((w: { id: string }) => w.id)).not.toContain(id);
    // Events no longer enter it.
    await api('POST', '/api/event/events', { events: [{ name: 'slow', email: 'waiting@slow.io' }] });
    await new Promise((r) => setTimeout(r, 500));
    expect(await runsOf(id)).toHaveLength(1);
  });

  it("keeps tenants apart: another project's events enter none of these workflows, and it cannot see or archive them", async () => {
    const other = await h.tenant({ activated: true });
    await contacts([{ email: 'anna@test.io' }], other.apiKey);
    const [{ before }] = await query<{ before: number }>(`SELECT count(*)::int AS before FROM workflow_runs WHERE project_id = $1`, [t.projectId]);
    await api('POST', '/api/event/events', { events: [{ name: 'signed_up', email: 'anna@test.io' }] }, other.apiKey);
    await new Promise((r) => setTimeout(r, 500));
    const [{ after }] = await query<{ after: number }>(`SELECT count(*)::int AS after FROM workflow_runs WHERE project_id = $1`, [t.projectId]);
    expect(after).toBe(before);
    expect((await api('GET', '/api/workflowwrapper/workflows', undefined, other.apiKey)).body.data).toEqual([]);
    const mine = (await api('GET', '/api/workflowwrapper/workflows', undefined)).body.data[0].id;
    expect((await api('DELETE', `/api/workflowwrapper/workflows/${mine}`, undefined, other.apiKey)).status).toBe(404);
    expect((await api('POST', `/api/workflowwrapper/workflows/${mine}/disable`, undefined, other.apiKey)).status).toBe(404);
    const taken = await api('POST', '/api/workflowwrapper/workflows', { id: mine, name: 'Mine now' }, other.apiKey);
    expect(taken.status).toBe(400);
  });
});
