/**
 * codegen writes generated/ from the OpenAPI documents named in codegen.config.ts (DESIGN.md §3):
 * - generated/openapi/<service>.json: the bundled document (external $refs inlined) the server registers routes from;
 * - generated/types/<service>.gen.ts: TypeScript types (openapi-typescript);
 * - generated/client.gen.ts: typed openapi-fetch clients per gateway;
 * - generated/operations.gen.ts: operationId → {service, method, path, public?}, the dataProvider's routing table;
 * - generated/operationTypes.gen.ts: operationId → its service's openapi-typescript `operations[operationId]` type, and
 *   service → its `components['schemas']`, the index the console's typed gateway calls read their types from;
 * - generated/resources.gen.ts: react-admin resource definitions read from each operation's `x-resource`;
 * - generated/screens.gen.ts: the managed list screens read from each list operation's `x-screen`;
 * - generated/forms/<service>.<schema>.validators.gen.js (+ .d.ts) and generated/formValidators.gen.ts: each form schema's
 *   validator compiled ahead of time (ajv standalone, as @rjsf/validator-ajv8's precompiled validators expect), so the
 *   console never compiles a schema with `new Function` and its Content-Security-Policy needs no 'unsafe-eval'.
 * With `--check` nothing is written; it exits 1 listing every file that would change (CI's staleness check).
 */
import { mkdir, readFile, writeFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { bundle, createConfig } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import standaloneCode from 'ajv/dist/standalone/index.js';
import createAjvInstance from '@rjsf/validator-ajv8/lib/createAjvInstance.js';
import { schemaParser } from '@rjsf/utils';
import config from '../codegen.config.ts';
import { formSchema } from '../src/console/resources/shared/formSchema.ts';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any -- OpenAPI documents are untyped JSON here
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const root = path.resolve(import.meta.dirname, '..');
const out = new Map<string, string>();

/** deref resolves internal `#/…` $refs of a bundled document (no cycles in our specs; a cycle throws). */
function deref(doc: Json, node: Json, seen: string[] = []): Json {
  if (Array.isArray(node)) return node.map((n) => deref(doc, n, seen));
  if (!node || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string') {
    const ref: string = node.$ref;
    if (seen.includes(ref)) throw new Error(`cyclic $ref ${ref}`);
    const target = ref
      .slice(2)
      .split('/')
      .reduce((o: Json, k: string) => o?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
    const { $ref: _omit, ...rest } = node;
    return { ...deref(doc, target, [...seen, ref]), ...deref(doc, rest, seen) };
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, deref(doc, v, seen)]));
}

function pascal(s: string): string {
  return s.replace(/(^|[-_])([a-z])/g, (_m, _p, c: string) => c.toUpperCase());
}

