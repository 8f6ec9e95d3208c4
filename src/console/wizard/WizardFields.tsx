/**
 * The send wizard's page bodies (spec part 2 §2 Send wizard, §5 Campaign): campaign type, sender persona (pick one or
 * create one inline), timing (the send-at types with date, time every 15 minutes in am/pm, timezone, or a drip delay
 * with its unit), counts and A/B weights. Each is a controlled view of the wizard state; the rules are in wizardModel.
 */
import { useEffect, useMemo, useState } from 'react';
import { useDataProvider, useNotify } from 'react-admin';
import {
  Alert,
  Autocomplete,
  Box,
  Button,
  Checkbox,
  FormControl,
  FormControlLabel,
  FormLabel,
  MenuItem,
  Radio,
  RadioGroup,
  Slider,
  Stack,
  TextField,
  Typography,
  ToggleButton,
  ToggleButtonGroup,
} from '@mui/material';
import { CONTACT_LOCAL_TIMEZONE, timezoneOptions } from '../../domain/sendTime';
import type { AppDataProvider } from '../data/dataProvider';
import { PickList, usePickSource } from '../resources/shared/PickList';
import { callOperation } from '../data/gateway';
import { EmailThumbnail } from '../resources/templates/EmailThumbnail';
import { renderSample } from '../resources/templates/sampleRender';
import { TIME_OPTIONS, parseTimeOfDay, timeLabel } from '../resources/email-blasts/timeInput';
import {
  DELAY_UNITS,
  SEND_AT_LABELS,
  SEND_TIME_WORDS,
  WEIGHT_MAX,
  WEIGHT_MIN,
  WIZARD_TYPES,
  WIZARD_TYPE_INFO,
  bestHourBlocked,
  delayWarning,
  newPersonaBody,
  newPersonaErrors,
  personaSavedToast,
  type DelayUnit,
  type NewPersona,
  type SendAtType,
  type Timing,
  type WizardType,
} from './wizardModel';

/** TypeChoice is page 1: the five campaign types. */
export function TypeChoice({ value, onChange }: { value?: WizardType; onChange: (t: WizardType) => void }) {
  return (
    <FormControl>
      <FormLabel id="wizard-type-label">What do you want to send?</FormLabel>
      <RadioGroup aria-labelledby="wizard-type-label" name="wizard-type" value={value ?? ''} onChange={(e) => onChange(e.target.value as WizardType)}>
        {WIZARD_TYPES.map((t) => (
          <FormControlLabel
            key={t}
            value={t}
            control={<Radio />}
            label={
              <Box sx={{ py: 0.5 }}>
                <Typography component="span" sx={{ fontWeight: 500 }}>
                  {WIZARD_TYPE_INFO[t].label}
                </Typography>
                <Typography component="span" variant="body2" sx={{ display: 'block', color: 'text.secondary' }}>
                  {WIZARD_TYPE_INFO[t].description}
                </Typography>
              </Box>
            }
          />
        ))}
      </RadioGroup>
    </FormControl>
  );
}

/**
 * PersonaChoice picks the sender persona, or creates one inline (first name and email required, last name optional);
 * a created persona is chosen at once and the wizard's toast asks to verify its address.
 */
