/**
 * SpecFields renders a resource form's fields from the spec (its `x-resource` form: component schema and uiSchema)
 * without a form element or a submit button, for an editor whose own Save covers more than these fields (the
 * template editor, whose designer is not a form field). The caller holds the values and the error texts (its own
 * checks, shown under each field); ids are `<idPrefix>-<field>`. Fields with `ui:options.showWhen` show only while
 * the other fields hold those values.
 */

import Form from '@rjsf/mui';
import type { ErrorSchema, UiSchema } from '@rjsf/utils';
import type { ResourceDefinition } from '../../../../generated/resources.gen';
import { shownFields } from './formSchema';
import { useFormSchema } from './useFormSchema';
import { SHARED_WIDGETS } from './formWidgets';

type Values = Record<string, unknown>;

export interface SpecFieldsProps {
  definition: ResourceDefinition;
  idPrefix: string;
  values: Values;
  /** Each field's error text, or undefined when it is fine. */
  errors: Record<string, string | undefined>;
  onChange: (values: Values) => void;
}

/** SpecFields is the generated fields of `definition.form`; see the module comment. */
export function SpecFields({ definition, idPrefix, values, errors, onChange }: SpecFieldsProps) {
  const form = definition.form!;
  const { schema, validator } = useFormSchema(definition.service, form.schema, form.jsonSchema);
  const uiSchema = { ...shownFields(form.uiSchema, values), 'ui:submitButtonOptions': { norender: true } } as UiSchema;
  const shown = Object.entries(errors).filter(([, message]) => message);
  const extraErrors = shown.length ? (Object.fromEntries(shown.map(([key, message]) => [key, { __errors: [message] }])) as ErrorSchema) : undefined;
  return (
    <Form
      tagName="div"
      idPrefix={idPrefix}
      idSeparator="-"
      schema={schema}
      uiSchema={uiSchema}
      formData={values}
      validator={validator}
      widgets={SHARED_WIDGETS}
      extraErrors={extraErrors}
      showErrorList={false}
      noHtml5Validate
      onChange={(e) => onChange(e.formData as Values)}
    />
  );
}