/** withJsonSchema adds to a form declaration (`schema`: a component schema's name) that schema, dereferenced. */
function withJsonSchema(doc: Json, service: string, form: Json): Json {
  const jsonSchema = doc.components?.schemas?.[form.schema] ? deref(doc, doc.components.schemas[form.schema]) : undefined;
  if (!jsonSchema) throw new Error(`${service}: form schema ${form.schema} not found`);
  return { ...form, jsonSchema };
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const redocly = await createConfig({});
  const operations: Record<string, { service: string; method: string; path: string; public?: true }> = {};
  const resources: Json[] = [];
  const screens: Json[] = [];
  for (const service of config.services) {
    const ref = path.join(root, config.specDir, `${service}.yaml`);
    const { bundle: result, problems } = await bundle({ ref, config: redocly, dereference: false });
    const errors = problems.filter((p) => p.severity === 'error');
    if (errors.length) throw new Error(`${service}.yaml: ${errors.map((p) => p.message).join('; ')}`);
    const doc: Json = result.parsed;
    out.set(`openapi/${service}.json`, JSON.stringify(doc, null, 2) + '\n');
    const ast = await openapiTS(doc, { alphabetize: false, exportType: false });
    out.set(`types/${service}.gen.ts`, config.header + astToString(ast));
    for (const [p, item] of Object.entries<Json>(doc.paths ?? {})) {
      for (const method of METHODS) {
        const op = item[method];
        if (!op?.operationId) continue;
        if (operations[op.operationId]) throw new Error(`duplicate operationId ${op.operationId}`);
        // public: the operation opts out of the gateway's x-api-key (security: []), e.g. SNS's endpoint.
        const isPublic = Array.isArray(op.security) && op.security.length === 0;
        operations[op.operationId] = { service, method: method.toUpperCase(), path: p, ...(isPublic ? { public: true as const } : {}) };
        const res = op['x-resource'];
        if (res) resources.push({ ...res, service, form: res.form ? withJsonSchema(doc, service, res.form) : undefined });
        const screen = op['x-screen'];
        if (screen) {
          const forms = Object.fromEntries((['create', 'edit'] as const).filter((k) => screen[k]).map((k) => [k, withJsonSchema(doc, service, screen[k])]));
          screens.push({ ...screen, service, operations: { ...screen.operations, list: op.operationId }, ...forms });
        }
      }
    }
  }

  out.set(
    'operations.gen.ts',
    `${config.header}
/** Every gateway operation by operationId: the service it belongs to, its HTTP method and its path in the gateway. */
export const operations = ${JSON.stringify(operations, null, 2)} as const;

export type OperationId = keyof typeof operations;
`,
  );

  // The operation ids of each service, in spec order, for the type index below.
  const idsByService = new Map<string, string[]>(config.services.map((s) => [s, []]));
  for (const [id, op] of Object.entries(operations)) idsByService.get(op.service)!.push(id);
  out.set(
    'operationTypes.gen.ts',
    `${config.header}
${config.services.map((s) => `import type { components as ${pascal(s)}Components, operations as ${pascal(s)}Operations } from './types/${s}.gen';`).join('\n')}

/**
 * Every gateway operation by operationId: its service's openapi-typescript \`operations[operationId]\` type, with its
 * \`parameters\` (query, path), \`requestBody\` and \`responses\`. The keys are generated/operations.gen.ts's OperationId.
 */
export interface OperationTypes {
${config.services.flatMap((s) => idsByService.get(s)!.map((id) => `  ${id}: ${pascal(s)}Operations['${id}'];`)).join('\n')}
}

/** The component schemas of each gateway, keyed by service name (\`never\` for a spec without schemas). */
export interface ServiceSchemas {
${config.services.map((s) => `  ${s}: ${pascal(s)}Components['schemas'];`).join('\n')}
}
`,
  );

  const imports = config.services.map((s) => `import type { paths as ${pascal(s)}Paths } from './types/${s}.gen';`).join('\n');
  out.set(
    'client.gen.ts',
    `${config.header}
import createClient, { type Client } from 'openapi-fetch';
${imports}

/** The paths of each gateway, keyed by service name (mounted at /api/<service>). */
export interface GatewayPaths {
${config.services.map((s) => `  ${s}: ${pascal(s)}Paths;`).join('\n')}
}

export type Service = keyof GatewayPaths;
export const services = ${JSON.stringify(config.services)} as const;

/**
 * createGatewayClient returns a typed openapi-fetch client for one gateway; \`baseUrl\` is the session's
 * api_<service>_gateway URL and \`apiKey\` is sent as x-api-key on every call.
 */
export function createGatewayClient<S extends Service>(
  baseUrl: string,
  apiKey?: string,
  fetchImpl?: typeof fetch,
): Client<GatewayPaths[S]> {
  return createClient<GatewayPaths[S]>({
    baseUrl,
    headers: apiKey ? { 'x-api-key': apiKey } : {},
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}
`,
  );

  out.set(
    'resources.gen.ts',
    `${config.header}
import type { OperationId } from './operations.gen';

/** One react-admin resource, as declared by an \`x-resource\` extension on its list operation. */
export interface ResourceDefinition {
  name: string;
  label: string;
  route: string;
  gateway: string;
  service: string;
  recordRepresentation: string;
  /** save: the batch save (create, and update without update); update: a REST update of one record (PATCH/PUT {id}). */
  operations: { list: OperationId; count?: OperationId; save?: OperationId; update?: OperationId; archive?: OperationId };
  saveBodyKey?: string;
  /** The key of the list answer's rows (default data), e.g. campaigns_with_metrics. */
  listKey?: string;
  archiveBy?: 'id' | 'email';
  archiveLabel?: string;
  archiveConfirm?: string;
  archiveWhen?: string;
  readOnlyEdit?: string;
  list: {
    columns: Array<{ source: string; label: string; type?: 'date' | 'boolean' | 'count' | 'sendAt' | 'audience' | 'campaignType' }>;
    searchFields: string[];
    defaultSort: { field: string; order: 'ASC' | 'DESC' };
    pageSize: number;
    truncate: Record<string, number>;
    duplicate?: { nameField: string; prefix: string };
    links?: Array<{ label: string; to: string }>;
    empty?: string;
  };
  form?: {
    schema: string;
    jsonSchema: Record<string, unknown>;
    redirectAfterSave?: string;
    uiSchema?: Record<string, unknown>;
    titleNew?: string;
    titleEdit?: string;
    submitLabel?: string;
    /** The submit button's text on the edit route (default submitLabel). */
    submitLabelEdit?: string;
    /** The toast after an edit is saved (default "Successfully saved <entity>"). */
    savedEdit?: string;
    /** Keep Save disabled while a required field is blank, and on the edit route until something changed. */
    disableSaveUntilValid?: boolean;
  };
}

export const resources: ResourceDefinition[] = ${JSON.stringify(resources, null, 2)};

export const resourcesByName: Record<string, ResourceDefinition> = Object.fromEntries(resources.map((r) => [r.name, r]));
`,
  );

  out.set(
    'screens.gen.ts',
    `${config.header}
import type { OperationId } from './operations.gen';

/** A form of a managed list screen: the component schema it edits, its rjsf UI schema and its words. */
export interface ScreenForm {
  schema: string;
  jsonSchema: Record<string, unknown>;
  uiSchema?: Record<string, unknown>;
  /** The heading over the form (an add form's card, an edit dialog's title). */
  title: string;
  submitLabel: string;
  /** The submit button's text while saving (default: submitLabel). */
  submittingLabel?: string;
  /** The toast after a save; {field} is replaced by the saved row's field. */
  success: string;
  /** The toast's prefix when the server's error names no field of the form, e.g. "Couldn’t add team member". */
  failure: string;
  /** The form's values when it opens (create) and after a save, but for the fields in keep. */
  initial?: Record<string, unknown>;
  keep?: string[];
  /** Where a refusal's field errors show: under their fields (default), or all of it in the failure toast as worded. */
  refusals?: 'fields' | 'toast';
  /** Where an add form stands: above the list (default) or below it. */
  position?: 'above' | 'below';
}

/**
 * A managed list screen — a list, an add form, an edit dialog and a delete confirmation of one gateway's REST-shaped
 * operations — as declared by an \`x-screen\` extension on its list operation and rendered by the console's ManagedList.
 */
export interface ScreenDefinition {
  name: string;
  service: string;
  title: string;
  /** The info line under the title. */
  intro?: string;
  operations: { list: OperationId; create?: OperationId; update?: OperationId; delete?: OperationId };
  /** The row field that names a row in buttons and messages, e.g. name. */
  rowLabel: string;
  /** A data-testid for each row or card, {field} replaced, e.g. team-row-{email}. */
  rowTestId?: string;
  layout: 'table' | 'cards';
  tableLabel?: string;
  columns?: Array<{ source: string; label: string; type?: 'count' | 'date' | 'text' }>;
  empty: string;
  loadingLabel: string;
  loadError: string;
  create?: ScreenForm;
  edit?: ScreenForm;
  delete?: { label: string; title: string; body?: string; confirmLabel: string; success: string; failure: string };
}

export const screens: ScreenDefinition[] = ${JSON.stringify(screens, null, 2)};

export const screensByName: Record<string, ScreenDefinition> = Object.fromEntries(screens.map((s) => [s.name, s]));
`,
  );

  // Each form schema's validator, compiled ahead of time from exactly the schema the form renders (formSchema), once per
  // <service>.<schema> however many forms render it (a screen's add and edit forms often share one).
  const formsByKey = new Map<string, Json>();
  for (const r of resources.filter((x) => x.form)) formsByKey.set(`${r.service}.${r.form.schema}`, r.form.jsonSchema);
  for (const sc of screens) for (const k of ['create', 'edit'] as const) if (sc[k]) formsByKey.set(`${sc.service}.${sc[k].schema}`, sc[k].jsonSchema);
  const forms = [...formsByKey].map(([key, jsonSchema]) => ({ key, jsonSchema }));
  for (const f of forms) {
    const schemas = Object.values(schemaParser(formSchema(f.jsonSchema)));
    // unicode: false counts string length in UTF-16 units instead of importing ajv's ucs2length at run time (the
    // server's check, which counts characters, decides); logger: false keeps ajv's note that the option is deprecated quiet.
    const ajv = createAjvInstance(undefined, undefined, { unicode: false, logger: false, code: { source: true, esm: true, lines: true }, schemas } as never);
    const names = schemas.map((schema, i) => [`v${i}`, String(schema.$id)] as const);
    const code = standaloneCode(ajv, Object.fromEntries(names));
    out.set(
      `forms/${f.key}.validators.gen.js`,
      `${config.header}${code}
/** The validators by schema id, as @rjsf/validator-ajv8's createPrecompiledValidator looks them up. */
export default { ${names.map(([name, id]) => `${JSON.stringify(id)}: ${name}`).join(', ')} };
`,
    );
    out.set(
      `forms/${f.key}.validators.gen.d.ts`,
      `${config.header}import type { ValidatorFunctions } from '@rjsf/validator-ajv8';

declare const validators: ValidatorFunctions;
export default validators;
`,
    );
  }
  out.set(
    'formValidators.gen.ts',
    `${config.header}import type { ValidatorFunctions } from '@rjsf/validator-ajv8';
${forms.map((f, i) => `import form${i} from './forms/${f.key}.validators.gen';`).join('\n')}

/** The precompiled validator functions of each generated form's schema, by <service>.<schema> (createPrecompiledValidator's input). */
export const formValidators: Record<string, ValidatorFunctions> = {
${forms.map((f, i) => `  ${JSON.stringify(f.key)}: form${i},`).join('\n')}
};
`,
  );

  const stale: string[] = [];
  for (const [rel, text] of out) {
    const file = path.join(root, config.outDir, rel);
    const before = await readFile(file, 'utf8').catch(() => undefined);
    if (before === text) continue;
    stale.push(rel);
    if (!check) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, text);
    }
  }
  // Files in generated/ that codegen no longer makes are stale too.
  const known = new Set(out.keys());
  for (const dir of ['', 'openapi', 'types', 'forms']) {
    const entries = await readdir(path.join(root, config.outDir, dir)).catch(() => [] as string[]);
    for (const f of entries) {
      const rel = dir ? `${dir}/${f}` : f;
      if (/\.gen\.(ts|js|d\.ts)$|\.json$/.test(f) && !known.has(rel)) stale.push(`${rel} (no longer generated)`);
    }
  }
  if (check && stale.length) {
    console.error(`generated/ is stale; run npm run codegen. Changed: ${stale.join(', ')}`);
    process.exit(1);
  }
  console.log(check ? 'generated/ is up to date' : `codegen: ${stale.length} file(s) written, ${out.size} in all`);
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
