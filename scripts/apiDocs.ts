/**
 * The public API document /docs/api.yml (spec part 1 §7 "Documented public API"), bundled at build time
 * from the same generated/openapi/<service>.json documents the server registers its routes and validation from, so it
 * cannot drift from what the gateways accept. Only the operations in PUBLIC_OPERATIONS are kept; each path item gets
 * its gateway's mount point as a path-level server (`/api/<service>`), so swagger-ui's "Try it out" calls the right
 * URL on the same origin.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';
import YAML from 'yaml';
import { FREE_EMAILS_PER_MONTH } from '../src/domain/pricing.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- OpenAPI documents are untyped JSON here

/** One documented operation: the gateway (service) it lives on, how it is called, and the tag it is listed under. */
export interface PublicOperation {
  service: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  operationId: string;
  tag: string;
}

/** The documented public operations (spec part 1 §7), in the order they are listed; one line each. */
export const PUBLIC_OPERATIONS: readonly PublicOperation[] = [
  { service: 'user', method: 'post', path: '/users', operationId: 'upsertUsers', tag: 'Contacts' },
  { service: 'template', method: 'post', path: '/templates', operationId: 'saveTemplates', tag: 'Templates' },
  { service: 'senderpersonawrapper', method: 'post', path: '/sender_personas', operationId: 'saveSenderPersonas', tag: 'Sender personas' },
  { service: 'segment', method: 'post', path: '/segments', operationId: 'saveSegments', tag: 'Segments' },
  { service: 'segment', method: 'post', path: '/segments/{id}/users', operationId: 'addSegmentUsers', tag: 'Segments' },
  { service: 'scheduler', method: 'post', path: '/scheduler', operationId: 'saveEmailBlast', tag: 'Email blasts' },
  { service: 'event', method: 'post', path: '/events', operationId: 'postEvents', tag: 'Events' },
];

/** Where the documents are read from, and which operations are kept (tests pass their own). */
export interface BuildOptions {
  /** Folder of the bundled per-service documents (default generated/openapi, written by `npm run codegen`). */
  specDir?: string;
  operations?: readonly PublicOperation[];
  /** info.version (default: package.json's version). */
  version?: string;
}

const ROOT = path.resolve(import.meta.dirname, '..');
const REF_PREFIX = '#/components/';

const DESCRIPTION = `The public API of Mailwright, the pay-as-you-go email service provider (the first ${FREE_EMAILS_PER_MONTH.toLocaleString('en-US')} emails a month are free).

**Authentication.** Every call carries your project's API key in the \`x-api-key\` header (Authorize, above). Find the key,
and your gateway URLs, on [Settings](/account/settings) in the console.

**Gateways.** Each resource has its own gateway, mounted at \`/api/<service>\`: contacts on \`/api/user\`, templates on
\`/api/template\`, sender personas on \`/api/senderpersonawrapper\`, segments on \`/api/segment\`, email blasts on
\`/api/scheduler\` and events on \`/api/event\`. Each operation below shows its gateway as its server.

**Templates.** A template must contain an unsubscribe link: put \`{{unsubscribe_link}}\` in the HTML body (for example
\`<a href="{{unsubscribe_link}}">Unsubscribe</a>\`). A marketing template without it is refused.

**Errors.** A refused call answers 4xx with \`{"errors": ["field: message", ...]}\`; a missing or unknown key is a 401.

A step-by-step tutorial is on the [API documentation](/blog/api-documentation) post.`;

/** resolvePointer returns the node at a local `#/…` JSON pointer of `doc`, or undefined. */
function resolvePointer(doc: Json, ref: string): Json {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .reduce((node: Json, key: string) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** refsIn lists every `#/components/<type>/<name>` key (as `<type>/<name>`) that `node` refers to, directly. */
function refsIn(node: Json, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => refsIn(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') {
        if (!v.startsWith(REF_PREFIX)) throw new Error(`unsupported $ref ${v} (only local #/components/… refs are bundled)`);
        out.add(v.slice(REF_PREFIX.length));
      } else refsIn(v, out);
    }
  }
  return out;
}

