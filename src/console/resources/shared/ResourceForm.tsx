/**
 * The generic create/edit form of a generated resource (STYLE.md items 1 and 3): rendered by @rjsf/mui from the
 * definition's `form.jsonSchema` and `uiSchema`, checked with the shared domain rules, messages shown only after the
 * first save attempt (spec part 2 §4 Forms); saves through the dataProvider and then goes to the edit route.
 */
import { useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useCreate, useGetOne, useNotify, useUpdate, type RaRecord } from 'react-admin';
import Form from '@rjsf/mui';
import type { CustomValidator, ErrorTransformer, RegistryFieldsType, RegistryWidgetsType, UiSchema } from '@rjsf/utils';
import { Alert, Box, Card, CardContent, Stack, Typography } from '@mui/material';
import type { ResourceDefinition } from '../../../../generated/resources.gen';
import { useFormSchema } from './useFormSchema';
import { checkEmail, checkRequired } from '../../../domain/validation';
import { Loading } from '../../layout/ConsoleLayout';
import { saveWarnings } from '../../data/dataProvider';
import { KeyValueField, SHARED_WIDGETS } from './formWidgets';

type FormData = Record<string, unknown>;

export interface ResourceFormProps {
  definition: ResourceDefinition;
  /** The singular entity for titles and messages, e.g. 'contact'. */
  entity: string;
  mode: 'create' | 'edit';
  /** Fields checked with checkEmail (spec part 1 §5 Email). */
  emailFields?: string[];
  /** Fields checked with checkRequired beyond the schema's own. */
  requiredFields?: string[];
  /** Disable Save while an email field is invalid (spec part 2 §5 Sender persona). */
  disableSaveWhileEmailInvalid?: boolean;
  /** Content under the form, e.g. advice. */
  children?: React.ReactNode;
  /** Actions beside the heading (flex items of its row, which wraps on a narrow screen), e.g. a contact's privacy actions. */
  actions?: React.ReactNode;
  /** The New form's first values (default none). */
  initialNew?: FormData;
  /** Makes the record saved from the form's values (default: the values the input schema allows). */
  toRecord?: (data: FormData) => FormData;
  /** Checks beyond the schema and the email and required fields, as rjsf's customValidate. */
  validate?: CustomValidator;
  /** Widgets and fields the form's uiSchema names beyond the shared ones (SHARED_WIDGETS, keyValue). */
  widgets?: RegistryWidgetsType;
  fields?: RegistryFieldsType;
  /** Let the page use the console's full width (the form's card stays narrow), for wide content under the form. */
  wide?: boolean;
  /** Called after a successful save with what was submitted and what the server saved (e.g. to explain a rewrite). */
  afterSave?: (submitted: FormData, saved: RaRecord) => void;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** pickSchemaFields keeps only the keys the input schema allows (its additionalProperties is false). */
export function pickSchemaFields(record: FormData, schema: Record<string, unknown>): FormData {
  const props = (schema.properties ?? {}) as Record<string, unknown>;
  const out: FormData = {};
  for (const key of Object.keys(props)) if (record[key] !== undefined) out[key] = record[key];
  return out;
}

function EditorForm({
  definition,
  entity,
  mode,
  emailFields = [],
  requiredFields = [],
  disableSaveWhileEmailInvalid,
  afterSave,
  initial,
  recordId,
  toRecord,
  validate,
  widgets,
  fields,
}: ResourceFormProps & { initial: FormData; recordId?: string }) {
  const form = definition.form!;
  const navigate = useNavigate();
  const notify = useNotify();
  const [create, { isPending: creating }] = useCreate();
  const [update, { isPending: updating }] = useUpdate();
  const [formData, setFormData] = useState<FormData>(initial);
  const [attempted, setAttempted] = useState(false);
  const saving = creating || updating;

  const { schema, validator } = useFormSchema(definition.service, form.schema, form.jsonSchema);

  const emailInvalid = emailFields.some((f) => checkEmail(formData[f]) !== undefined);
  // disableSaveUntilValid: a blank required field, or (editing) nothing changed yet, keeps Save disabled.
  const required = [...requiredFields, ...((form.jsonSchema.required as string[] | undefined) ?? [])];
  const notReady =
    !!form.disableSaveUntilValid &&
    (required.some((f) => checkRequired(formData[f]) !== undefined) ||
      (mode === 'edit' && JSON.stringify(pickSchemaFields(formData, form.jsonSchema)) === JSON.stringify(pickSchemaFields(initial, form.jsonSchema))));
  const submitLabel = (mode === 'edit' ? (form.submitLabelEdit ?? form.submitLabel) : form.submitLabel) ?? 'Save';
  const uiSchema = useMemo<UiSchema>(() => {
    const base = (form.uiSchema ?? {}) as UiSchema;
    const props = (form.jsonSchema.properties ?? {}) as Record<string, unknown>;
    const order = base['ui:order'] as string[] | undefined;
    return {
      ...base,
      ...(order && !order.includes('*') ? { 'ui:order': [...order, '*'] } : {}),
      ...(props.id ? { id: { 'ui:widget': 'hidden' } } : {}),
      ...(props.json ? { json: { ...(base.json as object), 'ui:field': 'keyValue' } } : {}),
      'ui:submitButtonOptions': {
        submitText: saving ? 'Saving…' : submitLabel,
        props: { disabled: saving || notReady || (disableSaveWhileEmailInvalid && emailInvalid) },
      },
    };
  }, [form, saving, submitLabel, notReady, disableSaveWhileEmailInvalid, emailInvalid]);

  const customValidate: CustomValidator = (data, errors) => {
    const d = (data ?? {}) as FormData;
    for (const f of emailFields) {
      const message = checkEmail(d[f]);
      if (message) (errors as Record<string, { addError: (m: string) => void }>)[f]?.addError(message);
    }
    for (const f of requiredFields) {
      const message = checkRequired(d[f]);
      if (message) (errors as Record<string, { addError: (m: string) => void }>)[f]?.addError(message);
    }
    return validate ? validate(data, errors) : errors;
  };

  const transformErrors: ErrorTransformer = (errors) =>
    errors
      .filter((e) => !(e.name === 'required' && emailFields.concat(requiredFields).includes(String(e.params?.missingProperty))))
      .map((e) => (e.name === 'required' ? { ...e, message: 'Required field' } : e));

  const onSaved = (submitted: FormData) => (saved: RaRecord) => {
    const warnings = saveWarnings(saved);
    if (warnings.length) notify(`Saved ${entity}, but: ${warnings.join('; ')}`, { type: 'warning', autoHideDuration: 15_000 });
    else notify(mode === 'edit' && form.savedEdit ? form.savedEdit : `Successfully saved ${entity}`, { type: 'success' });
    afterSave?.(submitted, saved);
    const target = (form.redirectAfterSave ?? `${definition.route}/edit/{id}`).replace('{id}', String(saved.id));
    navigate(target, { replace: mode === 'edit' });
  };
  const onFailed = (error: unknown) => notify(`Couldn't save ${entity}: ${(error as Error)?.message ?? error}`, { type: 'error' });

  const submit = (data: FormData) => {
    setAttempted(true);
    const payload = toRecord ? toRecord(data) : pickSchemaFields(data, form.jsonSchema);
    if (mode === 'edit') {
      update(
        definition.name,
        { id: recordId ?? (initial.id as string), data: payload, previousData: initial as RaRecord },
        {
          mutationMode: 'pessimistic',
          onSuccess: onSaved(payload),
          onError: onFailed,
        },
      );
    } else {
      create(definition.name, { data: payload }, { onSuccess: onSaved(payload), onError: onFailed });
    }
  };

  return (
    <Form
      schema={schema}
      uiSchema={uiSchema}
      formData={formData}
      validator={validator}
      widgets={{ ...SHARED_WIDGETS, ...widgets }}
      fields={{ keyValue: KeyValueField, ...fields }}
      customValidate={customValidate}
      transformErrors={transformErrors}
      showErrorList={false}
      noHtml5Validate
      liveValidate={attempted ? 'onChange' : undefined}
      onChange={(e) => setFormData(e.formData as FormData)}
      onError={() => setAttempted(true)}
      onSubmit={(e) => submit(e.formData as FormData)}
      disabled={saving}
    />
  );
}

/** initialFormData picks the schema's fields from a loaded record and shows date-widget values as YYYY-MM-DD. */
function initialFormData(definition: ResourceDefinition, record: FormData | undefined): FormData {
  if (!record) return {};
  const form = definition.form!;
  const data = pickSchemaFields(record, form.jsonSchema);
  const ui = (form.uiSchema ?? {}) as Record<string, { 'ui:widget'?: string } | undefined>;
  for (const [key, value] of Object.entries(data)) {
    if (value === null) delete data[key];
    else if (ui[key]?.['ui:widget'] === 'date' && typeof value === 'string') data[key] = value.slice(0, 10);
  }
  return data;
}

/** ResourceForm renders the New or Edit screen of a resource; the edit route loads the record first (getOne). */
export function ResourceForm(props: ResourceFormProps) {
  const { definition, entity, mode, children, wide, actions } = props;
  const { id } = useParams();
  const { data, isPending, error } = useGetOne(definition.name, { id: id ?? '' }, { enabled: mode === 'edit' && !!id });
  const title = mode === 'edit' ? (definition.form?.titleEdit ?? `Edit ${capitalise(entity)}`) : (definition.form?.titleNew ?? `New ${capitalise(entity)}`);

  let body: React.ReactNode;
  if (mode === 'edit' && isPending) body = <Loading />;
  else if (mode === 'edit' && (error || !data)) {
    body = (
      <Alert severity="error">
        Couldn't fetch {entity}: {(error as Error | null)?.message ?? 'not found'}
      </Alert>
    );
  } else {
    body = (
      <EditorForm
        key={String(data?.id ?? 'new')}
        {...props}
        recordId={mode === 'edit' ? String(data?.id) : undefined}
        initial={mode === 'edit' ? initialFormData(definition, data as FormData) : (props.initialNew ?? {})}
      />
    );
  }

  return (
    <Box sx={{ maxWidth: wide ? undefined : 720 }}>
      {actions ? (
        <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 2, flexWrap: 'wrap', gap: 1 }}>
          <Typography variant="h5" component="h1">
            {title}
          </Typography>
          {actions}
        </Stack>
      ) : (
        <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
          {title}
        </Typography>
      )}
      <Card variant="outlined" sx={{ maxWidth: 720 }}>
        <CardContent>{body}</CardContent>
      </Card>
      {children}
    </Box>
  );
}
