/**
 * The new email blast form at /components/email-blasts/new (spec part 2 §2 Email blasts, §4, §5 Email blast): name,
 * template, sender persona, send date and time (default the next quarter hour in UTC, nextSendSlot), timezone and audience; Save & Send posts
 * one blast with a client-generated v4 id, then goes to its edit route.
 */
import { TopicSelect } from '../shared/TopicSelect';
import { useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useCreate, useGetList, useNotify, type RaRecord } from 'react-admin';
import { Alert, Autocomplete, Box, Button, Card, CardContent, Checkbox, FormControlLabel, Stack, TextField, Typography } from '@mui/material';
import { resourcesByName } from '../../../../generated/resources.gen';
import { defaultBlastSchedule, isContactLocalTimezone, sendNowMoment, timezoneOptions } from '../../../domain/sendTime';
import { MESSAGES, checkRequired } from '../../../domain/validation';
import { uuidv4 } from '../../uuid';
import { TIME_OPTIONS, parseTimeOfDay, timeLabel } from './timeInput';
import { SEARCH_DEBOUNCE_MS } from '../shared/SearchBox';

const definition = resourcesByName['email-blasts'];
const ALL = { page: 1, perPage: 1000 };

/** personaLabel renders a sender persona as "First Last <email>". */
export function personaLabel(p: RaRecord | undefined): string {
  if (!p) return '';
  const name = [p.first_name, p.last_name].filter(Boolean).join(' ');
  return name ? `${name} <${p.email}>` : String(p.email);
}

/** ContactPicker searches contacts (the smart search of spec part 2 §5: email or name, id, date; debounced 1000 ms) and keeps the chosen ones. */
function ContactPicker({ value, onChange, error }: { value: RaRecord[]; onChange: (v: RaRecord[]) => void; error?: string }) {
  const [input, setInput] = useState('');
  const [query, setQuery] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setQuery(input.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [input]);
  const { data = [], isPending } = useGetList('contacts', {
    pagination: { page: 1, perPage: 10 },
    sort: { field: 'email', order: 'ASC' },
    filter: query ? { q: query, field: 'all' } : {},
  });
  return (
    <Autocomplete
      id="blast-contacts"
      multiple
      options={data}
      value={value}
      loading={isPending}
      filterOptions={(x) => x}
      filterSelectedOptions
      isOptionEqualToValue={(a, b) => a.id === b.id}
      getOptionLabel={(o) => String(o.email)}
      inputValue={input}
      onInputChange={(_, v, reason) => reason !== 'reset' && setInput(v)}
      onChange={(_, v) => onChange(v)}
      renderInput={(params) => <TextField {...params} label="Contacts" placeholder="Search by email, name, id or date" error={!!error} helperText={error} />}
    />
  );
}

