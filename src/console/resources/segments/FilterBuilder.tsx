/**
 * The filter builder (spec part 2 §3 Filters, §4 Segment, §5 Segment): rows of attribute, operator and
 * values over the catalog of src/domain/segmentFilter.ts, always with one blank trailing row (blank rows are stripped
 * on every change). Value inputs follow the value types: text, a date, a whole number of at least 0, or a picker for
 * a template, an email blast or a segment (campaigns and workflows are typed as ids until their gateways exist). The
 * same component will serve the workflow editor's filter nodes.
 */
import { useEffect, useState } from 'react';
import { Autocomplete, Box, Checkbox, FormControlLabel, IconButton, MenuItem, Stack, TextField, Tooltip } from '@mui/material';
import DeleteIcon from '@mui/icons-material/Delete';
import {
  FILTER_ATTRIBUTES,
  OPERATORS,
  normalizeRows,
  operatorLabel,
  countsMachines,
  valueTypes,
  type BuilderRow,
  type Conjunction,
  type FilterOperator,
  type ValueType,
} from '../../../domain/segmentFilter';
import { callOperationUnchecked } from '../../data/gateway';

/** The words shown for each attribute. */
export const ATTRIBUTE_LABELS: Record<string, string> = {
  contact_email: 'Email',
  contact_first_name: 'First name',
  contact_last_name: 'Last name',
  contact_city: 'City',
  contact_state: 'State',
  contact_json: 'Metadata (json) key',
  contact_date_of_birth: 'Date of birth',
  date_added: 'Date added',
  date_bounced: 'Date bounced',
  date_unsubscribed: 'Date unsubscribed',
  date_workflow_started: 'Date workflow started',
  date_workflow_completed: 'Date workflow completed',
  num_in_segment: 'Number of times in segment',
  is_in_segment: 'Is in segment',
  is_subscribed_to_topic: 'Is subscribed to topic',
  ...Object.fromEntries(
    ['sends', 'opens', 'clicks'].flatMap((n) => [
      [`num_${n}`, `Number of ${n}`],
      [`num_${n}_via_campaign`, `Number of ${n} via campaign`],
      [`num_${n}_via_scheduled_email_blast`, `Number of ${n} via email blast`],
      [`num_${n}_via_workflow`, `Number of ${n} via workflow`],
      [`num_${n}_with_template`, `Number of ${n} with template`],
    ]),
  ),
};

const PICKERS: Partial<Record<ValueType, { op: 'listTemplates' | 'listEmailBlasts' | 'listSegments' | 'listTopics'; label: string }>> = {
  topic_id: { op: 'listTopics', label: 'Topic' },
  template_id: { op: 'listTemplates', label: 'Template' },
  scheduled_email_blast_id: { op: 'listEmailBlasts', label: 'Email blast' },
  segment_id: { op: 'listSegments', label: 'Segment' },
};
const ID_LABELS: Record<string, string> = { campaign_id: 'Campaign id', workflow_id: 'Workflow id' };

/** The spec's text for a picker whose options could not be fetched (part 2 §5 Segment). */
export const FILTER_INPUT_TROUBLE = "We're having trouble loading this filter input";

interface Option {
  id: string;
  name: string;
}

function IdPicker({ type, value, onChange, label }: { type: ValueType; value: string; onChange: (v: string) => void; label: string }) {
  const picker = PICKERS[type]!;
  const [options, setOptions] = useState<Option[] | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    const query = picker.op === 'listSegments' ? { limit: 100, with_counts: false } : picker.op === 'listTopics' ? {} : { limit: 100 };
    callOperationUnchecked(picker.op, { query })
      .then((b) => {
        const rows = (b as { data: Array<{ id: unknown; name?: string }> }).data;
        if (live) setOptions(rows.map((r) => ({ id: String(r.id), name: r.name || String(r.id) })));
      })
      .catch(() => {
        if (live) setFailed(true);
      });
    return () => {
      live = false;
    };
  }, [picker.op]);
  if (failed) return <TextField size="small" label={label} value={value} onChange={(e) => onChange(e.target.value)} error helperText={FILTER_INPUT_TROUBLE} />;
  const selected = options?.find((o) => o.id === value) ?? null;
  return (
    <Autocomplete
      size="small"
      sx={{ minWidth: 220 }}
      loading={options === null}
      options={options ?? []}
      value={selected}
      getOptionLabel={(o) => o.name}
      isOptionEqualToValue={(a, b) => a.id === b.id}
      onChange={(_, o) => onChange(o?.id ?? '')}
      renderInput={(params) => <TextField {...params} label={label} />}
    />
  );
}