export function PersonaChoice({ id, value, onChange, error }: { id: string; value: string; onChange: (id: string) => void; error?: string }) {
  const source = usePickSource('sender-personas');
  const dataProvider = useDataProvider<AppDataProvider>();
  const notify = useNotify();
  const [creating, setCreating] = useState(false);
  const [persona, setPersona] = useState<NewPersona>({ first_name: '', last_name: '', email: '' });
  const [attempted, setAttempted] = useState(false);
  const [saving, setSaving] = useState(false);
  const errors = newPersonaErrors(persona);
  const shown = attempted ? errors : {};

  const save = async () => {
    setAttempted(true);
    if (Object.keys(errors).length) return;
    setSaving(true);
    try {
      const { data } = await dataProvider.callGateway('saveSenderPersonas', { body: newPersonaBody(persona) });
      notify(personaSavedToast(data[0].email), { type: 'success', autoHideDuration: 10_000 });
      onChange(data[0].id);
      setCreating(false);
      setPersona({ first_name: '', last_name: '', email: '' });
      setAttempted(false);
    } catch (e) {
      notify(`Couldn't save sender persona: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setSaving(false);
    }
  };

  return (
    <Stack spacing={2}>
      <PickList id={id} label="Sender persona" source={source} value={value ? [value] : []} onChange={(ids) => onChange(ids[0] ?? '')} error={error} />
      {!creating ? (
        <Box>
          <Button variant="outlined" size="small" onClick={() => setCreating(true)}>
            Create a new sender persona
          </Button>
        </Box>
      ) : (
        <Stack component="section" aria-label="New sender persona" spacing={1.5} sx={{ p: 2, border: 1, borderColor: 'divider', borderRadius: 1 }}>
          <Typography variant="subtitle1" component="h3">
            New sender persona
          </Typography>
          <Alert severity="warning">
            Make sure you can read this address's inbox: the email provider sends it a verification link, and nothing is sent from it until it is clicked.
          </Alert>
          <TextField
            id={`${id}-first-name`}
            label="First name"
            required
            value={persona.first_name}
            onChange={(e) => setPersona({ ...persona, first_name: e.target.value })}
            error={!!shown.first_name}
            helperText={shown.first_name}
          />
          <TextField
            id={`${id}-last-name`}
            label="Last name"
            value={persona.last_name}
            onChange={(e) => setPersona({ ...persona, last_name: e.target.value })}
          />
          <TextField
            id={`${id}-email`}
            label="Email"
            required
            value={persona.email}
            onChange={(e) => setPersona({ ...persona, email: e.target.value })}
            error={!!shown.email}
            helperText={shown.email}
          />
          <Stack direction="row" spacing={1}>
            <Button variant="contained" size="small" onClick={save} disabled={saving}>
              Save sender persona
            </Button>
            <Button size="small" onClick={() => setCreating(false)} disabled={saving}>
              Cancel
            </Button>
          </Stack>
        </Stack>
      )}
    </Stack>
  );
}

/** TemplateChoice picks one template. */
export function TemplateChoice({
  id,
  label = 'Template',
  value,
  onChange,
  error,
}: {
  id: string;
  label?: string;
  value: string;
  onChange: (id: string) => void;
  error?: string;
}) {
  const source = usePickSource('templates');
  return (
    <Stack spacing={1}>
      <PickList id={id} label={label} source={source} value={value ? [value] : []} onChange={(ids) => onChange(ids[0] ?? '')} error={error} />
      {value && <ChosenTemplateThumbnail templateId={value} />}
    </Stack>
  );
}

/** ChosenTemplateThumbnail shows the chosen template as a thumbnail with its subject. */
function ChosenTemplateThumbnail({ templateId }: { templateId: string }) {
  const [template, setTemplate] = useState<{ name: string; subject: string; html: string } | undefined>();
  useEffect(() => {
    let live = true;
    setTemplate(undefined);
    callOperation('listTemplates', { query: { ids: templateId, limit: 1 } }).then(
      (r) => {
        const t = r.data[0];
        if (live && t) setTemplate({ name: String(t.name), subject: String(t.subject ?? ''), html: String(t.html_body ?? '') });
      },
      () => undefined, // the thumbnail is a help, not a step: without it the page still works
    );
    return () => {
      live = false;
    };
  }, [templateId]);
  if (!template) return null;
  return (
    <Stack direction="row" spacing={2} sx={{ alignItems: 'flex-start' }} data-testid="chosen-template">
      <EmailThumbnail title={`Thumbnail of ${template.name}`} html={template.html} />
      <Box sx={{ minWidth: 0 }}>
        <Typography sx={{ fontWeight: 600, overflowWrap: 'anywhere' }}>{template.name}</Typography>
        <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: 'anywhere' }}>
          Subject: {renderSample(template.subject)}
        </Typography>
      </Box>
    </Stack>
  );
}

/** TimeOfDayInput is a time every 15 minutes in am/pm, or typed (e.g. 3:07 pm, 15:07). */
function TimeOfDayInput({ id, value, onChange }: { id: string; value: string; onChange: (hhmm: string) => void }) {
  const [text, setText] = useState(value ? timeLabel(value) : '');
  const labels = useMemo(() => TIME_OPTIONS.map((o) => o.label), []);
  const invalid = !!text && !parseTimeOfDay(text);
  return (
    <Autocomplete
      id={id}
      freeSolo
      options={labels}
      inputValue={text}
      onInputChange={(_, v) => {
        setText(v);
        onChange(parseTimeOfDay(v) ?? '');
      }}
      sx={{ minWidth: 180 }}
      renderInput={(params) => <TextField {...params} label="Send time" required error={invalid} helperText={invalid ? 'e.g. 3:15 pm or 15:15' : undefined} />}
    />
  );
}

/** The props of the timing fields: one send moment, the send-at types offered, its place among a drip's emails. */
interface TimingProps {
  id: string;
  timing: Timing;
  types: SendAtType[];
  index: number;
  onChange: (t: Timing) => void;
}

/** TimingFields edits one send moment: Send now or a schedule (blasts), the send-at type and the fields it needs. */
export function TimingFields(props: TimingProps) {
  const { timing, types, onChange } = props;
  // A blast can go at once ("Send now") or at a moment; drips always have a moment.
  const canSendNow = types.includes('specific_timezone') && !types.includes('delay');
  const sendNow = canSendNow && !!timing.sendNow;
  return (
    <Stack spacing={2}>
      {canSendNow && (
        <ToggleButtonGroup
          exclusive
          color="primary"
          value={sendNow ? 'now' : 'later'}
          onChange={(_e, v: 'now' | 'later' | null) => v && onChange({ ...timing, sendNow: v === 'now' })}
          aria-label="Send now or schedule"
        >
          <ToggleButton value="now">Send now</ToggleButton>
          <ToggleButton value="later">Schedule</ToggleButton>
        </ToggleButtonGroup>
      )}
      {sendNow ? <Alert severity="info">The emails go as soon as you launch the campaign.</Alert> : <TimingMoment {...props} />}
    </Stack>
  );
}

/** TimingMoment edits a scheduled send moment: the send-at type and the date, time, zone or delay it needs. */
function TimingMoment({ id, timing, types, index, onChange }: TimingProps) {
  const zones = useMemo(() => timezoneOptions().filter((z) => z !== CONTACT_LOCAL_TIMEZONE), []);
  const set = (change: Partial<Timing>) => onChange({ ...timing, ...change });
  const warning = delayWarning(timing, index);
  const needsZone = timing.type === 'specific_timezone' || timing.type === 'time_of_day_specific_timezone';
  return (
    <Stack spacing={2}>
      <FormControl>
        <FormLabel id={`${id}-type-label`}>When is it sent?</FormLabel>
        <RadioGroup aria-labelledby={`${id}-type-label`} name={`${id}-type`} value={timing.type} onChange={(e) => set({ type: e.target.value as SendAtType })}>
          {types.map((t) => (
            <FormControlLabel key={t} value={t} control={<Radio />} label={SEND_AT_LABELS[t]} />
          ))}
        </RadioGroup>
      </FormControl>
      {timing.type === 'delay' ? (
        <Stack direction="row" spacing={2}>
          <TextField
            id={`${id}-delay`}
            label={index === 0 ? 'Wait after the contact enters' : 'Wait after the previous email'}
            value={timing.delayAmount}
            onChange={(e) => set({ delayAmount: e.target.value })}
            slotProps={{ htmlInput: { inputMode: 'numeric' } }}
            sx={{ maxWidth: 260 }}
          />
          <TextField
            id={`${id}-unit`}
            select
            label="Unit"
            value={timing.delayUnit}
            onChange={(e) => set({ delayUnit: e.target.value as DelayUnit })}
            sx={{ minWidth: 140 }}
          >
            {(Object.keys(DELAY_UNITS) as DelayUnit[]).map((u) => (
              <MenuItem key={u} value={u}>{`${u}s`}</MenuItem>
            ))}
          </TextField>
        </Stack>
      ) : (
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
          {(timing.type === 'specific_timezone' || timing.type === 'users_timezone') && (
            <TextField
              id={`${id}-date`}
              label="Send date"
              type="date"
              required
              value={timing.date}
              onChange={(e) => set({ date: e.target.value })}
              slotProps={{ inputLabel: { shrink: true } }}
              sx={{ minWidth: 180 }}
            />
          )}
          <TimeOfDayInput key={`${id}-${timing.type}`} id={`${id}-time`} value={timing.time} onChange={(time) => set({ time })} />
          {needsZone && (
            <Autocomplete
              id={`${id}-timezone`}
              options={zones}
              value={timing.timezone || null}
              onChange={(_, v) => set({ timezone: v ?? '' })}
              sx={{ flexGrow: 1, minWidth: 240 }}
              renderInput={(params) => <TextField {...params} label="Timezone" required />}
            />
          )}
        </Stack>
      )}
      {warning && <Alert severity="warning">{warning}</Alert>}
    </Stack>
  );
}

/**
 * BlastSendOptions are a blast's two choices under its send time: each contact's best hour (not with the contact's own
 * timezone, which it then says) and a re-engagement blast. Each is a checkbox with its explanation.
 */
export function BlastSendOptions({
  id,
  timing,
  sendTimeOptimised,
  reEngagement,
  onChange,
}: {
  id: string;
  timing: Timing;
  sendTimeOptimised: boolean;
  reEngagement: boolean;
  onChange: (change: { sendTimeOptimised?: boolean; reEngagement?: boolean }) => void;
}) {
  const blocked = bestHourBlocked(timing);
  const option = (key: string, label: string, hint: string, checked: boolean, set: (on: boolean) => void, disabled = false) => (
    <Box>
      <FormControlLabel
        control={
          <Checkbox
            id={`${id}-${key}`}
            checked={checked}
            disabled={disabled}
            onChange={(e) => set(e.target.checked)}
            slotProps={{ input: { 'aria-describedby': `${id}-${key}-hint` } }}
          />
        }
        label={label}
      />
      <Typography id={`${id}-${key}-hint`} variant="body2" color="text.secondary" sx={{ ml: 4 }}>
        {hint}
      </Typography>
    </Box>
  );
  return (
    <Stack spacing={1} component="fieldset" sx={{ border: 0, p: 0, m: 0, minWidth: 0 }}>
      <Typography component="legend" sx={{ fontWeight: 500, mb: 1 }}>
        Who gets it when
      </Typography>
      {option(
        'best-hour',
        SEND_TIME_WORDS.bestHour,
        blocked ?? SEND_TIME_WORDS.bestHourHint,
        sendTimeOptimised && !blocked,
        (on) => onChange({ sendTimeOptimised: on }),
        !!blocked,
      )}
      {option('re-engagement', SEND_TIME_WORDS.reEngagement, SEND_TIME_WORDS.reEngagementHint, reEngagement, (on) => onChange({ reEngagement: on }))}
    </Stack>
  );
}

/** CountField is a typed count (A/B templates, drip emails). */
export function CountField({
  id,
  label,
  value,
  onChange,
  helperText,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (text: string) => void;
  helperText?: string;
}) {
  return (
    <TextField
      id={id}
      label={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      helperText={helperText}
      slotProps={{ htmlInput: { inputMode: 'numeric' } }}
      sx={{ maxWidth: 260 }}
    />
  );
}

/** WeightSliders sets each A/B template's weight (1–99) and shows its share of the recipients. */
export function WeightSliders({ names, weights, onChange }: { names: string[]; weights: number[]; onChange: (weights: number[]) => void }) {
  const total = weights.reduce((s, w) => s + w, 0) || 1;
  return (
    <Stack spacing={2} sx={{ maxWidth: 560 }}>
      {weights.map((w, i) => {
        const labelId = `wizard-weight-${i}-label`;
        return (
          <Box key={i}>
            <Typography id={labelId}>{`Weight of ${names[i]}`}</Typography>
            <Stack direction="row" spacing={2} sx={{ alignItems: 'center' }}>
              <Slider
                value={w}
                min={WEIGHT_MIN}
                max={WEIGHT_MAX}
                step={1}
                valueLabelDisplay="auto"
                onChange={(_, v) => onChange(weights.map((x, j) => (j === i ? (v as number) : x)))}
                aria-labelledby={labelId}
              />
              <Typography
                variant="body2"
                sx={{ minWidth: 150 }}
                data-testid={`weight-${i}`}
              >{`${w} (${Math.round((w / total) * 100)}% of recipients)`}</Typography>
            </Stack>
          </Box>
        );
      })}
    </Stack>
  );
}