/** rewriteRefs copies `node` with each component ref `<type>/<name>` replaced by `rename(<type>/<name>)`. */
function rewriteRefs(node: Json, rename: (key: string) => string): Json {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, rename));
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) =>
      k === '$ref' && typeof v === 'string' ? [k, REF_PREFIX + rename(v.slice(REF_PREFIX.length))] : [k, rewriteRefs(v, rename)],
    ),
  );
}

const same = (a: Json, b: Json) => JSON.stringify(a) === JSON.stringify(b);
const pascal = (s: string) => s.replace(/(^|[-_])([a-z])/g, (_m, _p, c: string) => c.toUpperCase());
const keyTarget = (doc: Json, key: string) => resolvePointer(doc, REF_PREFIX + key);

/** reachable returns every component key `roots` refer to in `doc`, transitively. */
function reachable(doc: Json, roots: Json[]): string[] {
  const seen = new Set<string>();
  const queue = roots.flatMap((r) => [...refsIn(r)]);
  while (queue.length) {
    const key = queue.pop()!;
    if (seen.has(key)) continue;
    const target = keyTarget(doc, key);
    if (target === undefined) throw new Error(`unresolved $ref #/components/${key}`);
    seen.add(key);
    queue.push(...refsIn(target));
  }
  return [...seen];
}

/**
 * buildPublicApiDocument returns the OpenAPI 3.1 document of the public API (a plain JSON object): the operations of
 * PUBLIC_OPERATIONS read from `<specDir>/<service>.json` (generated/openapi by default: codegen's bundles, whose $refs
 * are all local `#/components/…`), each path item with `servers: [{url: /api/<service>}]`, the operations retagged and
 * stripped of console metadata (`x-resource`), and only the components they reach plus the ApiKey (x-api-key) scheme.
 * Components with the same name and content in several gateways are kept once; a name two gateways define differently
 * is kept for the first and prefixed with the service for the others (e.g. `SegmentErrors`). Throws when an operation
 * is missing, has another operationId, or two gateways claim one path.
 */
