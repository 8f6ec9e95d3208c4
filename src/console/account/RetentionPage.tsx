/**
 * Data retention (/account/retention; openapi/companyauthwrapper.yaml getRetention and setRetention): how long the
 * project keeps its raw events, stored copies of sent emails, sign-ups never confirmed and its job log — each for ever
 * or a number of days from 1 to 3650. Saving sends all four; the server's field errors are shown under their fields.
 */
import { LoadStatus } from './LoadStatus';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useNotify } from 'react-admin';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  FormControl,
  FormControlLabel,
  FormLabel,
  Radio,
  RadioGroup,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import type { OperationResponse } from '../data/apiTypes';
import { callOperation } from '../data/gateway';

type Retention = OperationResponse<'getRetention'>['data'];
type RetentionField = keyof Retention;

/** The smallest and largest number of days a setting may take (1 day to 10 years). */
const MIN_DAYS = 1;
const MAX_DAYS = 3650;

/** The four settings, in the order shown, with their labels and one-line explanations. */
const SETTINGS: Array<{ field: RetentionField; label: string; explanation: string }> = [
  { field: 'events_days', label: 'Raw events', explanation: 'Opens, clicks, sends and your events. Reports keep their figures.' },
  { field: 'copies_days', label: 'Stored copies of sent emails', explanation: 'The copy of each email as it was sent.' },
  { field: 'unconfirmed_days', label: 'Sign-ups never confirmed', explanation: 'Deleted with their consent records.' },
  { field: 'job_log_days', label: 'Job log', explanation: 'Finished entries; running and waiting jobs stay.' },
];

/** One setting as edited: kept for ever, or for the days typed (kept as text until saved). */
interface Choice {
  forever: boolean;
  days: string;
}
type Form = Record<RetentionField, Choice>;

function toForm(r: Retention): Form {
  const choice = (v: number | null): Choice => ({ forever: v === null, days: v === null ? '' : String(v) });
  return {
    events_days: choice(r.events_days),
    copies_days: choice(r.copies_days),
    unconfirmed_days: choice(r.unconfirmed_days),
    job_log_days: choice(r.job_log_days),
  };
}

/** parseDays is the whole number of days in `text` when it is within 1–3650, else null. */
function parseDays(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return null;
  const n = Number(trimmed);
  return n >= MIN_DAYS && n <= MAX_DAYS ? n : null;
}

/** serverFieldErrors sorts the API's `errors` lines to the field each names; the rest go under `form`. */
function serverFieldErrors(error: unknown): Partial<Record<RetentionField | 'form', string>> {
  const listed = (error as { body?: { errors?: unknown } }).body?.errors;
  const lines = Array.isArray(listed) ? listed.map(String) : [(error as Error).message];
  const out: Partial<Record<RetentionField | 'form', string>> = {};
  for (const line of lines) {
    const setting = SETTINGS.find((s) => line.includes(s.field));
    const key = setting ? setting.field : 'form';
    out[key] = out[key] ? `${out[key]}; ${line}` : line;
  }
  return out;
}

/** RetentionSetting is one setting: a "Keep for ever" / "Delete after" choice and the number of days. */
function RetentionSetting({
  field,
  label,
  explanation,
  choice,
  error,
  onChange,
}: {
  field: RetentionField;
  label: string;
  explanation: string;
  choice: Choice;
  error?: string;
  onChange: (c: Choice) => void;
}) {
  const labelId = `retention-${field}-label`;
  const hintId = `retention-${field}-hint`;
  return (
    <FormControl component="fieldset" error={!!error} data-testid={`retention-${field}`} aria-describedby={hintId}>
      <FormLabel component="legend" id={labelId} sx={{ fontWeight: 500, color: 'text.primary' }}>
        {label}
      </FormLabel>
      <Typography id={hintId} variant="body2" color="text.secondary" sx={{ mb: 1 }}>
        {explanation}
      </Typography>
      <RadioGroup
        aria-labelledby={labelId}
        value={choice.forever ? 'forever' : 'days'}
        onChange={(e) => onChange({ ...choice, forever: e.target.value === 'forever' })}
        sx={{ display: 'flex', flexDirection: 'row', flexWrap: 'wrap', alignItems: 'center', columnGap: 2 }}
      >
        <FormControlLabel value="forever" control={<Radio />} label="Keep for ever" />
        <FormControlLabel value="days" control={<Radio />} label="Delete after" />
      </RadioGroup>
      <TextField
        label={`${label}: days`}
        value={choice.days}
        onChange={(e) => onChange({ forever: false, days: e.target.value })}
        disabled={choice.forever}
        inputMode="numeric"
        size="small"
        error={!!error}
        helperText={error ?? (choice.forever ? undefined : `${MIN_DAYS} to ${MAX_DAYS} days`)}
        sx={{ mt: 1, maxWidth: 240 }}
      />
    </FormControl>
  );
}

/** RetentionPage is /account/retention: the project's four retention settings, read and saved through the API. */
export function RetentionPage() {
  const notify = useNotify();
  const [form, setForm] = useState<Form | null>(null);
  const [loadError, setLoadError] = useState('');
  const [errors, setErrors] = useState<Partial<Record<RetentionField | 'form', string>>>({});
  const [busy, setBusy] = useState(false);

  const load = useCallback(() => {
    setLoadError('');
    callOperation('getRetention').then(
      (r) => setForm(toForm(r.data)),
      (e: Error) => setLoadError(e.message),
    );
  }, []);
  useEffect(load, [load]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!form) return;
    const body = {} as Retention;
    const invalid: Partial<Record<RetentionField, string>> = {};
    for (const { field, label } of SETTINGS) {
      const c = form[field];
      if (c.forever) {
        body[field] = null;
        continue;
      }
      const days = parseDays(c.days);
      if (days === null) invalid[field] = `${label}: enter a whole number of days from ${MIN_DAYS} to ${MAX_DAYS}`;
      else body[field] = days;
    }
    if (Object.keys(invalid).length > 0) {
      setErrors(invalid);
      return;
    }
    setBusy(true);
    setErrors({});
    try {
      const saved = await callOperation('setRetention', { body });
      setForm(toForm(saved.data));
      notify('Retention settings saved', { type: 'success' });
    } catch (e) {
      setErrors(serverFieldErrors(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack spacing={2}>
      <Typography variant="h5" component="h1">
        Data retention
      </Typography>
      <Typography>
        Choose how long this project keeps each kind of data. Retention runs nightly and deletes what is older than you chose; old months of events are dropped
        as a whole.
      </Typography>
      <LoadStatus
        rows={form ? [form] : null}
        error={loadError && `Couldn’t load the retention settings: ${loadError}`}
        onRetry={load}
        loadingLabel="Loading retention settings"
        emptyText=""
      />
      {form && (
        <Card>
          <CardContent>
            <Box component="form" onSubmit={submit} noValidate aria-label="Retention settings" sx={{ display: 'grid', gap: 3 }}>
              {SETTINGS.map((s) => (
                <RetentionSetting key={s.field} {...s} choice={form[s.field]} error={errors[s.field]} onChange={(c) => setForm({ ...form, [s.field]: c })} />
              ))}
              {errors.form && <Alert severity="error">{errors.form}</Alert>}
              <Box>
                <Button type="submit" variant="contained" disabled={busy}>
                  Save
                </Button>
              </Box>
            </Box>
          </CardContent>
        </Card>
      )}
    </Stack>
  );
}
