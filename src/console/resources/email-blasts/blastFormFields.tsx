/**
 * The custom rjsf parts of the generated New Email Blast form (openapi/scheduler.yaml, x-resource form EmailBlastForm;
 * spec part 2 §5 Email blast): the schedule field (Send now, or a send date, a send time every 15 minutes or typed,
 * and a timezone that may be the contact's own), and the segments and contacts pickers. The form's
 * checks and its body are blastForm.ts's.
 */
import { useEffect, useMemo, useState } from 'react';
import { useGetList, useGetMany, type RaRecord } from 'react-admin';
import type { FieldProps, WidgetProps } from '@rjsf/utils';
import { Autocomplete, Checkbox, FormControlLabel, Stack, TextField } from '@mui/material';
import { timezoneOptions } from '../../../domain/sendTime';
import type { BlastSchedule } from './blastForm';
import { SEARCH_DEBOUNCE_MS } from '../shared/SearchBox';
import { TIME_OPTIONS } from './timeInput';

/** BlastScheduleField is the schedule: Send now, or date, time and timezone (hidden while Send now is ticked). */
export function BlastScheduleField({ formData, onChange, fieldPathId, errorSchema, disabled }: FieldProps) {
  const s = (formData ?? {}) as BlastSchedule;
  const zones = useMemo(() => timezoneOptions(), []);
  const timeLabels = useMemo(() => TIME_OPTIONS.map((o) => o.label), []);
  const set = (part: Partial<BlastSchedule>) => onChange({ ...s, ...part }, fieldPathId.path);
  const errorOf = (part: string) => (errorSchema as Record<string, { __errors?: string[] }> | undefined)?.[part]?.__errors?.[0];
  return (
    <Stack spacing={1}>
      <FormControlLabel
        control={<Checkbox checked={!!s.send_now} disabled={disabled} onChange={(e) => set({ send_now: e.target.checked })} />}
        label="Send now (as soon as it is saved)"
      />
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ display: s.send_now ? 'none' : undefined }}>
        <TextField
          id="blast-send-date"
          label="Send date"
          type="date"
          value={s.date ?? ''}
          onChange={(e) => set({ date: e.target.value })}
          required
          error={!!errorOf('date')}
          helperText={errorOf('date')}
          slotProps={{ inputLabel: { shrink: true } }}
          sx={{ minWidth: 180 }}
        />
        <Autocomplete
          id="blast-send-time"
          freeSolo
          options={timeLabels}
          inputValue={s.time ?? ''}
          onInputChange={(_, v) => set({ time: v })}
          sx={{ minWidth: 180 }}
          renderInput={(params) => <TextField {...params} label="Send time" required error={!!errorOf('time')} helperText={errorOf('time')} />}
        />
        <Autocomplete
          id="blast-timezone"
          options={zones}
          value={s.timezone ?? null}
          onChange={(_, v) => set({ timezone: v ?? undefined })}
          sx={{ flexGrow: 1, minWidth: 240 }}
          renderInput={(params) => <TextField {...params} label="Timezone" required error={!!errorOf('timezone')} helperText={errorOf('timezone')} />}
        />
      </Stack>
    </Stack>
  );
}

/** SegmentsWidget picks segments by name, each shown with its member count. */
export function SegmentsWidget({ id, value, onChange, label, rawErrors }: WidgetProps) {
  const { data = [], isPending } = useGetList('segments', { pagination: { page: 1, perPage: 1000 }, sort: { field: 'name', order: 'ASC' } });
  const chosen = data.filter((s) => ((value as string[] | undefined) ?? []).includes(String(s.id)));
  return (
    <Autocomplete
      id={id}
      multiple
      options={data}
      loading={isPending}
      value={chosen}
      filterSelectedOptions
      isOptionEqualToValue={(a, b) => a.id === b.id}
      getOptionLabel={(s) => `${s.name} (${s.num_users ?? 0})`}
      onChange={(_, v) => onChange(v.map((s) => String(s.id)))}
      renderInput={(params) => <TextField {...params} label={label} error={!!rawErrors?.length} />}
    />
  );
}

/** ContactsWidget searches contacts (the smart search of spec part 2 §5: email or name, id, date; debounced) and keeps the chosen ids. */
export function ContactsWidget({ id, value, onChange, label, rawErrors }: WidgetProps) {
  const ids = (value as string[] | undefined) ?? [];
  const [input, setInput] = useState('');
  const [query, setQuery] = useState('');
  const [known, setKnown] = useState<RaRecord[]>([]);
  useEffect(() => {
    const timer = setTimeout(() => setQuery(input.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [input]);
  const { data = [], isPending } = useGetList('contacts', {
    pagination: { page: 1, perPage: 10 },
    sort: { field: 'email', order: 'ASC' },
    filter: query ? { q: query, field: 'all' } : {},
  });
  // Chosen contacts not among the options (e.g. after a new search) are named by looking them up.
  const missing = ids.filter((i) => !known.some((c) => String(c.id) === i));
  const looked = useGetMany('contacts', { ids: missing }, { enabled: missing.length > 0 });
  const chosen = ids.map((i) => known.find((c) => String(c.id) === i) ?? looked.data?.find((c) => String(c.id) === i) ?? { id: i, email: i });
  return (
    <Autocomplete
      id={id}
      multiple
      options={data}
      value={chosen}
      loading={isPending}
      filterOptions={(x) => x}
      filterSelectedOptions
      isOptionEqualToValue={(a, b) => a.id === b.id}
      getOptionLabel={(o) => String(o.email)}
      inputValue={input}
      onInputChange={(_, v, reason) => reason !== 'reset' && setInput(v)}
      onChange={(_, v) => {
        setKnown(v);
        onChange(v.map((c) => String(c.id)));
      }}
      renderInput={(params) => <TextField {...params} label={label} placeholder="Search by email, name, id or date" error={!!rawErrors?.length} />}
    />
  );
}
