/**
 * Workflows exactly once across a crash: 1,000 contacts enter a workflow (event →
 * delay 2 s → send → delay 1 s → update metadata); while they are mid-way — some sent, some waiting, the relay stalling
 * messages it has not accepted — the server process (gateways and workers) is killed with SIGKILL, then restarted on
 * the same database. Every contact must complete every step exactly once: one done step per node, one
 * workflow_started and one workflow_completed event, and exactly one email each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpSink } from '../helpers/smtpSink.ts';
import { runTs, startServer, type ServerProcess } from '../helpers/processes.ts';
import { API_DB, callServer, processFixture } from './harness.ts';
import { displayToTree, type Display } from '../../src/domain/workflowGraph.ts';

const CONTACTS = 1000;
let sink: SmtpSink;
let env: NodeJS.ProcessEnv;
let drop: () => Promise<void> = async () => {};
let server: ServerProcess | undefined;

beforeAll(async () => {
  ({ sink, env, drop } = await processFixture('wfcrash', { SEND_LEASE_MS: '4000', SEND_POLL_MS: '200', WORKFLOW_LEASE_MS: '3000', WORKFLOW_POLL_MS: '200' }));
});
afterAll(async () => {
  await server?.kill('SIGKILL');
  await sink?.stop();
  await drop();
});

const call = (key: string, method: string, url: string, body?: unknown) => callServer(server!.url, key, method, url, body);

async function until(check: () => Promise<boolean>, ms: number, what: string) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe(`worker killed while 1,000 contacts are mid-workflow (${API_DB})`, () => {
  it('completes every step exactly once for every contact after a restart', async () => {
    const out = await runTs(
      'src/server/admin.ts',
      [
        'create-account',
        '--company',
        'Flow Crash Co',
        '--project',
        'flowcrash',
        '--email',
        'ops@flowcrash.example.com',
        '--password',
        'crash-password-1',
        '--activated',
        '--create',
      ],
      env,
    );
    const key = /api key: (\S+)/.exec(out)![1];
    server = await startServer(env);
    const persona = (
      await call(key, 'POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'ops@flowcrash.example.com', first_name: 'Ops' }] })
    ).body.data[0];
    const [link] = await sink.personaVerificationLinks();
    expect((await fetch(link, { method: 'POST' })).status).toBe(200);
    const first = sink.count;
    const template = (
      await call(key, 'POST', '/api/template/templates', {
        templates: [{ name: 'Flow', subject: 'Flow {{event.name}}', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>{{user.email}}</p>' }],
      })
    ).body.data[0];
    const users = Array.from({ length: CONTACTS }, (_, i) => ({ email: `c${i}@flowcrash.example.com` }));
    expect((await call(key, 'POST', '/api/user/users', { users })).body.data).toHaveLength(CONTACTS);
    const display: Display = {
      nodes: [
        { id: 't', type: 'event', position: { x: 0, y: 0 }, properties: { eventName: 'go' } },
        { id: 'd1', type: 'delay', position: { x: 0, y: 1 }, properties: { delayMS: 2000 } },
        { id: 's', type: 'sender', position: { x: 0, y: 2 }, properties: { templateId: template.id, senderPersonaId: persona.id } },
        { id: 'd2', type: 'delay', position: { x: 0, y: 3 }, properties: { delayMS: 1000 } },
        { id: 'u', type: 'update_user', position: { x: 0, y: 4 }, properties: { jsonToUpdate: { done: true } } },
      ],
      links: ['t-d1', 'd1-s', 's-d2', 'd2-u'].map((p) => {
        const [a, b] = p.split('-');
        return { id: p, from: { nodeId: a, portId: 'output' }, to: { nodeId: b, portId: 'input' } };
      }),
    };
    const workflowId = crypto.randomUUID();
    const saved = await call(key, 'POST', '/api/workflowwrapper/workflows', { id: workflowId, name: 'Crash flow', display, tree: displayToTree(display).tree });
    expect(saved.status).toBe(200);
    await until(
      async () =>
        (await call(key, 'GET', '/api/joblog/joblog')).body.data.some(
          (j: { id: string; success: boolean }) => j.id === saved.body.data.job_log_entry_id && j.success,
        ),
      30_000,
      'the workflow save',
    );
    const posted = await call(key, 'POST', '/api/event/events', { events: users.map((u) => ({ name: 'go', email: u.email })) });
    expect(posted.status, JSON.stringify(posted.body).slice(0, 300)).toBe(200);

    // Once some emails went out, stall the relay (messages in flight are never accepted) and kill the process.
    await sink.waitFor(() => sink.count - first >= CONTACTS / 4, 120_000);
    sink.hold();
    await sink.waitFor(() => sink.heldCount >= 1, 20_000);
    await new Promise((r) => setTimeout(r, 300));
    await server.kill('SIGKILL');
    const acceptedBeforeCrash = sink.count - first;
    expect(acceptedBeforeCrash).toBeLessThan(CONTACTS);
    sink.release();

    server = await startServer(env);
    await until(
      async () => {
        const runs = await call(key, 'GET', `/api/workflowwrapper/workflows/${workflowId}/runs?limit=1`);
        if (runs.body.total !== CONTACTS) return false;
        const all = await call(key, 'GET', `/api/workflowwrapper/workflows/${workflowId}/runs?limit=1000`);
        return all.body.data.every((r: { status: string }) => r.status === 'completed');
      },
      180_000,
      'every run to complete',
    );
    await sink.waitFor(() => sink.count - first >= CONTACTS, 60_000);
    await new Promise((r) => setTimeout(r, 5000)); // leases have long expired: a step or email run twice would show now

    const runs = (await call(key, 'GET', `/api/workflowwrapper/workflows/${workflowId}/runs?limit=1000`)).body.data as Array<{
      email: string;
      steps: Array<{ node_id: string; status: string }>;
    }>;
    expect(runs).toHaveLength(CONTACTS);
    const paths = new Set(runs.map((r) => r.steps.map((s) => `${s.node_id}:${s.status}`).join(' ')));
    expect([...paths]).toEqual(['t:done d1:done s:done d2:done u:done']);
    const perRecipient = new Map<string, number>();
    for (const m of sink.messages.slice(first)) for (const to of m.envelopeTo) perRecipient.set(to, (perRecipient.get(to) ?? 0) + 1);
    const dups = [...perRecipient.entries()].filter(([, n]) => n > 1);
    expect({ duplicates: dups.length, recipients: perRecipient.size, acceptedBeforeCrash }).toEqual({
      duplicates: 0,
      recipients: CONTACTS,
      acceptedBeforeCrash,
    });
    const events = (await call(key, 'GET', '/api/event/all_events/count?include_system_events=true&search_field=name&search_value=workflow_started')).body
      .num_events;
    const completed = (await call(key, 'GET', '/api/event/all_events/count?include_system_events=true&search_field=name&search_value=workflow_completed')).body
      .num_events;
    expect({ started: events, completed }).toEqual({ started: CONTACTS, completed: CONTACTS });
    const contacts = (await call(key, 'GET', '/api/user/users?limit=1000')).body.data as Array<{ json: Record<string, unknown> }>;
    expect(contacts.filter((c) => c.json.done === true)).toHaveLength(CONTACTS);
  });
});
