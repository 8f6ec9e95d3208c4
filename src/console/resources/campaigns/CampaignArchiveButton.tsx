/**
 * A campaign row's Archive action (spec part 2 §4 Campaign archive, §7, §8): the click first reads the campaign
 * (planArchive: 'an error has occurred, please reload the page and try again' when the gateway answers without it,
 * "Couldn't fetch campaigns: …" when it cannot be read), then a dialog lists the planned steps, named after the
 * campaign's email blasts and workflows — disable each email blast, or archive each workflow and wait for its job,
 * then archive the campaign — each shown waiting, in progress, succeeded, failed (its error under it) or cancelled.
 * The dialog cannot be closed while the steps run and asks to keep the window open; leaving the page stops the run
 * before its next step, with no toast or refresh after it. Success toasts 'Successfully archived campaign'; either
 * way the list is refreshed.
 */
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { useDataProvider, useNotify, useRecordContext, useRefresh } from 'react-admin';
import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import type { components } from '../../../../generated/types/campaign.gen';
import { ARCHIVE_WAIT, runSteps, type ArchiveStep, type StepState } from '../../../domain/campaigns';
import type { ListRow } from '../../data/apiTypes';
import type { AppDataProvider } from '../../data/dataProvider';
import { gatewayJobWaitDeps } from '../../data/jobWait';
import { useUnmountSignal } from '../../data/useUnmountSignal';
import { RETRY } from '../../retry';
import { StepList } from '../shared/StepList';
import { WORKFLOW_WAIT_TIMEOUT, archiveStepRunner, planArchive, type ArchiveDeps, type PlanDeps } from './archive';

type Campaign = components['schemas']['Campaign'];

/** Not retried: a re-sent workflow DELETE would queue another JOB_DELETE_WORKFLOW; a 503 is waited out on the job log. */
const NO_RETRY = { retries: 0, delayMs: 0 };

/**
 * campaignIdOf is the campaign id of a /campaigns row: a split A/B row carries it in campaign_id (its own id names
 * the template too; src/console/data/dataProvider.ts).
 */
export function campaignIdOf(record: { id: unknown; campaign_id?: unknown }): string {
  return String(record.campaign_id ?? record.id);
}

/** namesOf maps the rows' ids to their names. */
const namesOf = (rows: Array<ListRow<'listEmailBlasts' | 'listWorkflows'>>) => Object.fromEntries(rows.map((r) => [String(r.id), r.name]));

/** usePlanDeps binds the archive's look-ups to the gateways: the campaign, its blasts' and its workflows' names. */
function usePlanDeps(): PlanDeps<Campaign> {
  const dataProvider = useDataProvider<AppDataProvider>();
  return useMemo(
    () => ({
      async findCampaign(id) {
        return (await dataProvider.callGateway('listCampaigns', { query: { ids: id, limit: 1 } })).campaigns.find((c) => String(c.id) === id);
      },
      async blastNames(ids) {
        return namesOf(
          (
            await dataProvider.callGateway('listEmailBlasts', {
              query: { ids: ids.join(','), limit: Math.min(ids.length, 1000) },
            })
          ).data,
        );
      },
      async workflowNames(ids) {
        return namesOf(
          (
            await dataProvider.callGateway('listWorkflows', {
              query: { ids: ids.join(','), limit: Math.min(ids.length, 1000) },
            })
          ).data,
        );
      },
    }),
    [dataProvider],
  );
}

/** useArchiveDeps binds the archive steps to the gateways (blasts, workflows, the job log, campaigns). */
function useArchiveDeps(): ArchiveDeps {
  const dataProvider = useDataProvider<AppDataProvider>();
  return useMemo(() => {
    const disableRetry = { retries: 8, delayMs: RETRY.write.delayMs };
    return {
      ...gatewayJobWaitDeps(dataProvider),
      async disableBlast(id) {
        const res = await dataProvider.callGateway('disableEmailBlasts', { path: { ids: id } }, disableRetry);
        if (res.ids.includes(id)) return;
        // Not disabled now: done already if the blast exists and is disabled (an archive run again after a failure).
        const { data } = await dataProvider.callGateway('listEmailBlasts', { query: { ids: id, limit: 1 } });
        if (data[0] && !data[0].enabled) return;
        throw new Error(res.errors.join(', ') || `email blast ${id} was not disabled`);
      },
      async archiveWorkflow(id) {
        const res = await dataProvider.callGateway('archiveWorkflow', { path: { id } }, NO_RETRY);
        if (res.errors?.length) throw new Error(res.errors.join(', '));
        return res.job_log_id;
      },
      async archiveCampaign(id) {
        const res = await dataProvider.callGateway('archiveCampaign', { path: { id } }, RETRY.write);
        if (res.errors?.length) throw new Error(res.errors.join(', '));
      },
    } satisfies ArchiveDeps;
  }, [dataProvider]);
}

