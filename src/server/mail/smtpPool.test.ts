/**
 * SmtpPool against real SMTP servers on 127.0.0.1 (smtp-server): sessions are reused, never more are
 * open than the allowance (counted until their sockets close), a smaller allowance closes idle sessions, a refused
 * recipient keeps its session, a session the relay ended while idle is replaced without a lost or doubled message,
 * and a relay that refuses connections rejects the acquire as a connection failure.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { SmtpSink } from '../../../tests/helpers/smtpSink.ts';
import { SmtpPool, smtpEndpoint } from './smtpPool.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function sink(setup: (s: SmtpSink) => void = () => undefined): Promise<{ sink: SmtpSink; url: string }> {
  const s = new SmtpSink();
  setup(s);
  const url = await s.start();
  cleanup.push(() => s.stop());
  return { sink: s, url };
}

function pool(url: string, size = 5, idleTimeoutMs = 5000): SmtpPool {
  const p = new SmtpPool(smtpEndpoint(url), size, { idleTimeoutMs, maxMessages: 1000 });
  cleanup.push(() => p.close());
  return p;
}

const raw = (to: string) => Buffer.from(`From: a@example.com\r\nTo: ${to}\r\nSubject: t\r\nMessage-ID: <${to}>\r\n\r\nhi\r\n`);

async function send(p: SmtpPool, to: string): Promise<string> {
  const lease = await p.acquire();
  try {
    return (await lease.send({ from: 'a@example.com', to: [to] }, raw(to))).response;
  } finally {
    lease.release();
  }
}

const until = async (check: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('SmtpPool', () => {
  it('sends one message after another over one session', async () => {
    const { sink: s, url } = await sink();
    const p = pool(url);
    for (let i = 0; i < 20; i++) expect(await send(p, `r${i}@example.com`)).toMatch(/^250/);
    expect(s.count).toBe(20);
    expect(s.sessions).toBe(1);
    expect(p.opened).toBe(1);
  });

  it('never has more sessions open than its allowance, and reuses them', async () => {
    const { sink: s, url } = await sink((x) => (x.acceptDelayMs = 30));
    const p = pool(url, 5);
    p.limit = { allowed: () => 2 };
    await Promise.all(Array.from({ length: 30 }, (_, i) => send(p, `c${i}@example.com`)));
    expect(s.count).toBe(30);
    expect(s.maxOpenConnections).toBe(2);
    expect(s.sessions).toBe(2);
  });

  it('closes its idle sessions beyond a smaller allowance at once, and counts them until their sockets close', async () => {
    const { sink: s, url } = await sink((x) => (x.acceptDelayMs = 50));
    const p = pool(url, 5);
    let allowed = 3;
    p.limit = { allowed: () => allowed };
    await Promise.all(Array.from({ length: 3 }, (_, i) => send(p, `i${i}@example.com`)));
    expect(p.open).toBe(3);
    allowed = 1;
    p.rebalance();
    // QUIT is on its way: the sessions still count until the relay closed them.
    expect(p.open).toBe(3);
    await until(() => p.open === 1 && s.openConnections === 1);
    expect(await send(p, 'after@example.com')).toMatch(/^250/);
    expect(s.sessions).toBe(3);
  });

  it('keeps the session after a refused recipient (RSET), and the refusal is the caller’s', async () => {
    const { sink: s, url } = await sink((x) => x.refuse.set('gone@example.com', { code: 550, message: '5.1.1 user unknown' }));
    const p = pool(url);
    await expect(send(p, 'gone@example.com')).rejects.toMatchObject({ responseCode: 550 });
    expect(await send(p, 'here@example.com')).toMatch(/^250/);
    expect(s.sessions).toBe(1);
    expect(s.count).toBe(1);
  });

  it('replaces a session the relay ended while it was idle: the next message goes once, on a new session', async () => {
    let sessions = 0;
    const received: string[] = [];
    // A relay that ends sessions idle for 300 ms (421, then it closes them), as real relays do after their timeout.
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      socketTimeout: 300,
      onConnect: (_s, cb) => {
        sessions++;
        cb();
      },
      onData: (stream, session, cb) => {
        stream.resume();
        stream.on('end', () => {
          received.push(session.envelope.rcptTo[0].address);
          cb();
        });
      },
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
    const p = pool(`smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, 1);
    expect(await send(p, 'first@example.com')).toMatch(/^250/);
    await new Promise((r) => setTimeout(r, 800));
    expect(await send(p, 'second@example.com')).toMatch(/^250/);
    expect(received).toEqual(['first@example.com', 'second@example.com']);
    expect(sessions).toBe(2);
  });

  it('answers at once when the relay hangs up after refusing a recipient (RSET never answered), and opens a new session', async () => {
    let sessions = 0;
    const received: string[] = [];
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onConnect: (_s, cb) => {
        sessions++;
        cb();
      },
      onRcptTo: (address, _session, cb) =>
        cb(address.address === 'gone@example.com' ? Object.assign(new Error('5.1.1 user unknown'), { responseCode: 550 }) : undefined),
      onData: (stream, session, cb) => {
        stream.resume();
        stream.on('end', () => {
          received.push(session.envelope.rcptTo[0].address);
          cb();
        });
      },
    });
    // It refuses gone@, and drops the connection when the client's RSET arrives instead of answering it.
    server.server.on('connection', (sock: import('node:net').Socket) => {
      sock.prependListener('data', (chunk: Buffer) => {
        if (/^RSET/m.test(chunk.toString())) sock.destroy();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
    const p = pool(`smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`, 1);
    await expect(send(p, 'gone@example.com')).rejects.toMatchObject({ responseCode: 550 });
    expect(await send(p, 'here@example.com')).toMatch(/^250/);
    expect(received).toEqual(['here@example.com']);
    expect(sessions).toBe(2);
  });

  it('ends a send waiting for the relay’s answer when the pool closes', async () => {
    // A relay that takes the message and never answers it.
    const { url } = await sink((x) => (x.acceptDelayMs = 60_000));
    const p = new SmtpPool(smtpEndpoint(url), 1, { idleTimeoutMs: 5000, maxMessages: 1000 });
    const sending = send(p, 'slow@example.com');
    await until(() => p.open === 1);
    await new Promise((r) => setTimeout(r, 200));
    await p.close();
    await expect(sending).rejects.toMatchObject({ code: 'ECONNECTION' });
  });

  it('rejects the acquire as a connection failure when the relay refuses connections', async () => {
    const closed = new SmtpSink();
    const deadUrl = await closed.start();
    await closed.stop();
    const p = pool(deadUrl);
    await expect(p.acquire()).rejects.toMatchObject({ command: 'CONN' });
    await until(() => p.open === 0);
  });
});
