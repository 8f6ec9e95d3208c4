/**
 * Subscribe forms (/people/subscribe-forms; openapi/subscriptions.yaml): make a segment subscribable
 * through a hosted form with double opt-in — choose the segment, the sender persona that mails the confirmation link,
 * the heading and the consent text shown — and get the hosted page's link and an HTML snippet to paste into a
 * website, with each form's pending and confirmed submissions. Consent records are kept per submission.
 */
import { LoadStatus } from '../account/LoadStatus';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { useGetList, useNotify } from 'react-admin';
import { Alert, Box, Button, Card, CardContent, Link, Stack, TextField, Typography } from '@mui/material';
import type { components } from '../../../generated/types/subscriptions.gen';
import { callOperation } from '../data/gateway';
import { CopyField } from '../account/CopyField';

type Form = components['schemas']['SubscribeForm'];

const ALL = { page: 1, perPage: 1000 };

/** SubscribeFormsPage is /people/subscribe-forms. */
export function SubscribeFormsPage() {
  const notify = useNotify();
  const segments = useGetList('segments', { pagination: ALL, sort: { field: 'name', order: 'ASC' } });
  const personas = useGetList('sender-personas', { pagination: ALL, sort: { field: 'email', order: 'ASC' } });
  const [forms, setForms] = useState<Form[] | null>(null);
  const [loadError, setLoadError] = useState('');
  const [draft, setDraft] = useState({
    name: '',
    segment_id: '',
    sender_persona_id: '',
    heading: '',
    consent_text: 'I agree to receive these emails. I can unsubscribe at any time with the link in every email.',
    unconfirmed_days: 7,
  });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);

  const load = useCallback(async () => {
    setLoadError('');
    try {
      setForms((await callOperation('listSubscribeForms', {})).data);
    } catch (e) {
      setLoadError(`Couldn’t load the subscribe forms: ${(e as Error).message}`);
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const set = (key: keyof typeof draft) => (e: React.ChangeEvent<HTMLInputElement>) =>
    setDraft({ ...draft, [key]: key === 'unconfirmed_days' ? Number(e.target.value) : e.target.value });

  const add = async (event: FormEvent) => {
    event.preventDefault();
    const mine: Record<string, string> = {};
    if (!draft.name.trim()) mine.name = 'Required field';
    if (!draft.segment_id) mine.segment_id = 'Choose the segment subscribers join';
    if (!draft.sender_persona_id) mine.sender_persona_id = 'Choose who sends the confirmation email';
    if (!draft.heading.trim()) mine.heading = 'Required field';
    if (!draft.consent_text.trim()) mine.consent_text = 'Required field';
    setErrors(mine);
    if (Object.keys(mine).length || saving) return;
    setSaving(true);
    try {
      await callOperation('createSubscribeForm', { body: draft });
      notify(`Form ‘${draft.name.trim()}’ created`, { type: 'success' });
      setDraft({ ...draft, name: '', heading: '' });
      await load();
    } catch (e) {
      const fromServer: Record<string, string> = {};
      for (const line of (e as Error).message.split(/;\s*/)) {
        const m = /^(\w+): (.*)$/.exec(line.trim());
        if (m) fromServer[m[1]] = m[2];
      }
      setErrors(Object.keys(fromServer).length ? fromServer : { form: (e as Error).message });
    } finally {
      setSaving(false);
    }
  };

  return (
    <Stack spacing={2}>
      <Typography variant="h5" component="h1">
        Subscribe Forms
      </Typography>
      <Alert severity="info">
        A subscribe form adds people to a segment with double opt-in: they get an email with a confirmation link and join only when they press its button. Until
        then they receive no marketing email; those who never confirm are removed after the days you choose. Each submission’s consent is recorded (time,
        address, browser, the text shown).
      </Alert>
      <Card>
        <CardContent>
          <Typography variant="h6" component="h2" gutterBottom>
            New form
          </Typography>
          <Stack component="form" spacing={2} onSubmit={add} noValidate>
            <TextField
              id="form-name"
              label="Name"
              value={draft.name}
              onChange={set('name')}
              required
              error={!!errors.name}
              helperText={errors.name ?? 'For you; not shown to visitors'}
            />
            <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
              <TextField
                id="form-segment"
                select
                label="Segment"
                value={draft.segment_id}
                onChange={set('segment_id')}
                required
                fullWidth
                error={!!errors.segment_id}
                helperText={
                  errors.segment_id ?? (segments.isPending ? 'Loading segments…' : segments.data?.length ? 'Confirmed subscribers join it' : 'No segments yet')
                }
                slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
              >
                <option value="">Choose a segment</option>
                {(segments.data ?? []).map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name}
                  </option>
                ))}
              </TextField>
              <TextField
                id="form-persona"
                select
                label="Sender persona"
                value={draft.sender_persona_id}
                onChange={set('sender_persona_id')}
                required
                fullWidth
                error={!!errors.sender_persona_id}
                helperText={errors.sender_persona_id ?? 'Sends the confirmation email'}
                slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
              >
                <option value="">Choose a sender persona</option>
                {(personas.data ?? []).map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.email}
                  </option>
                ))}
              </TextField>
            </Stack>
            <TextField
              id="form-heading"
              label="Heading"
              placeholder="Get our weekly newsletter"
              value={draft.heading}
              onChange={set('heading')}
              required
              error={!!errors.heading}
              helperText={errors.heading ?? 'The form’s title, and what the confirmation email asks about'}
            />
            <TextField
              id="form-consent"
              label="Consent text"
              value={draft.consent_text}
              onChange={set('consent_text')}
              required
              multiline
              minRows={2}
              error={!!errors.consent_text}
              helperText={errors.consent_text ?? 'Shown under the form and kept with each submission'}
            />
            <TextField
              id="form-days"
              label="Remove unconfirmed after (days)"
              type="number"
              value={draft.unconfirmed_days}
              onChange={set('unconfirmed_days')}
              error={!!errors.unconfirmed_days}
              helperText={errors.unconfirmed_days}
              slotProps={{ htmlInput: { min: 1, max: 90 } }}
              sx={{ maxWidth: 260 }}
            />
            {errors.form && <Alert severity="error">{errors.form}</Alert>}
            <Box>
              <Button type="submit" variant="contained" disabled={saving}>
                {saving ? 'Creating…' : 'Create form'}
              </Button>
            </Box>
          </Stack>
        </CardContent>
      </Card>
      <LoadStatus
        rows={forms}
        error={loadError}
        onRetry={() => void load()}
        loadingLabel="Loading subscribe forms"
        emptyText="No forms yet. Create one to let people subscribe from your website."
      />
      {forms?.map((f) => (
        <Card key={f.id} data-testid={`form-${f.name}`}>
          <CardContent>
            <Typography variant="h6" component="h2">
              {f.name}
            </Typography>
            <Typography variant="body2" color="text.secondary" gutterBottom>
              {f.heading} · {f.confirmed.toLocaleString('en-US')} confirmed, {f.pending.toLocaleString('en-US')} waiting for their click
            </Typography>
            <Typography variant="body2" gutterBottom>
              Hosted page:{' '}
              <Link href={f.url} target="_blank" rel="noopener">
                {f.url}
              </Link>
            </Typography>
            <Box sx={{ maxWidth: 760 }}>
              <CopyField id={`snippet-${f.id}`} label="HTML snippet for your website" value={f.snippet} multiline />
            </Box>
          </CardContent>
        </Card>
      ))}
    </Stack>
  );
}
