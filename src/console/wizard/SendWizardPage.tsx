/**
 * The send wizard at /email-send-wizard (spec part 2 §2 Send wizard, §4, §5 Campaign, §8, §9): page 1
 * the campaign type, page 2 the campaign name (checked free among campaigns 500 ms after the last keystroke), then
 * the type's pages (wizardPages), Review and launch, and Success with links to everything created, opening in new
 * tabs. Every page blocks Continue with its message until it is valid; Back keeps every choice; the state lives in
 * memory only, so refreshing the page restarts the wizard.
 */
import { useEffect, useMemo, useState } from 'react';
import { useDataProvider } from 'react-admin';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  FormControl,
  FormControlLabel,
  FormLabel,
  Link,
  List,
  ListItem,
  Radio,
  RadioGroup,
  Stack,
  TextField,
  Typography,
} from '@mui/material';
import { DateTime } from 'luxon';
import { nextSendSlot } from '../../domain/sendTime';
import type { AppDataProvider } from '../data/dataProvider';
import { usePickSource, type PickSource } from '../resources/shared/PickList';
import { SelectionPicker } from './SelectionPicker';
import { BlastSendOptions, CountField, PersonaChoice, TemplateChoice, TimingFields, TypeChoice, WeightSliders } from './WizardFields';
import { ReviewLaunch, type LaunchRecord } from './ReviewLaunch';
import { StepList } from '../resources/shared/StepList';
import {
  BLAST_SEND_AT_TYPES,
  DRIP_SEND_AT_TYPES,
  NAME_CHECK_DEBOUNCE_MS,
  chosenPersonaIds,
  chosenTemplateIds,
  describeTiming,
  initialState,
  isBlastType,
  usesBestHour,
  pastSendTime,
  pageError,
  stepCounter,
  pageKey,
  setEmail,
  setNumEmails,
  setNumTemplates,
  setRecipientType,
  setType,
  successLinks,
  wizardPages,
  type LaunchIds,
  type PageContext,
  type RecipientType,
  type WizardPage,
  type WizardState,
} from './wizardModel';

type NameCheck = NonNullable<PageContext['nameCheck']>;

