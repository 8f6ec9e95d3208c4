/**
 * The docs' data: the API reference lists every gateway the server mounts, once; the changelog runs newest first and
 * speaks to customers; the printed request bodies are the bodies; and the webhook signature check the receive-webhooks
 * quick start prints accepts what the server's signer (standardwebhooks) signs and refuses anything else.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import codegenConfig from '../../../../codegen.config';
import { RELEASES } from './changelog';
import { DOCS_NAV, GATEWAYS, QUICK_STARTS, quickStartPath } from './docsPages';
import { CREATE_PERSONA, curlCommand, pretty, SAVE_TEMPLATE, SEND_ONE_EMAIL, UPSERT_CONTACTS, VERIFY_FUNCTION } from './examples';

describe('the docs', () => {
  it('list every gateway the server mounts, once each', () => {
    const services = GATEWAYS.map((g) => g.service);
    expect(new Set(services).size).toBe(services.length);
    expect([...services].sort()).toEqual([...codegenConfig.services].sort());
  });

  it('navigate to every quick start, the API reference and the changelog', () => {
    const links = DOCS_NAV.flatMap((g) => g.links.map((l) => l.to));
    expect(links).toEqual(['/docs', ...QUICK_STARTS.map((q) => quickStartPath(q.slug)), '/docs/api', '/docs/changelog']);
  });

  it('keep the changelog newest first, one release a day, in customers’ words', () => {
    const dates = RELEASES.map((r) => r.date);
    expect([...dates].sort().reverse()).toEqual(dates);
    expect(new Set(dates).size).toBe(dates.length);
    const text = JSON.stringify(RELEASES);
    expect(text).not.toMatch(/issue|spec part|§|\.tsx?\b|src\//i);
  });

  it('print each request body as the JSON it sends', () => {
    for (const call of [CREATE_PERSONA, SEND_ONE_EMAIL, UPSERT_CONTACTS, SAVE_TEMPLATE]) {
      expect(JSON.parse(pretty(call.body))).toEqual(call.body);
      expect(new Function(`return (${pretty(call.body, true)});`)()).toEqual(call.body);
      const curl = curlCommand(call);
      expect(JSON.parse(curl.slice(curl.indexOf("<<'JSON'\n") + 8, curl.lastIndexOf('\nJSON')))).toEqual(call.body);
    }
  });

  it('check a webhook signature as the server signs it, and refuse a changed body, an old timestamp or another secret', async () => {
    const secret = `whsec_${Buffer.from('a secret of 24 bytes!!!!').toString('base64')}`;
    const folder = await mkdtemp(path.join(os.tmpdir(), 'mw-docs-verify-'));
    await writeFile(path.join(folder, 'verify.mjs'), VERIFY_FUNCTION);
    process.env.MAILWRIGHT_WEBHOOK_SECRET = secret;
    const { verify } = (await import(pathToFileURL(path.join(folder, 'verify.mjs')).href)) as {
      verify: (headers: Record<string, string>, body: string) => boolean;
    };
    const body = JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: { message: 'hello' } });
    const signed = (id: string, at: Date, text: string, key = secret) => ({
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(key).sign(id, at, text),
    });
    const now = new Date();
    expect(verify(signed('msg_1', now, body), body)).toBe(true);
    const headers = signed('msg_1', now, body);
    expect(verify({ ...headers, 'webhook-signature': `v1,bm90IGl0 ${headers['webhook-signature']}` }, body)).toBe(true);
    expect(verify(headers, body.replace('hello', 'hullo'))).toBe(false);
    expect(verify({ ...headers, 'webhook-id': 'msg_2' }, body)).toBe(false);
    expect(verify(signed('msg_1', new Date(Date.now() - 10 * 60_000), body), body)).toBe(false);
    expect(verify(signed('msg_1', now, body, `whsec_${Buffer.from('another secret, 24 bytes').toString('base64')}`), body)).toBe(false);
    expect(verify({ 'webhook-id': 'msg_1' }, body)).toBe(false);
  });
});
