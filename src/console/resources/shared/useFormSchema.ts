/**
 * useFormSchema gives a generated form its rjsf schema (formSchema of the spec's component schema) and the validator
 * codegen compiled from exactly that schema (generated/formValidators.gen.ts, keyed <service>.<schema>): nothing is
 * compiled in the browser, as the console's Content-Security-Policy (no 'unsafe-eval') requires.
 */
import { useMemo } from 'react';
import { createPrecompiledValidator } from '@rjsf/validator-ajv8';
import type { RJSFSchema, ValidatorType } from '@rjsf/utils';
import { formValidators } from '../../../../generated/formValidators.gen';
import { formSchema } from './formSchema';

/** useFormSchema returns the schema and validator of component schema `schemaName` of gateway `service`. */
export function useFormSchema(service: string, schemaName: string, jsonSchema: Record<string, unknown>): { schema: RJSFSchema; validator: ValidatorType } {
  return useMemo(() => {
    const schema = formSchema(jsonSchema);
    return { schema, validator: createPrecompiledValidator(formValidators[`${service}.${schemaName}`], schema) };
  }, [service, schemaName, jsonSchema]);
}