/** useNameCheck looks the typed campaign name up among live campaigns (exact, case-insensitive) 500 ms after the last change. */
function useNameCheck(name: string): NameCheck | undefined {
  const dataProvider = useDataProvider<AppDataProvider>();
  const [check, setCheck] = useState<NameCheck | undefined>();
  const trimmed = name.trim();
  useEffect(() => {
    if (!trimmed) return;
    let live = true;
    setCheck({ name: trimmed, status: 'checking' });
    const timer = setTimeout(async () => {
      try {
        // `names` is a comma-separated list: a name with a comma is searched as a substring and compared here.
        const query = trimmed.includes(',') ? { search_value: trimmed, limit: 100 } : { names: trimmed, limit: 1 };
        const { campaigns } = await dataProvider.callGateway('listCampaigns', { query });
        const taken = campaigns.some((c) => c.name.trim().toLowerCase() === trimmed.toLowerCase());
        if (live) setCheck({ name: trimmed, status: taken ? 'taken' : 'free' });
      } catch (error) {
        if (live) setCheck({ name: trimmed, status: 'error', error: (error as Error).message });
      }
    }, NAME_CHECK_DEBOUNCE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [dataProvider, trimmed]);
  return check;
}

/** useLabels names the chosen templates and personas (for the A/B duplicate message, the review and success). */
function useLabels(source: PickSource, ids: string[], labels: Record<string, string>, addLabels: (l: Record<string, string>) => void) {
  const missing = ids.filter((id) => id && !(id in labels)).join(',');
  useEffect(() => {
    if (!missing) return;
    let live = true;
    source
      .byIds(missing.split(','))
      .then((found) => live && addLabels(Object.fromEntries(found.map((o) => [o.id, o.label]))))
      .catch(() => {
        /* the ids stay as their own labels */
      });
    return () => {
      live = false;
    };
  }, [source, missing, addLabels]);
}

/** The title of each page. */
function pageTitle(p: WizardPage, s: WizardState): string {
  const email = 'index' in p ? ` ${p.index + 1}` : '';
  switch (p.kind) {
    case 'type':
      return 'Campaign type';
    case 'name':
      return 'Campaign name';
    case 'event_name':
      return 'Event name';
    case 'persona':
      return 'Sender persona';
    case 'template':
      return 'Template';
    case 'num_templates':
      return 'Number of templates';
    case 'ab_template':
      return `Template ${String.fromCharCode(65 + p.index)}`;
    case 'weights':
      return 'Weights';
    case 'recipient_type':
      return 'Recipients';
    case 'segments':
      return s.type === 'drip_campaign' ? 'Segments to enter into the drip campaign' : 'Segments';
    case 'contacts':
      return 'Contacts';
    case 'timing':
      return 'When to send';
    case 'num_emails':
      return 'Number of emails';
    case 'email_persona':
      return `Sender persona of email${email}`;
    case 'email_template':
      return `Template of email${email}`;
    case 'email_timing':
      return `When to send email${email}`;
    case 'review':
      return 'Review and launch';
  }
}

/** Success lists everything the launch created, each link opening in a new tab. */
function Success({
  state,
  ids,
  steps,
  labels,
  onRestart,
}: {
  state: WizardState;
  ids: LaunchIds;
  steps: LaunchRecord;
  labels: Record<string, string>;
  onRestart: () => void;
}) {
  const links = successLinks(state, ids, labels);
  return (
    <Stack spacing={2}>
      <Alert severity="success">{`Campaign '${state.name.trim()}' is launched.`}</Alert>
      {/* The success page says when the emails go. */}
      {isBlastType(state.type) && (
        <Typography data-testid="launched-send-time">
          {state.timing.sendNow || pastSendTime(state.timing)
            ? 'Its emails are being sent now.'
            : `Its emails go out ${state.timing.type.startsWith('time_of_day') ? 'at' : 'on'} ${describeTiming(state.timing)}.`}
          {usesBestHour(state) && ' Each contact gets its email at its best hour within 24 hours of that time.'}
        </Typography>
      )}
      {(state.type === 'event_trigger_campaign' || state.type === 'event_triggered_drip_campaign') && (
        <Typography>
          {`Its emails go out when you post '${state.eventName.trim()}' events for your contacts to the events API, with your API key: both are on the integrations page.`}
        </Typography>
      )}
      <StepList label="Launch steps" steps={steps.labels.map((label, i) => ({ key: String(i), label }))} states={steps.states} />
      <Typography variant="h6" component="h2">
        What was created
      </Typography>
      <List aria-label="Created objects">
        {links.map((l) => (
          <ListItem key={l.href} disableGutters>
            <Link href={l.href} target="_blank" rel="noopener noreferrer">
              {l.label}
            </Link>
          </ListItem>
        ))}
      </List>
      <Box>
        <Button variant="outlined" onClick={onRestart}>
          Start another campaign
        </Button>
      </Box>
    </Stack>
  );
}

/** SendWizardPage renders /email-send-wizard. */
export function SendWizardPage() {
  const today = useMemo(() => DateTime.utc().toISODate() as string, []);
  const [state, setState] = useState<WizardState>(() => initialState(today, nextSendSlot()));
  const [index, setIndex] = useState(0);
  const [labels, setLabels] = useState<Record<string, string>>({});
  const [launched, setLaunched] = useState<{ ids: LaunchIds; steps: LaunchRecord } | undefined>();
  const nameCheck = useNameCheck(state.name);
  const addLabels = useMemo(() => (l: Record<string, string>) => setLabels((prev) => ({ ...prev, ...l })), []);
  const templates = usePickSource('templates');
  const personas = usePickSource('sender-personas');
  useLabels(templates, chosenTemplateIds(state), labels, addLabels);
  useLabels(personas, chosenPersonaIds(state), labels, addLabels);

  const pages = wizardPages(state);
  const page = pages[Math.min(index, pages.length - 1)];
  const ctx: PageContext = { nameCheck, templateNames: labels };
  const error = pageError(state, page, ctx);
  const key = pageKey(page);
  /** A page's message shows once its fields were changed or Continue was pressed, not before anything is typed. */
  const [revealed, setRevealed] = useState<Record<string, boolean>>({});
  const reveal = () => setRevealed((r) => (r[key] ? r : { ...r, [key]: true }));
  const edit: typeof setState = (change) => {
    reveal();
    setState(change);
  };
  const update = (change: Partial<WizardState>) => edit((s) => ({ ...s, ...change }));
  const shownError = error && (revealed[key] || error.startsWith('Checking')) ? error : undefined;
  const restart = () => {
    setState(initialState(today, nextSendSlot()));
    setRevealed({});
    setIndex(0);
    setLaunched(undefined);
  };
  const id = `wizard-${key.replace(':', '-')}`;

  const body = (() => {
    switch (page.kind) {
      case 'type':
        return <TypeChoice value={state.type} onChange={(t) => edit((s) => setType(s, t))} />;
      case 'name':
        return (
          <TextField
            id={id}
            label="Campaign name"
            required
            value={state.name}
            onChange={(e) => update({ name: e.target.value })}
            sx={{ maxWidth: 520 }}
            fullWidth
            slotProps={{ htmlInput: { maxLength: 500 } }}
          />
        );
      case 'event_name':
        return (
          <TextField
            id={id}
            label="Event name"
            required
            value={state.eventName}
            onChange={(e) => update({ eventName: e.target.value })}
            sx={{ maxWidth: 520 }}
            fullWidth
            helperText="Contacts get the email when you post an event with this name for them to the events API (see Account → Integrations)."
          />
        );
      case 'persona':
        return <PersonaChoice id={id} value={state.personaId} onChange={(personaId) => update({ personaId })} />;
      case 'template':
        return <TemplateChoice id={id} value={state.templateId} onChange={(templateId) => update({ templateId })} />;
      case 'num_templates':
        return (
          <CountField
            id={id}
            label="Number of templates"
            value={state.numTemplates}
            onChange={(t) => edit((s) => setNumTemplates(s, t))}
            helperText="Each recipient gets one of them, chosen by weight."
          />
        );
      case 'ab_template':
        return (
          <TemplateChoice
            id={id}
            label={`Template ${String.fromCharCode(65 + page.index)}`}
            value={state.abTemplateIds[page.index] ?? ''}
            onChange={(t) => update({ abTemplateIds: state.abTemplateIds.map((x, i) => (i === page.index ? t : x)) })}
          />
        );
      case 'weights':
        return (
          <WeightSliders
            names={state.abTemplateIds.map((t, i) => `template ${String.fromCharCode(65 + i)} (${labels[t] ?? t})`)}
            weights={state.weights}
            onChange={(weights) => update({ weights })}
          />
        );
      case 'recipient_type':
        return (
          <FormControl>
            <FormLabel id="wizard-recipient-type-label">Send to</FormLabel>
            <RadioGroup
              aria-labelledby="wizard-recipient-type-label"
              value={state.recipientType}
              onChange={(e) => edit((s) => setRecipientType(s, e.target.value as RecipientType))}
            >
              <FormControlLabel value="segments" control={<Radio />} label="Segments" />
              <FormControlLabel value="users" control={<Radio />} label="Contacts" />
              <FormControlLabel value="both" control={<Radio />} label="Segments and contacts" />
            </RadioGroup>
          </FormControl>
        );
      case 'segments':
        return (
          <SelectionPicker kind="segments" value={state.segmentIds} onChange={(segmentIds) => update({ segmentIds })} labels={labels} onLabels={addLabels} />
        );
      case 'contacts':
        return <SelectionPicker kind="contacts" value={state.userIds} onChange={(userIds) => update({ userIds })} labels={labels} onLabels={addLabels} />;
      case 'timing':
        return (
          <Stack spacing={3}>
            <TimingFields id={id} timing={state.timing} types={BLAST_SEND_AT_TYPES} index={0} onChange={(timing) => update({ timing })} />
            <BlastSendOptions id={id} timing={state.timing} sendTimeOptimised={state.sendTimeOptimised} reEngagement={state.reEngagement} onChange={update} />
          </Stack>
        );
      case 'num_emails':
        return (
          <CountField
            id={id}
            label="Number of emails"
            value={state.numEmails}
            onChange={(t) => edit((s) => setNumEmails(s, t, today))}
            helperText="Each contact gets these emails one after the other."
          />
        );
      case 'email_persona':
        return (
          <PersonaChoice
            key={id}
            id={id}
            value={state.emails[page.index].personaId}
            onChange={(personaId) => edit((s) => setEmail(s, page.index, { personaId }))}
          />
        );
      case 'email_template':
        return (
          <TemplateChoice
            key={id}
            id={id}
            value={state.emails[page.index].templateId}
            onChange={(templateId) => edit((s) => setEmail(s, page.index, { templateId }))}
          />
        );
      case 'email_timing':
        return (
          <TimingFields
            key={id}
            id={id}
            timing={state.emails[page.index].timing}
            types={DRIP_SEND_AT_TYPES}
            index={page.index}
            onChange={(timing) => edit((s) => setEmail(s, page.index, { timing }))}
          />
        );
      case 'review':
        return null;
    }
  })();

  return (
    <Box sx={{ maxWidth: 900 }}>
      <Typography variant="h5" component="h1" sx={{ mb: 2 }}>
        Send wizard
      </Typography>
      <Card variant="outlined">
        <CardContent>
          {launched ? (
            <>
              <Typography variant="h6" component="h2" sx={{ mb: 2 }}>
                Success
              </Typography>
              <Success state={state} ids={launched.ids} steps={launched.steps} labels={labels} onRestart={restart} />
            </>
          ) : (
            <Stack spacing={2}>
              <Typography variant="overline" component="p">
                {stepCounter(index, pages.length, state.type)}
              </Typography>
              <Typography variant="h6" component="h2">
                {pageTitle(page, state)}
              </Typography>
              {page.kind === 'review' ? (
                <ReviewLaunch
                  state={state}
                  labels={labels}
                  today={today}
                  onBack={() => setIndex((i) => i - 1)}
                  onCancel={restart}
                  onLaunched={(ids, steps) => setLaunched({ ids, steps })}
                />
              ) : (
                <>
                  {body}
                  {shownError && (
                    <Alert severity={shownError.startsWith('Checking') ? 'info' : 'warning'} role="status" data-testid="wizard-page-message">
                      {shownError}
                    </Alert>
                  )}
                  <Stack direction="row" spacing={1}>
                    <Button onClick={() => setIndex((i) => i - 1)} disabled={index === 0}>
                      Back
                    </Button>
                    <Button variant="contained" onClick={() => (error ? reveal() : setIndex((i) => i + 1))} disabled={!!shownError}>
                      Continue
                    </Button>
                  </Stack>
                </>
              )}
            </Stack>
          )}
        </CardContent>
      </Card>
    </Box>
  );
}