export function buildPublicApiDocument(options: BuildOptions = {}): Json {
  const specDir = options.specDir ?? path.join(ROOT, 'generated/openapi');
  const operations = options.operations ?? PUBLIC_OPERATIONS;
  const version = options.version ?? JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
  const topSecurity = [{ ApiKey: [] }];
  const docs = new Map<string, Json>();
  const load = (service: string) => {
    if (!docs.has(service)) docs.set(service, JSON.parse(readFileSync(path.join(specDir, `${service}.json`), 'utf8')));
    return docs.get(service);
  };

  const paths: Record<string, Json> = {};
  const pathService = new Map<string, string>();
  const components = new Map<string, Json>(); // `<type>/<name>` → value (refs already renamed)
  const services = [...new Set(operations.map((o) => o.service))];

  for (const service of services) {
    const doc = load(service);
    const ops = operations.filter((o) => o.service === service);
    const copies = ops.map((o) => {
      const item = doc.paths?.[o.path];
      const op = item?.[o.method];
      if (!op) throw new Error(`${service}: no ${o.method.toUpperCase()} ${o.path} in ${service}.json`);
      if (op.operationId !== o.operationId) throw new Error(`${service}: ${o.method.toUpperCase()} ${o.path} is ${op.operationId}, not ${o.operationId}`);
      const { 'x-resource': _console, tags: _tags, security, ...rest } = op;
      const effective = security ?? doc.security ?? [];
      return { o, item, op: { operationId: op.operationId, tags: [o.tag], ...rest, ...(same(effective, topSecurity) ? {} : { security: effective }) } };
    });
    const keys = reachable(
      doc,
      copies.flatMap((c) => [c.op, c.item.parameters ?? []]),
    );

    // Keep a component under its own name unless another gateway already has that name with other content (after
    // this gateway's own renames); renaming one can change another that refers to it, so repeat until nothing changes.
    const renamed = new Set<string>();
    const rename = (key: string) => {
      if (!renamed.has(key)) return key;
      const [type, name] = key.split('/');
      return `${type}/${pascal(service)}${name}`;
    };
    for (let changed = true; changed;) {
      changed = false;
      for (const key of keys) {
        if (renamed.has(key) || !components.has(key)) continue;
        if (!same(components.get(key), rewriteRefs(keyTarget(doc, key), rename))) {
          renamed.add(key);
          changed = true;
        }
      }
    }
    for (const key of keys) {
      const value = rewriteRefs(keyTarget(doc, key), rename);
      const final = rename(key);
      if (components.has(final) && !same(components.get(final), value)) throw new Error(`component ${final} defined twice`);
      components.set(final, value);
    }

    for (const { o, item, op } of copies) {
      const owner = pathService.get(o.path);
      if (owner && owner !== service) throw new Error(`${o.path} is on both ${owner} and ${service}`);
      pathService.set(o.path, service);
      paths[o.path] ??= {
        servers: [{ url: `/api/${service}`, description: `The ${service} gateway` }],
        ...(item.parameters ? { parameters: rewriteRefs(item.parameters, rename) } : {}),
      };
      paths[o.path][o.method] = rewriteRefs(op, rename);
    }
  }

  const securitySchemes = load(operations[0].service).components?.securitySchemes?.ApiKey;
  if (securitySchemes?.type !== 'apiKey' || securitySchemes.name !== 'x-api-key') throw new Error('no ApiKey (x-api-key) security scheme');
  const grouped: Record<string, Record<string, Json>> = { securitySchemes: { ApiKey: securitySchemes } };
  for (const [key, value] of [...components].sort(([a], [b]) => a.localeCompare(b))) {
    const [type, name] = key.split('/');
    if (type === 'securitySchemes') continue;
    (grouped[type] ??= {})[name] = value;
  }

  return {
    openapi: '3.1.0',
    info: { title: 'Mailwright public API', version, description: DESCRIPTION },
    // Overridden by every path's own gateway server; here so tools that want a top-level server get the origin.
    servers: [{ url: '/', description: 'This site (each path names its gateway, /api/<service>)' }],
    security: topSecurity,
    tags: [...new Set(operations.map((o) => o.tag))].map((name) => {
      const o = operations.find((x) => x.tag === name)!;
      return { name, description: `On the ${o.service} gateway (/api/${o.service}).` };
    }),
    paths,
    components: grouped,
  };
}

/** publicApiYaml returns buildPublicApiDocument() as YAML text, headed by a note saying where it comes from. */
export function publicApiYaml(options?: BuildOptions): string {
  const header = '# Built by scripts/apiDocs.ts from generated/openapi/*.json (npm run codegen, from openapi/). Do not edit.\n';
  return header + YAML.stringify(buildPublicApiDocument(options), { aliasDuplicateObjects: false, lineWidth: 0 });
}

/**
 * publicApiDocs is the Vite plugin that publishes the document: `vite build` emits it as the asset docs/api.yml, and
 * the dev server answers GET /docs/api.yml with a fresh copy on every request.
 */
export function publicApiDocs(): Plugin {
  return {
    name: 'mailwright-public-api-docs',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'docs/api.yml', source: publicApiYaml() });
    },
    configureServer(server) {
      server.middlewares.use('/docs/api.yml', (req, res, next) => {
        if (req.method !== 'GET' && req.method !== 'HEAD') return next();
        try {
          const body = publicApiYaml();
          res.setHeader('Content-Type', 'text/yaml; charset=utf-8');
          res.end(req.method === 'HEAD' ? undefined : body);
        } catch (err) {
          next(err);
        }
      });
    },
  };
}