function ValueInput({
  type,
  value,
  onChange,
  attribute,
  index,
}: {
  type: ValueType;
  value: string;
  onChange: (v: string) => void;
  attribute: string;
  index: number;
}) {
  if (PICKERS[type]) return <IdPicker type={type} value={value} onChange={onChange} label={PICKERS[type]!.label} />;
  if (type === 'date') {
    return (
      <TextField size="small" type="date" label="Date" value={value} onChange={(e) => onChange(e.target.value)} slotProps={{ inputLabel: { shrink: true } }} />
    );
  }
  if (type === 'number') {
    return (
      <TextField
        size="small"
        type="number"
        label="Number"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        slotProps={{ htmlInput: { min: 0, step: 1 } }}
        sx={{ width: 120 }}
      />
    );
  }
  const label = ID_LABELS[type] ?? (attribute === 'contact_json' && index === 0 ? 'Key' : 'Value');
  return <TextField size="small" label={label} value={value} onChange={(e) => onChange(e.target.value)} />;
}

/** JoinSelect picks how filters combine (spec part 2 §9: 'and' matches every filter, 'or' any). */
export function JoinSelect({ value, onChange }: { value: Conjunction; onChange: (v: Conjunction) => void }) {
  return (
    <TextField select size="small" label="Join" value={value} sx={{ maxWidth: 300 }} onChange={(e) => onChange(e.target.value as Conjunction)}>
      <MenuItem value="and">and (match every filter)</MenuItem>
      <MenuItem value="or">or (match any filter)</MenuItem>
    </TextField>
  );
}

/** FilterBuilder edits `rows` (always normalised: blank rows stripped, one blank row last) over `attributes`. */
export function FilterBuilder({ rows, onChange, attributes }: { rows: BuilderRow[]; onChange: (rows: BuilderRow[]) => void; attributes: readonly string[] }) {
  const set = (i: number, row: BuilderRow) => onChange(normalizeRows(rows.map((r, k) => (k === i ? row : r))));
  return (
    <Stack spacing={1.5} role="list" aria-label="Filters">
      {rows.map((row, i) => {
        const spec = FILTER_ATTRIBUTES[row.attribute];
        const ops = spec ? OPERATORS[spec.kind] : [];
        const types = spec ? valueTypes(spec, (row.operator || undefined) as FilterOperator | undefined) : [];
        const blank = i === rows.length - 1;
        return (
          <Stack
            key={i}
            role="listitem"
            direction={{ xs: 'column', md: 'row' }}
            spacing={1}
            sx={{ alignItems: { md: 'center' } }}
            data-testid={`filter-row-${i + 1}`}
          >
            <TextField
              select
              size="small"
              label={`Filter ${i + 1}`}
              value={row.attribute}
              sx={{ minWidth: 260 }}
              onChange={(e) => set(i, { attribute: e.target.value, operator: '', values: [] })}
            >
              {attributes.map((a) => (
                <MenuItem key={a} value={a}>
                  {ATTRIBUTE_LABELS[a] ?? a}
                </MenuItem>
              ))}
            </TextField>
            {spec && spec.kind !== 'membership' && (
              <TextField
                select
                size="small"
                label="Operator"
                value={row.operator}
                sx={{ minWidth: 170 }}
                onChange={(e) => set(i, { ...row, operator: e.target.value, values: row.values.slice(0, spec.keys.length) })}
              >
                {ops.map((op) => (
                  <MenuItem key={op} value={op}>
                    {operatorLabel(op, spec.kind)}
                  </MenuItem>
                ))}
              </TextField>
            )}
            {spec &&
              types.map((type, k) => (
                <ValueInput
                  key={`${row.attribute}-${k}`}
                  type={type}
                  value={row.values[k] ?? ''}
                  attribute={row.attribute}
                  index={k}
                  onChange={(v) => {
                    const values = [...row.values];
                    values[k] = v;
                    set(i, { ...row, values });
                  }}
                />
              ))}
            {spec && countsMachines(row.attribute) && (
              <FormControlLabel
                control={<Checkbox size="small" checked={!!row.includeMachine} onChange={(e) => set(i, { ...row, includeMachine: e.target.checked })} />}
                label="Include machine opens"
              />
            )}
            {!blank && (
              <Box>
                <Tooltip title={`Remove filter ${i + 1}`}>
                  <IconButton aria-label={`Remove filter ${i + 1}`} onClick={() => onChange(normalizeRows(rows.filter((_, k) => k !== i)))}>
                    <DeleteIcon />
                  </IconButton>
                </Tooltip>
              </Box>
            )}
          </Stack>
        );
      })}
    </Stack>
  );
}