/** Opens the archive dialog for a row (provided by CampaignArchiveProvider). */
const ArchiveContext = createContext<(campaignId: string) => Promise<void>>(async () => {});

/**
 * CampaignArchiveProvider holds the one archive dialog of the /campaigns list, outside the rows, so the dialog stays
 * open with its final step states when the refreshed list no longer has the archived campaign.
 */
export function CampaignArchiveProvider({ children }: { children: ReactNode }) {
  const planDeps = usePlanDeps();
  const deps = useArchiveDeps();
  const unmountSignal = useUnmountSignal();
  const notify = useNotify();
  const refresh = useRefresh();
  const [plan, setPlan] = useState<{ campaign: Campaign; steps: ArchiveStep[] } | undefined>();
  const [states, setStates] = useState<StepState[]>([]);
  const [phase, setPhase] = useState<'ready' | 'running' | 'done'>('ready');

  const open = useCallback(
    async (campaignId: string) => {
      const signal = unmountSignal();
      const planned = await planArchive(planDeps, campaignId);
      if (signal.aborted) return;
      if (planned.kind !== 'ready') {
        notify(planned.message, { type: 'error' });
        return;
      }
      setPlan({ campaign: planned.campaign, steps: planned.steps });
      setStates(planned.steps.map(() => ({ status: 'waiting' })));
      setPhase('ready');
    },
    [planDeps, notify, unmountSignal],
  );

  const run = async () => {
    if (!plan) return;
    const signal = unmountSignal();
    setPhase('running');
    const final = await runSteps(plan.steps, archiveStepRunner(deps, ARCHIVE_WAIT, signal), setStates, WORKFLOW_WAIT_TIMEOUT);
    if (signal.aborted) return;
    setPhase('done');
    const failed = final.find((s) => s.status === 'failed');
    if (failed) notify(`Couldn't archive campaign: ${failed.error}`, { type: 'error' });
    else notify('Successfully archived campaign', { type: 'success' });
    refresh();
  };

  const close = () => {
    if (phase === 'running') return;
    setPlan(undefined);
  };

  return (
    <ArchiveContext.Provider value={open}>
      {children}
      <Dialog open={!!plan} onClose={close} aria-labelledby="archive-campaign-title" fullWidth maxWidth="sm">
        <DialogTitle id="archive-campaign-title">Archive campaign '{plan?.campaign.name}'?</DialogTitle>
        <DialogContent>
          <DialogContentText>
            {phase === 'running'
              ? 'Archiving: please keep this window open until every step has finished.'
              : 'These steps run in order and cannot be undone; a failed step stops the rest.'}
          </DialogContentText>
          <StepList label="Archive steps" steps={(plan?.steps ?? []).map((step) => ({ key: `${step.kind}-${step.id}`, label: step.label }))} states={states} />
        </DialogContent>
        <DialogActions>
          <Button onClick={close} disabled={phase === 'running'}>
            {phase === 'done' ? 'Close' : 'Cancel'}
          </Button>
          {phase !== 'done' && (
            <Button color="error" variant="contained" onClick={run} disabled={phase === 'running'}>
              Archive
            </Button>
          )}
        </DialogActions>
      </Dialog>
    </ArchiveContext.Provider>
  );
}

/** CampaignArchiveButton is the per-row Archive action: it opens the archive dialog for the row's campaign. */
export function CampaignArchiveButton() {
  const record = useRecordContext();
  const open = useContext(ArchiveContext);
  const [checking, setChecking] = useState(false);
  if (!record) return null;
  const click = async () => {
    setChecking(true);
    try {
      await open(campaignIdOf(record));
    } finally {
      setChecking(false);
    }
  };
  return (
    <Button size="small" color="error" onClick={click} disabled={checking} aria-label={`Archive ${record.name}`}>
      Archive
    </Button>
  );
}
