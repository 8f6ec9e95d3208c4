/**
 * The send wizard's Review and launch page (spec part 2 §2, §4 Wizard launch): everything chosen, the
 * audience the preview resolves now (targeted, left out by reason, to be sent), the estimated cost by the pricing
 * formula over this month's sends, the warnings that do not (a sender persona whose mail would go out without a DKIM signature),
 * and the problems that stop a launch (an unverified persona, a marketing template
 * without an unsubscribe link, sandbox recipients: Launch stays disabled, with the reason), and the pre-send checklist of
 * the chosen templates (PreSendChecklist), whose error findings keep Launch disabled too. Launch runs the ordered
 * steps; while they run Back, Cancel and Launch are disabled and the page warns not to close the tab (the browser
 * asks too). A failed step shows its error under it and the later ones are cancelled. Leaving the page (an in-app
 * link) stops the run before its next step, and nothing moves to the success page or toasts after it. The
 * email itself shows rendered at desktop and phone widths, with a test send (EmailPreview).
 */
import { useEffect, useMemo, useState } from 'react';
import { useDataProvider, useNotify } from 'react-admin';
import { Alert, Box, Button, CircularProgress, Stack, Table, TableBody, TableCell, TableRow, Typography } from '@mui/material';
import { aboutCount } from '../../domain/segmentFilter';
import type { StepState } from '../../domain/campaigns';
import type { AppDataProvider } from '../data/dataProvider';
import { gatewayJobWaitDeps } from '../data/jobWait';
import { workflowInput } from '../workflows/saveFlow';
import { useUnmountSignal } from '../data/useUnmountSignal';
import { RETRY } from '../retry';
import { uuidv4 } from '../uuid';
import { CACHED_REPORTS, cacheClearError } from '../resources/campaigns/campaignForm';
import { StepList } from '../resources/shared/StepList';
import { planLaunch, runLaunch, type LaunchDeps, type LaunchPlan } from './launch';
import { EmailPreview } from './EmailPreview';
import { PreSendChecklist } from './PreSendChecklist';
import {
  WIZARD_TYPE_INFO,
  chosenPersonaIds,
  chosenSegmentIds,
  chosenTemplateIds,
  personaOfTemplate,
  chosenUserIds,
  describeTiming,
  pastSendTime,
  isBlastType,
  isDripType,
  isEventType,
  previewRequest,
  reviewCost,
  EXCLUDED_POLICY_LABELS,
  SEND_TIME_WORDS,
  capCheckedAgain,
  isReEngagement,
  usesBestHour,
  type LaunchIds,
  type Preview,
  type WizardState,
} from './wizardModel';

/** Not retried: a re-sent workflow save would queue another JOB_CREATE_WORKFLOW job; a 503 is waited out on the job log. */
const NO_RETRY = { retries: 0, delayMs: 0 };

/** useLaunchDeps binds the launch steps to the gateways. */
function useLaunchDeps(): LaunchDeps {
  const dataProvider = useDataProvider<AppDataProvider>();
  const notify = useNotify();
  return useMemo(
    () => ({
      ...gatewayJobWaitDeps(dataProvider),
      async saveCampaign(body) {
        // Part 2 §7: the two sends reports' caches are cleared before a campaign save; if either fails the save stops.
        for (const { report, name } of CACHED_REPORTS) {
          try {
            await dataProvider.callGateway('clearReportCache', { path: { report }, body: { campaign_id: body.id } }, RETRY.reportCacheClear);
          } catch (error) {
            throw new Error(cacheClearError(name, (error as Error).message));
          }
        }
        await dataProvider.callGateway('saveCampaign', { body: { campaign: body } }, RETRY.write);
      },
      async saveBlast(body) {
        await dataProvider.callGateway('saveEmailBlast', { body }, RETRY.write);
      },
      async saveWorkflow(body) {
        const answer = await dataProvider.callGateway('saveWorkflow', { body: workflowInput(body) }, NO_RETRY);
        return answer.data;
      },
      async sendSegment(body) {
        const answer = await dataProvider.callGateway('sendSegmentToWorkflow', { body }, RETRY.write);
        if (answer.errors?.length) throw new Error(answer.errors.join(', '));
      },
      onBehind: () => notify('Another workflow job of this project is still running: the workflow is created when it has finished.', { type: 'info' }),
    }),
    [dataProvider, notify],
  );
}

