/**
 * Exactly once across a crash (DESIGN.md §6): the server process (gateways + workers) is killed with SIGKILL in the
 * middle of a blast while the relay holds messages it has not yet accepted, then restarted on the same database;
 * every recipient ends up with exactly one message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpSink } from '../helpers/smtpSink.ts';
import { runTs, startServer, type ServerProcess } from '../helpers/processes.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { API_DB, callServer, processFixture } from './harness.ts';

const RECIPIENTS = 300;
let sink: SmtpSink;
let env: NodeJS.ProcessEnv;
let drop: () => Promise<void> = async () => {};
let server: ServerProcess | undefined;

beforeAll(async () => {
  ({ sink, env, drop } = await processFixture('crash', { SEND_LEASE_MS: '4000', SEND_POLL_MS: '200' }));
});
afterAll(async () => {
  await server?.kill('SIGKILL');
  await sink?.stop();
  await drop();
});

const call = (key: string, method: string, url: string, body?: unknown) => callServer(server!.url, key, method, url, body);

describe(`worker killed mid-blast (${API_DB})`, () => {
  it('leaves every recipient with exactly one message after a restart', async () => {
    const out = await runTs(
      'src/server/admin.ts',
      [
        'create-account',
        '--company',
        'Crash Co',
        '--project',
        'crash',
        '--email',
        'ops@crash.example.com',
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
      await call(key, 'POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'ops@crash.example.com', first_name: 'Ops' }] })
    ).body.data[0];
    // The persona confirms its address through the verification email; the blast's messages are the ones after it.
    const [link] = await sink.personaVerificationLinks();
    expect((await fetch(link, { method: 'POST' })).status).toBe(200);
    const first = sink.count;
    const template = (
      await call(key, 'POST', '/api/template/templates', {
        templates: [{ name: 'Crash', subject: 'Crash test', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>{{user.email}}</p>' }],
      })
    ).body.data[0];
    const users = Array.from({ length: RECIPIENTS }, (_, i) => ({ email: `r${i}@crash.example.com`, first_name: `R${i}` }));
    const contacts = (await call(key, 'POST', '/api/user/users', { users })).body.data;
    expect(contacts).toHaveLength(RECIPIENTS);
    const blast = await call(key, 'POST', '/api/scheduler/scheduler', {
      id: crypto.randomUUID(),
      name: 'Crash',
      template_id: template.id,
      sender_persona_id: persona.id,
      to_user_ids: contacts.map((c: { id: string }) => c.id),
      send_at: wallClockUtc(-1),
      timezone: 'UTC',
    });
    expect(blast.status).toBe(200);

    // Let a third go out, then make the relay stall: the messages in flight are never accepted. Kill the process then.
    await sink.waitFor(() => sink.count - first >= RECIPIENTS / 3, 60_000);
    sink.hold();
    await sink.waitFor(() => sink.heldCount >= 1, 10_000);
    await new Promise((r) => setTimeout(r, 500));
    await server.kill('SIGKILL');
    const acceptedBeforeCrash = sink.count - first;
    expect(acceptedBeforeCrash).toBeLessThan(RECIPIENTS);
    sink.release(); // the held messages' connections are gone: the relay discards them

    server = await startServer(env);
    await sink.waitFor(() => sink.count - first >= RECIPIENTS, 120_000);
    await new Promise((r) => setTimeout(r, 3000)); // leases have long expired: anything duplicated would have arrived

    const perRecipient = new Map<string, number>();
    const blastMessages = sink.messages.slice(first);
    for (const m of blastMessages) for (const to of m.envelopeTo) perRecipient.set(to, (perRecipient.get(to) ?? 0) + 1);
    const dups = [...perRecipient.entries()].filter(([, n]) => n > 1).map(([to]) => to);
    const positions = dups.slice(0, 5).map((to) => blastMessages.map((m, i) => (m.envelopeTo.includes(to) ? i : -1)).filter((i) => i >= 0));
    expect({ duplicates: dups.length, positions, acceptedBeforeCrash }).toEqual({ duplicates: 0, positions: [], acceptedBeforeCrash });
    expect(perRecipient.size).toBe(RECIPIENTS);
    expect([...perRecipient.values()].every((n) => n === 1)).toBe(true);
    const after = (await call(key, 'GET', `/api/scheduler/scheduler?ids=${blast.body.data.id}`)).body.data[0];
    expect([after.scheduled_emails, after.sent_emails, after.failed_emails]).toEqual([RECIPIENTS, RECIPIENTS, 0]);
  });
});