/** EmailBlastCreate renders and submits the new-blast form. */
export function EmailBlastCreate() {
  const navigate = useNavigate();
  const notify = useNotify();
  const [create, { isPending: saving }] = useCreate();
  const defaults = useMemo(() => defaultBlastSchedule(), []);
  const zones = useMemo(() => timezoneOptions(), []);
  const timeLabels = useMemo(() => TIME_OPTIONS.map((o) => o.label), []);

  const [name, setName] = useState('');
  const [templateId, setTemplateId] = useState('');
  const [personaId, setPersonaId] = useState('');
  const [topicId, setTopicId] = useState('');
  const [date, setDate] = useState(defaults.date);
  const [timeText, setTimeText] = useState(timeLabel(defaults.time));
  const [timezone, setTimezone] = useState<string | null>(defaults.timezone);
  const [segments, setSegments] = useState<RaRecord[]>([]);
  const [contacts, setContacts] = useState<RaRecord[]>([]);
  const [attempted, setAttempted] = useState(false);
  /** "Send now": the blast is due the minute it is saved, in UTC; the date and time fields step aside. */
  const [sendNow, setSendNow] = useState(false);

  const templates = useGetList('templates', { pagination: ALL, sort: { field: 'name', order: 'ASC' } });
  const personas = useGetList('sender-personas', { pagination: ALL, sort: { field: 'email', order: 'ASC' } });
  const segmentList = useGetList('segments', { pagination: ALL, sort: { field: 'name', order: 'ASC' } });

  const time = parseTimeOfDay(timeText);
  const errors = {
    name: checkRequired(name),
    template: checkRequired(templateId),
    persona: checkRequired(personaId),
    date: sendNow ? undefined : checkRequired(date),
    time: sendNow ? undefined : (checkRequired(timeText) ?? (time ? undefined : 'Invalid time, e.g. 3:15 pm or 15:15')),
    timezone: sendNow ? undefined : checkRequired(timezone),
    audience: segments.length + contacts.length === 0 ? MESSAGES.blastAudience : undefined,
  };
  const shown = attempted ? errors : ({} as Partial<typeof errors>);

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    setAttempted(true);
    if (Object.values(errors).some(Boolean) || (!sendNow && (!time || !timezone))) return;
    const id = uuidv4();
    const now = sendNowMoment();
    const body = {
      id,
      name: name.trim(),
      template_id: templateId,
      sender_persona_id: personaId,
      to_segment_ids: segments.map((s) => String(s.id)),
      to_user_ids: contacts.map((c) => String(c.id)),
      send_at: sendNow ? `${now.date}T${now.time}` : `${date}T${time}`,
      timezone: sendNow ? 'UTC' : timezone!,
      send_in_users_timezone: !sendNow && isContactLocalTimezone(timezone!),
      ...(topicId ? { topic_id: topicId } : {}),
    };
    create(
      'email-blasts',
      { data: body },
      {
        onSuccess: (saved: RaRecord) => {
          notify('Successfully saved email blast', { type: 'success' });
          navigate(`/components/email-blasts/edit/${saved?.id ?? id}`);
        },
        onError: (error) => notify(`Couldn't save email blast: ${(error as Error)?.message ?? error}`, { type: 'error' }),
      },
    );
  };

  return (
    <Box sx={{ maxWidth: 760 }}>
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        New Email Blast
      </Typography>
      <Card variant="outlined">
        <CardContent>
          <Stack component="form" spacing={2} onSubmit={submit} noValidate>
            <TextField
              id="blast-name"
              label="Name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              error={!!shown.name}
              helperText={shown.name}
            />
            <TextField
              id="blast-template"
              select
              label="Template"
              value={templateId}
              onChange={(e) => setTemplateId(e.target.value)}
              required
              error={!!shown.template}
              helperText={shown.template ?? (templates.isPending ? 'Loading templates…' : templates.data?.length ? undefined : 'No templates yet')}
              slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
            >
              <option value="">Choose a template</option>
              {(templates.data ?? []).map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </TextField>
            <TextField
              id="blast-sender-persona"
              select
              label="Sender persona"
              value={personaId}
              onChange={(e) => setPersonaId(e.target.value)}
              required
              error={!!shown.persona}
              helperText={shown.persona ?? (personas.isPending ? 'Loading sender personas…' : personas.data?.length ? undefined : 'No sender personas yet')}
              slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
            >
              <option value="">Choose a sender persona</option>
              {(personas.data ?? []).map((p) => (
                <option key={p.id} value={p.id}>
                  {personaLabel(p)}
                </option>
              ))}
            </TextField>
            <TopicSelect id="blast-topic" value={topicId} onChange={setTopicId} noneLabel="The template’s topic, if any" />
            <FormControlLabel
              control={<Checkbox checked={sendNow} onChange={(e) => setSendNow(e.target.checked)} />}
              label="Send now (as soon as it is saved)"
            />
            <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ display: sendNow ? 'none' : undefined }}>
              <TextField
                id="blast-send-date"
                label="Send date"
                type="date"
                value={date}
                onChange={(e) => setDate(e.target.value)}
                required
                error={!!shown.date}
                helperText={shown.date}
                slotProps={{ inputLabel: { shrink: true } }}
                sx={{ minWidth: 180 }}
              />
              <Autocomplete
                id="blast-send-time"
                freeSolo
                options={timeLabels}
                inputValue={timeText}
                onInputChange={(_, v) => setTimeText(v)}
                sx={{ minWidth: 180 }}
                renderInput={(params) => <TextField {...params} label="Send time" required error={!!shown.time} helperText={shown.time} />}
              />
              <Autocomplete
                id="blast-timezone"
                options={zones}
                value={timezone}
                onChange={(_, v) => setTimezone(v)}
                sx={{ flexGrow: 1, minWidth: 240 }}
                renderInput={(params) => <TextField {...params} label="Timezone" required error={!!shown.timezone} helperText={shown.timezone} />}
              />
            </Stack>
            <Autocomplete
              id="blast-segments"
              multiple
              options={segmentList.data ?? []}
              loading={segmentList.isPending}
              value={segments}
              filterSelectedOptions
              isOptionEqualToValue={(a, b) => a.id === b.id}
              getOptionLabel={(s) => `${s.name} (${s.num_users ?? 0})`}
              onChange={(_, v) => setSegments(v)}
              renderInput={(params) => <TextField {...params} label="Segments" error={!!shown.audience} />}
            />
            <ContactPicker value={contacts} onChange={setContacts} error={shown.audience} />
            {shown.audience && (
              <Alert severity="error" role="alert">
                {shown.audience}
              </Alert>
            )}
            <Box>
              <Button type="submit" variant="contained" disabled={saving}>
                {definition.form?.submitLabel ?? 'Save & Send'}
              </Button>
            </Box>
          </Stack>
        </CardContent>
      </Card>
    </Box>
  );
}
