/**
 * The gateways' OpenAPI documents over HTTP, as the API reference (/docs/api) reads them: GET /openapi/<service>.json
 * answers every gateway's bundled document (generated/openapi/<service>.json) as JSON, without a key; nothing under
 * /openapi/ can be written or is a console page; /docs and its pages get the console's page, while the files under
 * /docs/ stay files.
 */
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import codegenConfig from '../../codegen.config.ts';
import { buildApp } from '../../src/server/app.ts';
import { API_DB, startHarness, type Harness } from './harness.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const INDEX_HTML = '<!doctype html><title>Mailwright</title>';

let h: Harness;
let site: FastifyInstance;
beforeAll(async () => {
  h = await startHarness();
  const consoleDir = await mkdtemp(path.join(os.tmpdir(), 'mw-console-'));
  await writeFile(path.join(consoleDir, 'index.html'), INDEX_HTML);
  await mkdir(path.join(consoleDir, 'docs'));
  await writeFile(path.join(consoleDir, 'docs', 'api.yml'), 'openapi: 3.1.0\n');
  site = await buildApp(h.runtime.ctx, { logLevel: 'silent', consoleDir });
});
afterAll(async () => {
  await site?.close();
  await h?.close();
});

describe(`the gateways' OpenAPI documents (${API_DB})`, () => {
  it('GET /openapi/<service>.json answers each gateway’s bundled document as JSON, without a key', async () => {
    expect(codegenConfig.services.length).toBeGreaterThan(10);
    for (const service of codegenConfig.services) {
      const res = await site.inject({ method: 'GET', url: `/openapi/${service}.json` });
      expect(res.statusCode, service).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.json()).toEqual(JSON.parse(readFileSync(path.join(ROOT, 'generated/openapi', `${service}.json`), 'utf8')));
      expect(res.json().servers[0].url).toBe(`/api/${service}`);
      const head = await site.inject({ method: 'HEAD', url: `/openapi/${service}.json` });
      expect(head.statusCode).toBe(200);
    }
  });

  it('is read-only, and nothing else under /openapi/ is a document or a page', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await site.inject({ method, url: '/openapi/user.json', headers: { 'content-type': 'application/json' }, payload: '{}' });
      expect(res.statusCode, method).toBe(404);
      expect(res.json().errors[0]).toBe(`request: no route ${method} /openapi/user.json`);
    }
    for (const url of ['/openapi/nothing.json', '/openapi/user.yaml', '/openapi/', '/openapi', '/openapi/user', '/openapi/../package.json']) {
      const res = await site.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/^application\/json/);
      expect(res.body, url).not.toContain('"openapi"');
    }
  });

  it('/docs and its pages are the console’s page; files under /docs/ are files', async () => {
    for (const url of ['/docs', '/docs/', '/docs/quick-start/send-from-your-app', '/docs/api', '/docs/api/user', '/docs/changelog']) {
      const res = await site.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toBe(INDEX_HTML);
    }
    const yml = await site.inject({ method: 'GET', url: '/docs/api.yml' });
    expect(yml.statusCode).toBe(200);
    expect(yml.body).toBe('openapi: 3.1.0\n');
    const missing = await site.inject({ method: 'GET', url: '/docs/missing.yml', headers: { accept: 'text/html' } });
    expect(missing.statusCode).toBe(404);
  });
});
