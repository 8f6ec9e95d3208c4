/**
 * Audience health (/account/audience-health; openapi/companyauthwrapper.yaml getAudiencePolicies and
 * setAudiencePolicies): the project's sunset policy and frequency cap, each a switch with its two numbers (switched
 * on, the suggested values fill the empty ones). Saving sends all four (null for a policy off); a refusal's lines show
 * under the fields they name. The sunset section links to the built-in segment of the contacts past the policy.
 */
import { useCallback, useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { useNotify } from 'react-admin';
import { Alert, Box, Button, Card, CardContent, FormControlLabel, Link, Stack, Switch, TextField, Typography } from '@mui/material';
import { callOperation } from '../data/gateway';
import { LoadStatus } from './LoadStatus';
import {
  POLICY_FIELDS,
  policyBody,
  policyErrors,
  switchPolicy,
  toPolicyForm,
  type AudiencePolicies,
  type PolicyErrors,
  type PolicyForm,
} from './audienceHealth';

/** The segments list, where the built-in sunset segment is (its own edit page once its id is known). */
const SEGMENTS_PATH = '/people/segments';

/** useSunsetSegmentPath is the path of the built-in sunset segment's page, or the segments list while it is not found. */
function useSunsetSegmentPath(reloadKey: unknown): string {
  const [path, setPath] = useState(SEGMENTS_PATH);
  useEffect(() => {
    let live = true;
    callOperation('listSegments', { query: { names: 'sunset', with_counts: false, limit: 100 } }).then(
      (r) => {
        const found = r.data.find((s) => s.built_in === 'sunset');
        if (live) setPath(found ? `${SEGMENTS_PATH}/edit/${found.id}` : SEGMENTS_PATH);
      },
      () => undefined, // the link then opens the segments list, where the segment is too
    );
    return () => {
      live = false;
    };
  }, [reloadKey]);
  return path;
}

/** PolicySection is one policy's card: its heading, switch, explanation and (switched on) its two numbers. */
function PolicySection({
  which,
  title,
  on,
  form,
  errors,
  explanation,
  onSwitch,
  onValue,
}: {
  which: 'sunset' | 'frequency';
  title: string;
  on: boolean;
  form: PolicyForm;
  errors: PolicyErrors;
  explanation: ReactNode;
  onSwitch: (on: boolean) => void;
  onValue: (field: keyof AudiencePolicies, value: string) => void;
}) {
  const headingId = `audience-${which}-heading`;
  return (
    <Card component="section" aria-labelledby={headingId} data-testid={`policy-${which}`}>
      <CardContent>
        <Stack spacing={2}>
          <Typography variant="h6" component="h2" id={headingId}>
            {title}
          </Typography>
          <FormControlLabel control={<Switch checked={on} onChange={(e) => onSwitch(e.target.checked)} />} label={`${title}: ${on ? 'on' : 'off'}`} />
          <Box>{explanation}</Box>
          {on && (
            <Box sx={{ display: 'grid', gap: 2, gridTemplateColumns: { xs: 'minmax(0, 1fr)', sm: 'repeat(2, minmax(0, 240px))' } }}>
              {POLICY_FIELDS[which].map(({ field, label, min, max, unit }) => (
                <TextField
                  key={field}
                  id={`audience-${field}`}
                  label={label}
                  value={form.values[field]}
                  onChange={(e) => onValue(field, e.target.value)}
                  error={!!errors[field]}
                  helperText={errors[field] ?? `${min} to ${max} ${unit}`}
                  slotProps={{ htmlInput: { inputMode: 'numeric' } }}
                  size="small"
                />
              ))}
            </Box>
          )}
        </Stack>
      </CardContent>
    </Card>
  );
}

/** AudienceHealthPage is /account/audience-health: the sunset policy and frequency cap, read and saved through the API. */
export function AudienceHealthPage() {
  const notify = useNotify();
  const [form, setForm] = useState<PolicyForm | null>(null);
  const [suggested, setSuggested] = useState<AudiencePolicies | null>(null);
  const [loadError, setLoadError] = useState('');
  const [errors, setErrors] = useState<PolicyErrors>({});
  const [busy, setBusy] = useState(false);
  const [savedCount, setSavedCount] = useState(0);
  const segmentPath = useSunsetSegmentPath(savedCount);

  const load = useCallback(() => {
    setLoadError('');
    callOperation('getAudiencePolicies').then(
      (r) => {
        setForm(toPolicyForm(r.data));
        setSuggested(r.suggested);
      },
      (e: Error) => setLoadError(e.message),
    );
  }, []);
  useEffect(load, [load]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!form) return;
    const { body, errors: invalid } = policyBody(form);
    setErrors(invalid);
    if (!body) return;
    setBusy(true);
    try {
      const saved = await callOperation('setAudiencePolicies', { body });
      setForm(toPolicyForm(saved.data));
      setSavedCount((n) => n + 1);
      notify('Audience health settings saved', { type: 'success' });
    } catch (e) {
      setErrors(policyErrors(e));
    } finally {
      setBusy(false);
    }
  };

  const value = (field: keyof AudiencePolicies) => form?.values[field].trim() || String(suggested?.[field] ?? '') || '…';
  const setValue = (field: keyof AudiencePolicies, v: string) => form && setForm({ ...form, values: { ...form.values, [field]: v } });
  const toggle = (which: 'sunset' | 'frequency') => (on: boolean) => form && suggested && setForm(switchPolicy(form, which, on, suggested));

  return (
    <Stack spacing={2}>
      <Typography variant="h5" component="h1">
        Audience health
      </Typography>
      <Typography>Keep marketing email to people who want it: stop mailing contacts who never engage, and limit how much mail each contact gets.</Typography>
      <LoadStatus
        rows={form ? [form] : null}
        error={loadError && `Couldn’t load the audience health settings: ${loadError}`}
        onRetry={load}
        loadingLabel="Loading audience health settings"
        emptyText=""
      />
      {form && (
        <Box component="form" onSubmit={submit} noValidate aria-label="Audience health settings" sx={{ display: 'grid', gap: 2, minWidth: 0 }}>
          <PolicySection
            which="sunset"
            title="Sunset policy"
            on={form.sunsetOn}
            form={form}
            errors={errors}
            onSwitch={toggle('sunset')}
            onValue={setValue}
            explanation={
              <>
                <Typography>
                  {`Stop sending marketing email to contacts who have not opened or clicked in ${value('sunset_days')} days after at least ${value(
                    'sunset_min_emails',
                  )} emails. A re-engagement blast reaches them once.`}
                </Typography>
                <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
                  While the policy is on, those contacts are listed in a{' '}
                  <Link component={RouterLink} to={segmentPath}>
                    built-in segment on the Segments page
                  </Link>
                  , kept up to date by the product.
                </Typography>
              </>
            }
          />
          <PolicySection
            which="frequency"
            title="Frequency cap"
            on={form.frequencyOn}
            form={form}
            errors={errors}
            onSwitch={toggle('frequency')}
            onValue={setValue}
            explanation={
              <Typography>
                {`Send each contact at most ${value('frequency_cap_emails')} marketing emails in ${value(
                  'frequency_cap_days',
                )} days, over blasts and workflows. Transactional email is never capped.`}
              </Typography>
            }
          />
          {errors.form && <Alert severity="error">{errors.form}</Alert>}
          <Box>
            <Button type="submit" variant="contained" disabled={busy}>
              {busy ? 'Saving…' : 'Save'}
            </Button>
          </Box>
        </Box>
      )}
    </Stack>
  );
}