/** Summary lists what was chosen, one row per choice. */
function Summary({ state, labels }: { state: WizardState; labels: Record<string, string> }) {
  const name = (id: string) => labels[id] ?? id;
  const rows: Array<[string, string]> = [
    ['Campaign type', WIZARD_TYPE_INFO[state.type!].label],
    ['Campaign name', state.name.trim()],
  ];
  if (isEventType(state.type)) rows.push(['Event name', state.eventName.trim()]);
  if (!isDripType(state.type)) rows.push(['Sender persona', name(state.personaId)]);
  if (state.type === 'a_b_test') {
    const total = state.weights.reduce((s, w) => s + w, 0) || 1;
    state.abTemplateIds.forEach((id, i) =>
      rows.push([`Template ${String.fromCharCode(65 + i)}`, `${name(id)}: weight ${state.weights[i]} (${Math.round((state.weights[i] / total) * 100)}%)`]),
    );
  } else if (!isDripType(state.type)) rows.push(['Template', name(state.templateId)]);
  if (isDripType(state.type)) {
    state.emails.forEach((e, i) => rows.push([`Email ${i + 1}`, `${name(e.templateId)} from ${name(e.personaId)}, ${describeTiming(e.timing, i)}`]));
  }
  const segments = chosenSegmentIds(state);
  const users = chosenUserIds(state);
  if (segments.length) rows.push(['Segments', segments.map(name).join(', ')]);
  if (users.length) rows.push(['Contacts', users.map(name).join(', ')]);
  if (isBlastType(state.type)) rows.push(['Send at', describeTiming(state.timing)]);
  if (usesBestHour(state)) rows.push(['Send time', SEND_TIME_WORDS.bestHourSummary]);
  if (isReEngagement(state)) rows.push([SEND_TIME_WORDS.reEngagement, 'Yes: contacts past the sunset policy get it once']);
  return (
    <Table size="small" aria-label="Your choices">
      <TableBody>
        {rows.map(([k, v]) => (
          <TableRow key={k}>
            <TableCell component="th" scope="row" sx={{ width: 200, fontWeight: 500 }}>
              {k}
            </TableCell>
            <TableCell>{v}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/**
 * sendingTime says how long the launch's emails take to go out under the governor's limits that apply now (the
 * relay's rate, the providers' rates, the warm-up), and what sets it, in words.
 */
export function sendingTime(preview: Pick<Preview, 'estimated_duration_s' | 'estimate_limited_by'>): string {
  const s = preview.estimated_duration_s;
  if (s === null) return 'As fast as the relay takes them (no rate limit or warm-up applies)';
  const words =
    s < 60
      ? `${Math.max(1, s)} s`
      : s < 3600
        ? `${Math.round(s / 60)} min`
        : s < 48 * 3600
          ? `${(s / 3600).toFixed(1).replace(/\.0$/, '')} h`
          : `${(s / 86_400).toFixed(1).replace(/\.0$/, '')} days`;
  return `About ${words} (${preview.estimate_limited_by ?? 'the relay’s limit'})`;
}

/** Audience shows the preview's audience and cost. */
function Audience({ state, preview }: { state: WizardState; preview: Preview }) {
  const cost = reviewCost(state.type, preview);
  const ex = preview.excluded;
  const rows: Array<[string, string]> = [];
  // Estimated counts (a large audience's first answer) read "about 980,000 (counting…)" until the exact ones come.
  const n = (x: number) => (preview.counts_estimated ? `about ${aboutCount(x)} (counting…)` : x.toLocaleString('en-US'));
  if (!isEventType(state.type)) {
    rows.push(['Recipients targeted', n(preview.targeted)]);
    rows.push(['Left out: unsubscribed', n(ex.unsubscribed)]);
    // Double opt-in not confirmed yet: shown only when there are some.
    if (ex.unconfirmed) rows.push(['Left out: subscription not confirmed yet', n(ex.unconfirmed)]);
    rows.push(['Left out: bounced', n(ex.bounced)]);
    rows.push(['Left out: suppressed', n(ex.suppressed)]);
    rows.push(['Left out: invalid address', n(ex.invalid)]);
    rows.push(['Left out: not a contact', ex.not_a_contact.toLocaleString('en-US')]);
    // The audience policies (Account → Audience health); absent from an answer made before they existed.
    rows.push([`Left out: ${EXCLUDED_POLICY_LABELS.sunset}`, n(ex.sunset ?? 0)]);
    rows.push([`Left out: ${EXCLUDED_POLICY_LABELS.frequency}`, n(ex.frequency ?? 0)]);
    rows.push(['Recipients to be sent', n(preview.to_send)]);
    rows.push(['Emails this launch sends', n(preview.emails)]);
  } else {
    rows.push(['Recipients', 'Each contact an event names, as the events arrive']);
  }
  rows.push(['Emails sent this month so far', preview.month_sends.toLocaleString('en-US')]);
  rows.push(['Free emails left this month', preview.cost.free_left.toLocaleString('en-US')]);
  rows.push([cost.label, preview.counts_estimated ? `about ${cost.text} (counting…)` : cost.text]);
  if (!isEventType(state.type)) rows.push(['Estimated sending time', sendingTime(preview)]);
  return (
    <Table size="small" aria-label="Audience and cost">
      <TableBody>
        {rows.map(([k, v]) => (
          <TableRow key={k}>
            <TableCell component="th" scope="row" sx={{ width: 260, fontWeight: 500 }}>
              {k}
            </TableCell>
            <TableCell data-testid={k === cost.label ? 'estimated-cost' : undefined}>{v}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

/** The steps of a finished launch: their labels and final states (the success page lists them). */
export interface LaunchRecord {
  labels: string[];
  states: StepState[];
}

/** ReviewLaunch is the review page; `onLaunched` gets the ids and the steps once every step has succeeded. */
export function ReviewLaunch({
  state,
  labels,
  today,
  onBack,
  onCancel,
  onLaunched,
}: {
  state: WizardState;
  labels: Record<string, string>;
  today: string;
  onBack: () => void;
  onCancel: () => void;
  onLaunched: (ids: LaunchIds, steps: LaunchRecord) => void;
}) {
  const dataProvider = useDataProvider<AppDataProvider>();
  const deps = useLaunchDeps();
  const unmountSignal = useUnmountSignal();
  const [preview, setPreview] = useState<Preview | undefined>();
  const [previewError, setPreviewError] = useState<string | undefined>();
  const [phase, setPhase] = useState<'ready' | 'running' | 'failed'>('ready');
  const [states, setStates] = useState<StepState[]>([]);
  const [plan, setPlan] = useState<LaunchPlan | undefined>();
  const [planError, setPlanError] = useState<string | undefined>();
  const [checkBlockers, setCheckBlockers] = useState<string[]>([]);
  const pastWarning = isBlastType(state.type) ? pastSendTime(state.timing) : undefined;
  const capNote = preview && capCheckedAgain(state, preview.excluded.frequency ?? 0);
  const request = JSON.stringify(previewRequest(state));

  useEffect(() => {
    let live = true;
    setPreview(undefined);
    setPreviewError(undefined);
    // A large audience is estimated first (an answer at once), then counted exactly.
    const ask = (counts: 'estimate' | 'exact') => dataProvider.callGateway('previewEmailBlast', { body: { ...JSON.parse(request), counts } });
    ask('estimate')
      .then(async (answer) => {
        if (!live) return;
        setPreview(answer.data);
        if (answer.data.counts_estimated) {
          const exact = await ask('exact');
          if (live) setPreview(exact.data);
        }
      })
      .catch((error: Error) => live && setPreviewError(error.message));
    return () => {
      live = false;
    };
  }, [dataProvider, request]);

  // The steps are planned up front (ids made once), so they show waiting before Launch and a broken graph shows at once.
  const ids = useMemo<LaunchIds>(() => ({ campaignId: uuidv4(), blastId: uuidv4(), workflowId: uuidv4(), nodeId: uuidv4 }), []);
  useEffect(() => {
    try {
      const segmentNames = Object.fromEntries(chosenSegmentIds(state).map((id) => [id, labels[id] ?? id]));
      setPlan(planLaunch(state, ids, today, segmentNames));
      setPlanError(undefined);
    } catch (error) {
      setPlanError((error as Error).message);
    }
  }, [state, ids, today, labels]);

  // While the steps run the browser asks before the tab is closed or reloaded.
  useEffect(() => {
    if (phase !== 'running') return;
    const warn = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [phase]);

  const launch = async () => {
    if (!plan) return;
    const signal = unmountSignal();
    setPhase('running');
    const final = await runLaunch(deps, plan, setStates, undefined, signal);
    if (signal.aborted) return;
    if (final.every((s) => s.status === 'succeeded')) onLaunched(ids, { labels: plan.steps.map((st) => st.label), states: final });
    else setPhase('failed');
  };

  const problems = preview?.problems ?? [];
  const running = phase === 'running';
  const canLaunch = phase === 'ready' && !!preview && !problems.length && !checkBlockers.length && !!plan;
  const personas = chosenPersonaIds(state);

  return (
    <Stack spacing={3}>
      <Box>
        <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
          Your choices
        </Typography>
        <Summary state={state} labels={labels} />
      </Box>
      <Box>
        <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
          {isEventType(state.type) ? 'Cost' : 'Audience and cost'}
        </Typography>
        {!preview && !previewError && (
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <CircularProgress size={20} aria-label="Loading the preview" />
            <Typography>Working out the audience and the cost…</Typography>
          </Stack>
        )}
        {previewError && <Alert severity="error">{`Couldn't preview the launch: ${previewError}`}</Alert>}
        {preview && <Audience state={state} preview={preview} />}
      </Box>
      <Box component="section" aria-labelledby="review-email-heading">
        <Typography variant="h6" component="h2" id="review-email-heading" sx={{ mb: 1 }}>
          The email
        </Typography>
        <EmailPreview templateIds={chosenTemplateIds(state)} personaOf={(id) => personaOfTemplate(state, id)} />
      </Box>
      <PreSendChecklist templateIds={chosenTemplateIds(state)} labels={labels} onBlockers={setCheckBlockers} />
      {capNote && (
        <Alert severity="info" data-testid="frequency-cap-note">
          {capNote}
        </Alert>
      )}
      {pastWarning && (
        <Alert severity="warning" data-testid="past-send-time">
          {pastWarning}
        </Alert>
      )}
      {(preview?.warnings ?? []).length > 0 && (
        <Alert severity="warning" role="status" aria-label="Delivery warnings" data-testid="delivery-warnings">
          <Typography sx={{ fontWeight: 500 }}>You can launch, but:</Typography>
          <ul style={{ margin: 0, paddingLeft: 20 }}>
            {preview!.warnings.map((w) => (
              <li key={w}>{w}</li>
            ))}
          </ul>
        </Alert>
      )}
      {problems.length > 0 && (
        <Alert severity="error" role="alert" aria-label="Launch problems">
          <Typography sx={{ fontWeight: 500 }}>This campaign cannot be launched yet:</Typography>
          <ul style={{ margin: 0, paddingLeft: 20 }}>
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
          {personas.length > 0 && (
            <Typography variant="body2" sx={{ mt: 1 }}>
              After fixing it, come back to this page: it checks again when it opens.
            </Typography>
          )}
        </Alert>
      )}
      {planError && <Alert severity="error">{planError}</Alert>}
      <Box>
        <Typography variant="h6" component="h2">
          Launch steps
        </Typography>
        {running && (
          <Alert severity="warning" role="status" sx={{ mt: 1 }}>
            Launching: please do not close this tab until every step has finished.
          </Alert>
        )}
        {phase === 'failed' && (
          <Alert severity="error" sx={{ mt: 1 }}>
            The launch stopped at a failed step and the later steps were cancelled. What the earlier steps created is on the campaigns, email blasts and
            workflows pages.
          </Alert>
        )}
        <StepList label="Launch steps" steps={(plan?.steps ?? []).map((s, i) => ({ key: `${s.kind}-${i}`, label: s.label }))} states={states} />
      </Box>
      <Stack direction="row" spacing={1}>
        <Button onClick={onBack} disabled={running}>
          Back
        </Button>
        <Button onClick={onCancel} disabled={running}>
          Cancel
        </Button>
        <Button variant="contained" onClick={launch} disabled={!canLaunch || running}>
          Launch
        </Button>
      </Stack>
    </Stack>
  );
}
