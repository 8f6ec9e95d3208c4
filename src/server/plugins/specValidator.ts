/**
 * One compiled OpenAPI meta-schema per process (a faster start). fastify-openapi-glue checks each
 * gateway's document against the OpenAPI meta-schema with a new @seriousme/openapi-schema-validator Validator, and
 * each Validator compiles that large schema with a new ajv: with one gateway per service it was compiled once per
 * gateway, most of buildApp's time (figures: docs/bench-log.md, `npm run bench:startup`). The compiled checker is a
 * pure function of the document, so every Validator may share the one compiled for a version; each document is still
 * checked.
 */
import { Validator } from '@seriousme/openapi-schema-validator';

/** The part of Validator this patches (not in its published types): the compiled meta-schema checker of a version. */
interface WithAjvValidator {
  getAjvValidator(this: unknown, version: string): unknown;
}

let shared = false;

/**
 * shareSpecValidator makes every Validator reuse the meta-schema checker compiled first for each OpenAPI version, once
 * per process (later calls do nothing). Without the method (another version of the package), it changes nothing.
 */
export function shareSpecValidator(): void {
  if (shared) return;
  shared = true;
  const proto = Validator.prototype as unknown as Partial<WithAjvValidator>;
  const compile = proto.getAjvValidator;
  if (typeof compile !== 'function') return;
  const compiled = new Map<string, unknown>();
  proto.getAjvValidator = function (this: unknown, version: string) {
    if (!compiled.has(version)) compiled.set(version, compile.call(this, version));
    return compiled.get(version);
  };
}
