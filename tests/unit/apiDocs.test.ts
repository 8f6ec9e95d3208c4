/**
 * The bundled public API document /docs/api.yml (spec part 1 §7 "Documented public API"): built from the
 * real generated/openapi documents, it holds exactly the public operations, each on its own gateway's server, with
 * every $ref resolving inside it and the x-api-key scheme; component name clashes between gateways are renamed, and a
 * drifted operation stops the build. The expected operations are written out here, not read from PUBLIC_OPERATIONS.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { buildPublicApiDocument, publicApiYaml, type PublicOperation } from '../../scripts/apiDocs.ts';
import type { Json } from '../helpers/json.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every `$ref` string anywhere in `node`, with the JSON path where it was found. */
function refs(node: unknown, at = '#', out: Array<[string, string]> = []): Array<[string, string]> {
  if (Array.isArray(node)) node.forEach((n, i) => refs(n, `${at}/${i}`, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push([at, v]);
      else refs(v, `${at}/${k}`, out);
    }
  }
  return out;
}

function resolve(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((n, k) => (n as Record<string, unknown> | undefined)?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

function operationsOf(doc: { paths: Record<string, Partial<Record<string, { operationId: string }>>> }): string[] {
  return Object.entries(doc.paths).flatMap(([p, item]) => METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${p} ${item[m]!.operationId}`));
}

describe('the public API document', () => {
  const doc = buildPublicApiDocument();

  it('is OpenAPI 3.1', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.title).toBeTruthy();
  });

  it('has exactly the documented public operations', () => {
    expect(operationsOf(doc).sort()).toEqual([
      'POST /events postEvents',
      'POST /scheduler saveEmailBlast',
      'POST /segments saveSegments',
      'POST /segments/{id}/users addSegmentUsers',
      'POST /sender_personas saveSenderPersonas',
      'POST /templates saveTemplates',
      'POST /users upsertUsers',
    ]);
    expect(doc.paths['/users'].get).toBeUndefined();
    expect(doc.paths['/feedback']).toBeUndefined();
    expect(doc.paths['/all_events']).toBeUndefined();
    expect(JSON.stringify(doc)).not.toContain('x-resource');
  });

  it('puts each operation on its own gateway', () => {
    const expected: Record<string, string> = {
      '/users': '/api/user',
      '/templates': '/api/template',
      '/sender_personas': '/api/senderpersonawrapper',
      '/segments': '/api/segment',
      '/segments/{id}/users': '/api/segment',
      '/scheduler': '/api/scheduler',
      '/events': '/api/event',
    };
    for (const [p, item] of Object.entries<Json>(doc.paths)) {
      expect(
        item.servers?.map((s: { url: string }) => s.url),
        p,
      ).toEqual([expected[p]]);
      for (const m of METHODS) expect(item[m]?.servers, `${m} ${p}`).toBeUndefined();
    }
  });

  it('resolves every $ref inside the document and keeps no unused component', () => {
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(10);
    for (const [at, ref] of all) {
      expect(ref, at).toMatch(/^#\/components\//);
      expect(resolve(doc, ref), `${ref} at ${at}`).toBeDefined();
    }
    const used = new Set(all.map(([, ref]) => ref));
    for (const [type, group] of Object.entries<Record<string, unknown>>(doc.components)) {
      if (type === 'securitySchemes') continue;
      for (const name of Object.keys(group)) expect(used.has(`#/components/${type}/${name}`), `${type}/${name}`).toBe(true);
    }
    // The shapes the server validates against came along.
    expect(doc.components.schemas.ContactInput.required).toContain('email');
    expect(doc.components.schemas.EventInput.required).toEqual(['name', 'email']);
  });

  it('is secured by the x-api-key header', () => {
    expect(doc.components.securitySchemes).toEqual({ ApiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }) });
    expect(doc.security).toEqual([{ ApiKey: [] }]);
    for (const op of operationsOf(doc)) expect(op).not.toMatch(/postSesNotification/);
    expect(doc.info.description).toContain('{{unsubscribe_link}}');
  });

  it('is written as YAML that reads back as the same document, without anchors', () => {
    const text = publicApiYaml();
    expect(text.startsWith('# Built by scripts/apiDocs.ts')).toBe(true);
    expect(text).not.toMatch(/^\s*[^#\n]*: [&*]\w/m);
    expect(YAML.parse(text)).toEqual(doc);
  });
});

