/**
 * SpecForm renders one form a managed screen declares in the spec (`x-screen` create or edit, generated/screens.gen.ts):
 * @rjsf/mui over the declared component schema with its `uiSchema`, validated by the validator codegen compiled from
 * that schema (nothing is compiled in the browser), required fields worded "Required field" or the field's
 * `ui:options.requiredMessage`, messages shown from the first save attempt on (spec part 2 §4 Forms). A save the
 * gateway refuses keeps what was typed: each `field: message` of its `errors` list shows under that field as
 * "<Label>: message"; the rest comes back to the caller to show.
 */
import { useState } from 'react';
import Form from '@rjsf/mui';
import type { CustomValidator, ErrorSchema, ErrorTransformer, RegistryFieldsType, RegistryWidgetsType, UiSchema } from '@rjsf/utils';
import type { ScreenForm } from '../../../../generated/screens.gen';
import { useFormSchema } from './useFormSchema';
import { SHARED_WIDGETS } from './formWidgets';

type FormData = Record<string, unknown>;

/** What a refused save sends back: field errors (routed under their fields) and the rest of the text. */
export interface SaveRefusal {
  fields: Record<string, string>;
  other: string;
}

/** fieldLabel is the label a form shows for `key`: its `ui:title`, else the key with underscores as spaces. */
export function fieldLabel(form: ScreenForm, key: string): string {
  const ui = (form.uiSchema?.[key] ?? {}) as { 'ui:title'?: string };
  return ui['ui:title'] ?? key.replace(/_/g, ' ');
}

/**
 * splitRefusal routes a gateway's `errors` list (each "field: message" or free text, spec part 1 §8) to the form's
 * fields; messages naming no field of `form` (or a nested path) are joined into `other`.
 */
export function splitRefusal(form: ScreenForm, errors: string[]): SaveRefusal {
  const props = Object.keys((form.jsonSchema.properties ?? {}) as object);
  const fields: Record<string, string> = {};
  const other: string[] = [];
  for (const raw of errors) {
    const m = /^([\w]+):\s*(.*)$/.exec(raw.trim());
    if (m && props.includes(m[1]) && !fields[m[1]]) fields[m[1]] = m[2];
    else other.push(raw);
  }
  return { fields, other: other.join(', ') };
}

export interface SpecFormProps {
  form: ScreenForm;
  /** The gateway whose component schema the form edits (its validator is <service>.<schema>). */
  service: string;
  /** Its fields' ids start with this (an add form and an edit dialog of the same fields are open at once). */
  idPrefix: string;
  initial: FormData;
  /** Saves the values; resolves to nothing on success or to the refusal to show. */
  onSave: (data: FormData) => Promise<SaveRefusal | void>;
  widgets?: RegistryWidgetsType;
  fields?: RegistryFieldsType;
  /** Checks beyond the schema, by field (a message or undefined): the shared domain rules, e.g. a sending domain's. */
  check?: (data: FormData) => Record<string, string | undefined>;
  /** The buttons, given whether a save is under way (the form's submit is a `type="submit"` button among them). */
  actions: (saving: boolean) => React.ReactNode;
}

/** SpecForm is one generated form; it keeps its values across a refused save and resets to `initial` after a good one. */
export function SpecForm({ form, service, idPrefix, initial, onSave, widgets, fields, check, actions }: SpecFormProps) {
  const [formData, setFormData] = useState<FormData>(initial);
  const [attempted, setAttempted] = useState(false);
  const [saving, setSaving] = useState(false);
  const [serverErrors, setServerErrors] = useState<ErrorSchema | undefined>();
  const { schema, validator } = useFormSchema(service, form.schema, form.jsonSchema);
  const uiSchema = (form.uiSchema ?? {}) as UiSchema;

  // Words from the field's ui:options: requiredMessage for a missing field, minItemsMessage for too few choices.
  const transformErrors: ErrorTransformer = (errors) =>
    errors.map((e) => {
      const key = e.name === 'required' ? String(e.params?.missingProperty) : String(e.property ?? '').replace(/^\./, '');
      const options = ((form.uiSchema?.[key] ?? {}) as { 'ui:options'?: { requiredMessage?: string; minItemsMessage?: string } })['ui:options'];
      if (e.name === 'required') return { ...e, message: options?.requiredMessage ?? 'Required field' };
      if (e.name === 'minItems' && options?.minItemsMessage) return { ...e, message: options.minItemsMessage };
      return e;
    });

  const customValidate: CustomValidator = (data, errors) => {
    const values = (data ?? {}) as FormData;
    // An empty field is the schema's to word (required), so a check's message is added only under a filled one.
    for (const [key, message] of Object.entries(check?.(values) ?? {})) {
      if (message && values[key] !== undefined && values[key] !== '')
        (errors as Record<string, { addError: (m: string) => void } | undefined>)[key]?.addError(message);
    }
    return errors;
  };

  const submit = async (data: FormData) => {
    if (saving) return;
    setSaving(true);
    setServerErrors(undefined);
    try {
      const refusal = await onSave(data);
      if (refusal) {
        const entries = Object.entries(refusal.fields).map(([key, message]) => [key, { __errors: [`${fieldLabel(form, key)}: ${message}`] }]);
        setServerErrors(entries.length ? (Object.fromEntries(entries) as ErrorSchema) : undefined);
      } else {
        const kept = Object.fromEntries((form.keep ?? []).map((k) => [k, data[k]]));
        setFormData({ ...initial, ...kept });
        setAttempted(false);
      }
    } finally {
      setSaving(false);
    }
  };

  return (
    <Form
      idPrefix={idPrefix}
      schema={schema}
      uiSchema={uiSchema}
      formData={formData}
      validator={validator}
      widgets={{ ...SHARED_WIDGETS, ...widgets }}
      fields={fields}
      extraErrors={serverErrors}
      transformErrors={transformErrors}
      customValidate={check ? customValidate : undefined}
      showErrorList={false}
      noHtml5Validate
      liveValidate={attempted ? 'onChange' : undefined}
      onChange={(e) => {
        setFormData(e.formData as FormData);
        if (serverErrors) setServerErrors(undefined);
      }}
      onError={() => setAttempted(true)}
      onSubmit={(e) => {
        setAttempted(true);
        void submit(e.formData as FormData);
      }}
      disabled={saving}
    >
      {actions(saving)}
    </Form>
  );
}
