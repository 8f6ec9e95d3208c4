/**
 * S3 storage across processes, with the product's own entry point (src/server/main.ts) as child
 * processes: on PostgreSQL, a worker process sends an email whose copy goes to S3 (s3rver) and a second server
 * process without workers, with a data folder of its own, serves that copy through the viewer — the bytes the relay
 * received. And on any database: a malformed STORAGE_URL, or an S3 endpoint that does not answer, stops the start
 * with exit code 1 and a message naming STORAGE_URL.
 */
import { mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT } from '../../src/domain/events.ts';
import { decodeLocation } from '../../src/domain/location.ts';
import { openStorage } from '../../src/server/storage/storage.ts';
import { freePort, runTs, startServer, type ServerProcess } from '../helpers/processes.ts';
import { startS3Server, type S3Server } from '../helpers/s3Server.ts';
import type { SmtpSink } from '../helpers/smtpSink.ts';
import { wallClockUtc } from '../helpers/time.ts';
import { API_DB, callServer, processFixture } from './harness.ts';

describe.skipIf(API_DB !== 'postgres')('sent copies in S3, sent by one process and served by another (postgres)', () => {
  let s3: S3Server;
  let sink: SmtpSink;
  let env: NodeJS.ProcessEnv;
  let drop: () => Promise<void> = async () => {};
  let worker: ServerProcess | undefined;
  let web: ServerProcess | undefined;
  beforeAll(async () => {
    s3 = await startS3Server();
    ({ sink, env, drop } = await processFixture('s3-two', { SEND_POLL_MS: '200', RENDER_THREADS: '1', ...s3.env }));
  });
  afterAll(async () => {
    await web?.kill();
    await worker?.kill();
    await sink?.stop();
    await drop();
    await s3?.close();
  });

  it("the server without workers serves the worker's copy from S3, byte for byte what the relay received", async () => {
    const out = await runTs(
      'src/server/admin.ts',
      ['create-account', '--company', 'S3 Co', '--project', 's3', '--email', 'ops@s3.example.com', '--password', 's3-password-1', '--activated', '--create'],
      env,
    );
    const key = /api key: (\S+)/.exec(out)![1];
    const webDataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-s3-web-'));
    // One after the other: two processes creating pg-boss's queues at once on a new database can deadlock.
    worker = await startServer({ ...env, WORKERS: 'on' });
    web = await startServer({ ...env, WORKERS: 'off', DATA_DIR: webDataDir });
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await callServer(web!.url, key, method, url, body);
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBe(200);
      return res.body;
    };
    const persona = (await call('POST', '/api/senderpersonawrapper/sender_personas', { sender_personas: [{ email: 'ops@s3.example.com', first_name: 'Ops' }] }))
      .data[0];
    const [link] = await sink.personaVerificationLinks();
    expect((await fetch(link, { method: 'POST' })).status).toBe(200);
    const template = (
      await call('POST', '/api/template/templates', {
        templates: [{ name: 'S3', subject: 'Copy for {{user.first_name}}', type: 'TEMPLATE_TRANSACTIONAL', html_body: '<p>Hello {{user.first_name}}</p>' }],
      })
    ).data[0];
    const contact = (await call('POST', '/api/user/users', { users: [{ email: 'reader@s3.example.com', first_name: 'Rita' }] })).data[0];
    const before = sink.count;
    const blastId = crypto.randomUUID();
    await call('POST', '/api/scheduler/scheduler', {
      id: blastId,
      name: 'S3 copy',
      template_id: template.id,
      sender_persona_id: persona.id,
      to_user_ids: [contact.id],
      send_at: wallClockUtc(-1),
      timezone: 'UTC',
    });
    await sink.waitFor(() => sink.count > before, 60_000);
    const delivered = sink.messages.slice(before).find((m) => m.envelopeTo.includes('reader@s3.example.com'))!;

    const sentEvent = async () =>
      (await call('GET', `/api/event/all_events?include_system_events=true&search_field=name&search_value=${EVENT.sendSuccess}&limit=50`)).data.find(
        (e: { json: { blast_id?: string } }) => e.json.blast_id === blastId,
      );
    await expect.poll(sentEvent, { timeout: 10_000 }).toBeTruthy();
    const location = (await sentEvent()).json.location as string;
    const viewed = await call('GET', `/api/reporting/email_send_results?locations=${encodeURIComponent(location)}`);
    const parsed = await simpleParser(delivered.raw);
    expect(viewed.errors).toEqual([]);
    expect(viewed.send_results[0].mailer_payload).toMatchObject({ subject: 'Copy for Rita', body: parsed.html, to: 'reader@s3.example.com' });
    // The copy is in S3 (the web process has no storage folder), byte for byte what the relay received.
    const { bucket, key: objectKey } = decodeLocation(location)!;
    expect((await openStorage(s3.storageUrl).get(bucket, objectKey))!.equals(delivered.raw)).toBe(true);
    expect(await s3.keys(`mw/${bucket}/`)).toEqual([`mw/${bucket}/${objectKey}`]);
    expect(await readdir(webDataDir)).not.toContain('storage');
  });
});

describe(`start with an unusable STORAGE_URL (${API_DB})`, () => {
  it('a malformed STORAGE_URL, or an S3 endpoint that does not answer, stops the start with exit code 1, naming STORAGE_URL', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mw-s3-bad-'));
    const base = { DATA_DIR: dataDir, PORT: String(await freePort()), DEMO_RESET_CRON: 'off', AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
    await expect(runTs('src/server/main.ts', [], { ...base, STORAGE_URL: 's3://Bad_Bucket/mw' })).rejects.toThrow(
      /exited 1: [\s\S]*mailwright: not starting: STORAGE_URL needs an S3 bucket name/,
    );
    const away = `http://127.0.0.1:${await freePort()}`;
    await expect(runTs('src/server/main.ts', [], { ...base, STORAGE_URL: `s3://mailwright-test/mw?endpoint=${away}` })).rejects.toThrow(
      new RegExp(`exited 1: [\\s\\S]*mailwright: not starting: STORAGE_URL: cannot use s3://mailwright-test/mw at ${away}: .*ECONNREFUSED`),
    );
  });
});