describe('buildPublicApiDocument with other inputs', () => {
  const errors = (description: string) => ({
    description: 'Bad',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Errors' } } },
    'x-d': description,
  });
  const gateway = (p: string, operationId: string, errorsSchema: object) => ({
    openapi: '3.1.0',
    security: [{ ApiKey: [] }],
    paths: {
      [p]: {
        post: {
          operationId,
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } },
          responses: { '200': { description: 'ok' }, '400': { $ref: '#/components/responses/BadRequest' } },
        },
        get: { operationId: `list${operationId}`, responses: { '200': { description: 'ok' } } },
      },
    },
    components: {
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: {
        Item: { type: 'object', properties: { id: { $ref: '#/components/schemas/Uuid' } } },
        Uuid: { type: 'string', format: 'uuid' },
        Errors: errorsSchema,
        Unused: { type: 'string' },
      },
      responses: { BadRequest: errors('x') },
    },
  });
  const fixture = (docs: Record<string, object>) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mw-apidocs-'));
    for (const [service, d] of Object.entries(docs)) writeFileSync(path.join(dir, `${service}.json`), JSON.stringify(d));
    return dir;
  };
  const ops: PublicOperation[] = [
    { service: 'alpha', method: 'post', path: '/alphas', operationId: 'saveAlphas', tag: 'Alphas' },
    { service: 'beta_two', method: 'post', path: '/betas', operationId: 'saveBetas', tag: 'Betas' },
  ];

  it('keeps a component shared by two gateways once, and renames a clash together with what refers to it', () => {
    const specDir = fixture({
      alpha: gateway('/alphas', 'saveAlphas', { type: 'object', properties: { errors: { type: 'array' } } }),
      beta_two: gateway('/betas', 'saveBetas', { type: 'object', properties: { message: { type: 'string' } } }),
    });
    const doc = buildPublicApiDocument({ specDir, operations: ops, version: '1.0.0' });
    expect(Object.keys(doc.components.schemas).sort()).toEqual(['BetaTwoErrors', 'Errors', 'Item', 'Uuid']);
    expect(Object.keys(doc.components.responses).sort()).toEqual(['BadRequest', 'BetaTwoBadRequest']);
    expect(doc.components.schemas.BetaTwoErrors.properties.message).toBeDefined();
    expect(doc.components.responses.BetaTwoBadRequest.content['application/json'].schema.$ref).toBe('#/components/schemas/BetaTwoErrors');
    expect(doc.paths['/betas'].post.responses['400'].$ref).toBe('#/components/responses/BetaTwoBadRequest');
    expect(doc.paths['/alphas'].post.responses['400'].$ref).toBe('#/components/responses/BadRequest');
    expect(doc.paths['/betas'].servers).toEqual([expect.objectContaining({ url: '/api/beta_two' })]);
    expect(doc.paths['/alphas'].get).toBeUndefined();
    for (const [at, ref] of refs(doc)) expect(resolve(doc, ref), at).toBeDefined();
  });

  it('refuses an operation that is missing or has another operationId', () => {
    const specDir = fixture({ alpha: gateway('/alphas', 'saveSomethingElse', {}), beta_two: gateway('/gammas', 'saveBetas', {}) });
    expect(() => buildPublicApiDocument({ specDir, operations: [ops[0]], version: '1' })).toThrow(/saveSomethingElse, not saveAlphas/);
    expect(() => buildPublicApiDocument({ specDir, operations: [ops[1]], version: '1' })).toThrow(/no POST \/betas/);
  });
});
