/**
 * The operations of every gateway, read from the bundled specs (generated/openapi/<service>.json, built from
 * openapi/*.yaml by codegen), for tests that derive their requests from the contract: parameters and request bodies
 * with $refs resolved, a sample request body (openapi-sampler, Redocly's), and the fields inside it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sample } from 'openapi-sampler';
import codegenConfig from '../../codegen.config.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** A JSON schema as the specs write it (only the keywords these tests read). */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  nullable?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  additionalProperties?: boolean | Schema;
}

export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  schema: Schema;
}

/** One operation of one gateway. */
export interface Operation {
  service: string;
  operationId: string;
  method: string;
  /** The spec's path, e.g. /segments/{id}. */
  path: string;
  parameters: Parameter[];
  /** Media types of the request body (empty when the operation takes none). */
  bodyTypes: string[];
  /** The JSON body's schema, resolved at its top level. */
  bodySchema?: Schema;
  bodyRequired: boolean;
  /** Whether the operation needs an x-api-key. */
  secured: boolean;
  /** A sample JSON body (openapi-sampler), or undefined without a JSON body. */
  sampleBody?: unknown;
  /** The sample with only the required fields. */
  minimalBody?: unknown;
  /** resolve follows $refs of this operation's spec. */
  resolve(schema: Schema | undefined): Schema | undefined;
}

/** specOperations returns every operation of every gateway in codegen.config.ts order. */
export function specOperations(): Operation[] {
  const out: Operation[] = [];
  for (const service of codegenConfig.services) {
    const spec = JSON.parse(readFileSync(path.join(ROOT, 'generated/openapi', `${service}.json`), 'utf8'));
    const resolve = (s: Schema | undefined): Schema | undefined => {
      let x = s;
      for (let i = 0; x?.$ref && i < 20; i++)
        x = x.$ref
          .slice(2)
          .split('/')
          .reduce((o: Record<string, unknown>, k: string) => o[k] as never, spec) as Schema;
      return x;
    };
    for (const [p, item] of Object.entries(spec.paths as Record<string, Record<string, unknown>>)) {
      for (const [method, raw] of Object.entries(item)) {
        const op = raw as {
          operationId?: string;
          parameters?: Schema[];
          requestBody?: Schema & { content?: Record<string, { schema: Schema }>; required?: boolean };
          security?: unknown[];
        };
        if (!op.operationId) continue;
        const parameters = [...((item.parameters as Schema[] | undefined) ?? []), ...(op.parameters ?? [])]
          .map((x) => resolve(x) as unknown as Parameter)
          .map((x) => ({ ...x, schema: resolve(x.schema)! }));
        const body = resolve(op.requestBody) as (Schema & { content?: Record<string, { schema: Schema }>; required?: boolean }) | undefined;
        const json = body?.content?.['application/json']?.schema;
        out.push({
          service,
          operationId: op.operationId,
          method: method.toUpperCase(),
          path: p,
          parameters,
          bodyTypes: Object.keys(body?.content ?? {}),
          bodySchema: resolve(json),
          bodyRequired: !!body?.required,
          secured: (op.security ?? spec.security ?? []).length > 0,
          sampleBody: json ? sample(json as never, { skipReadOnly: true, quiet: true }, spec) : undefined,
          minimalBody: json ? sample(json as never, { skipReadOnly: true, skipNonRequired: true, quiet: true }, spec) : undefined,
          resolve,
        });
      }
    }
  }
  return out;
}

/** A field inside a sample body: its path (keys and array indexes), its schema, and whether its parent requires it. */
export interface BodyField {
  path: Array<string | number>;
  schema: Schema;
  required: boolean;
}

/**
 * bodyFields lists the fields present in `value` (a sample body) with their schemas, depth first, at most `maxDepth`
 * levels deep; arrays are entered at their first element, oneOf/anyOf at the first branch (the one the sampler took).
 */
export function bodyFields(op: Operation, value: unknown = op.sampleBody, schema = op.bodySchema, maxDepth = 6): BodyField[] {
  const out: BodyField[] = [];
  const visit = (v: unknown, s: Schema | undefined, at: Array<string | number>, required: boolean, depth: number) => {
    s = merged(op, s);
    if (!s || depth > maxDepth) return;
    if (at.length) out.push({ path: at, schema: s, required });
    if (Array.isArray(v) && s.items && v.length) visit(v[0], s.items, [...at, 0], false, depth + 1);
    else if (v && typeof v === 'object' && s.properties) {
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
        if (s.properties[k]) visit(child, s.properties[k], [...at, k], (s.required ?? []).includes(k), depth + 1);
      }
    }
  };
  visit(value, schema, [], true, 0);
  return out;
}

/** merged resolves a schema and folds its allOf parts and first oneOf/anyOf branch into one object schema. */
function merged(op: Operation, s: Schema | undefined): Schema | undefined {
  const r = op.resolve(s);
  if (!r) return r;
  const branch = op.resolve(r.oneOf?.[0] ?? r.anyOf?.[0]);
  const parts = [r, ...(r.allOf ?? []).map((x) => merged(op, x)!), ...(branch ? [merged(op, branch)!] : [])];
  if (parts.length === 1) return r;
  return {
    ...Object.assign({}, ...parts),
    properties: Object.assign({}, ...parts.map((x) => x.properties ?? {})),
    required: parts.flatMap((x) => x.required ?? []),
  };
}

/** typesOf returns a schema's JSON types ('null' included when nullable); empty when it says nothing of its type. */
export function typesOf(s: Schema): string[] {
  const t = s.type === undefined ? [] : [s.type].flat();
  return s.nullable ? [...t, 'null'] : t;
}

/** fieldName renders a body path as the error messages name it: users[0].email. */
export function fieldName(at: Array<string | number>): string {
  return at.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${p}`)).join('');
}

/** withValue returns a deep copy of `body` with the value at `at` replaced (missing objects and arrays on the way are made). */
export function withValue(body: unknown, at: Array<string | number>, value: unknown): unknown {
  const copy = structuredClone(body ?? {}) as Record<string | number, unknown>;
  let node = copy;
  at.slice(0, -1).forEach((key, i) => {
    if (node[key] === undefined || node[key] === null || typeof node[key] !== 'object') node[key] = typeof at[i + 1] === 'number' ? [] : {};
    node = node[key] as Record<string | number, unknown>;
  });
  node[at[at.length - 1]] = value;
  return copy;
}
