/**
 * Custom rjsf pieces for the generated forms: the timezone picker (spec part 2 §3 Contact timezone) and the metadata
 * key/value editor (spec part 2 §5 Contact: empty keys skipped, values parsed as JSON when possible, 'null' and
 * 'undefined' read as null, at most 50 pairs).
 */
import { useMemo, useState } from 'react';
import { useGetList, type RaRecord } from 'react-admin';
import type { FieldProps, WidgetProps } from '@rjsf/utils';
import { Autocomplete, Box, Button, IconButton, Stack, TextField, Typography } from '@mui/material';
import DeleteIcon from '@mui/icons-material/Delete';
import { timezoneOptions } from '../../../domain/sendTime';
import { TopicSelect } from './TopicSelect';
import { parseMetadataValue } from '../../../domain/contactImport';

/** MAX_METADATA_PAIRS is the contact form's key/value limit (spec part 2 §9). */
export const MAX_METADATA_PAIRS = 50;

/** TimezoneWidget is an autocomplete over the IANA zones (the "Contact’s local timezone" entry is left out). */
export function TimezoneWidget(props: WidgetProps) {
  const { id, value, onChange, label, required, disabled, readonly, rawErrors } = props;
  const options = useMemo(() => timezoneOptions().slice(1), []);
  return (
    <Autocomplete
      id={id}
      options={options}
      value={value ?? null}
      disabled={disabled || readonly}
      onChange={(_, v) => onChange(v ?? undefined)}
      renderInput={(params) => <TextField {...params} label={label} required={required} error={!!rawErrors?.length} helperText={rawErrors?.[0]} />}
    />
  );
}

/** personaLabel renders a sender persona as "First Last <email>". */
export function personaLabel(p: RaRecord | undefined): string {
  if (!p) return '';
  const name = [p.first_name, p.last_name].filter(Boolean).join(' ');
  return name ? `${name} <${p.email}>` : String(p.email);
}

/** The record labels a RecordSelectWidget may name in `labelBy`, beyond one field. */
const LABELS: Record<string, (r: RaRecord) => string> = { persona: personaLabel };

/**
 * RecordSelectWidget picks one record of a console resource by id, named by one of its fields (a native select, so it
 * is usable by keyboard and on a phone). `ui:options`: resource (e.g. segments), labelField (default name), sortField
 * (default labelField), emptyLabel (the empty choice's text), labelBy (a label of LABELS instead of the field).
 */
export function RecordSelectWidget(props: WidgetProps) {
  const { options } = props;
  const labelField = String(options.labelField ?? 'name');
  const list = useGetList(String(options.resource), {
    pagination: { page: 1, perPage: 1000 },
    sort: { field: String(options.sortField ?? labelField), order: 'ASC' },
  });
  const choices = (list.data ?? []).map((r) => ({ value: String(r.id), label: options.labelBy ? LABELS[String(options.labelBy)](r) : String(r[labelField]) }));
  return (
    <NativeSelect {...props} fullWidth choices={[{ value: '', label: list.isPending ? 'Loading…' : String(options.emptyLabel ?? 'Choose one') }, ...choices]} />
  );
}

const parseValue = parseMetadataValue;

function showValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

type Pair = { key: string; value: string };

/** toMetadata turns editor rows into the json object saved with the record. */
export function toMetadata(pairs: Pair[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of pairs.slice(0, MAX_METADATA_PAIRS)) if (p.key.trim()) out[p.key.trim()] = parseValue(p.value);
  return out;
}

/** KeyValueField edits a free json object as rows of key and value inputs. */
export function KeyValueField(props: FieldProps) {
  const { formData, onChange, fieldPathId, schema, uiSchema, disabled, readonly } = props;
  const [pairs, setPairs] = useState<Pair[]>(() =>
    Object.entries((formData as Record<string, unknown> | null) ?? {}).map(([key, value]) => ({ key, value: showValue(value) })),
  );
  const title = (uiSchema?.['ui:title'] as string | undefined) ?? schema.title ?? 'Metadata';
  const update = (next: Pair[]) => {
    setPairs(next);
    onChange(toMetadata(next), fieldPathId.path);
  };
  return (
    <Box component="fieldset" sx={{ border: 0, p: 0, m: 0 }}>
      <Typography component="legend" variant="subtitle1" sx={{ mb: 1 }}>
        {title}
      </Typography>
      <Stack spacing={1}>
        {pairs.map((pair, i) => (
          <Stack key={i} direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <TextField
              size="small"
              label={`Key ${i + 1}`}
              value={pair.key}
              disabled={disabled || readonly}
              onChange={(e) => update(pairs.map((p, j) => (j === i ? { ...p, key: e.target.value } : p)))}
            />
            <TextField
              size="small"
              label={`Value ${i + 1}`}
              value={pair.value}
              disabled={disabled || readonly}
              onChange={(e) => update(pairs.map((p, j) => (j === i ? { ...p, value: e.target.value } : p)))}
              sx={{ flexGrow: 1 }}
            />
            <IconButton aria-label={`Remove pair ${i + 1}`} onClick={() => update(pairs.filter((_, j) => j !== i))}>
              <DeleteIcon fontSize="small" />
            </IconButton>
          </Stack>
        ))}
        <Box>
          <Button
            size="small"
            disabled={disabled || readonly || pairs.length >= MAX_METADATA_PAIRS}
            onClick={() => setPairs([...pairs, { key: '', value: '' }])}
          >
            Add key/value pair
          </Button>
        </Box>
      </Stack>
    </Box>
  );
}

/**
 * NativeSelect is the native select the select widgets share (usable by keyboard and on a phone): `choices` in order,
 * the empty value saved as none.
 */
export function NativeSelect({
  id,
  value,
  onChange,
  label,
  required,
  disabled,
  readonly,
  rawErrors,
  choices,
  fullWidth,
}: WidgetProps & { choices: Array<{ value: string; label: string }>; fullWidth?: boolean }) {
  return (
    <TextField
      id={id}
      select
      label={label}
      value={value ?? ''}
      onChange={(e) => onChange(e.target.value || undefined)}
      required={required}
      disabled={disabled || readonly}
      fullWidth={fullWidth}
      error={!!rawErrors?.length}
      sx={fullWidth ? undefined : { minWidth: 200 }}
      slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
    >
      {choices.map((c) => (
        <option key={c.value} value={c.value}>
          {c.label}
        </option>
      ))}
    </TextField>
  );
}

/** NativeSelectWidget is a native select of the schema's enum, labelled by `ui:enumNames`. */
export function NativeSelectWidget(props: WidgetProps) {
  return <NativeSelect {...props} choices={(props.options.enumOptions ?? []).map((o) => ({ value: String(o.value), label: o.label }))} />;
}

/** TopicWidget is TopicSelect as an rjsf widget ('' is no topic, saved as none); `ui:options.noneLabel` names "none". */
export function TopicWidget({ id, value, onChange, options }: WidgetProps) {
  return <TopicSelect id={id} value={String(value ?? '')} onChange={(v) => onChange(v || undefined)} noneLabel={options.noneLabel as string | undefined} />;
}

/** The widgets every generated form may name in its uiSchema (`ui:widget`). */
export const SHARED_WIDGETS = { timezone: TimezoneWidget, recordSelect: RecordSelectWidget, nativeSelect: NativeSelectWidget, topic: TopicWidget };
