/**
 * A campaign row's Archive action (spec part 2 §4 Campaign archive, §7, §8): the click first checks the campaign still
 * exists ('an error has occurred, please reload the page and try again' when it does not), then a dialog lists the
 * planned steps — disable each email blast, or archive each workflow and wait for its job, then archive the campaign —
 * each shown waiting, in progress, succeeded, failed (its error under it) or cancelled. The dialog cannot be closed
 * while the steps run. Success toasts 'Successfully archived campaign'; either way the list is refreshed.
 */
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react';
import { useDataProvider, useNotify, useRecordContext, useRefresh } from 'react-admin';
import { Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle } from '@mui/material';
import type { components } from '../../../../generated/types/campaign.gen';
import { archiveSteps, runSteps, type ArchiveStep, type StepState } from '../../../domain/campaigns';
import type { AppDataProvider } from '../../data/dataProvider';
import { RETRY } from '../../retry';
import { StepList } from '../shared/StepList';
import { WORKFLOW_WAIT_TIMEOUT, archiveStepRunner, type ArchiveDeps, type JobEntry } from './archive';

type Campaign = components['schemas']['Campaign'];

/** The toast of an archive click on a campaign that no longer exists (part 2 §8). */
export const CAMPAIGN_GONE = 'an error has occurred, please reload the page and try again';

/**
 * campaignIdOf is the campaign id of a /campaigns row: a split A/B row carries it in campaign_id (its own id names
 * the template too; src/console/data/dataProvider.ts).
 */
export function campaignIdOf(record: { id: unknown; campaign_id?: unknown }): string {
  return String(record.campaign_id ?? record.id);
}

/** useArchiveDeps binds the archive steps to the gateways (blasts, workflows, the job log, campaigns). */
function useArchiveDeps(): ArchiveDeps {
  const dataProvider = useDataProvider<AppDataProvider>();
  const disableRetry = { retries: 8, delayMs: RETRY.write.delayMs };
  return {
    async disableBlast(id) {
      const res = await dataProvider.callGateway<{ ids: string[]; errors: string[] }>('disableEmailBlasts', { path: { ids: id } }, disableRetry);
      if (res.ids.includes(id)) return;
      // Not disabled now: done already if the blast exists and is disabled (an archive run again after a failure).
      const { data } = await dataProvider.callGateway<{ data: Array<{ id: string; enabled: boolean }> }>('listEmailBlasts', { query: { ids: id, limit: 1 } });
      if (data[0] && !data[0].enabled) return;
      throw new Error(res.errors.join(', ') || `email blast ${id} was not disabled`);
    },
    async archiveWorkflow(id) {
      // A 503 means the archive job may still be running: the wait on JOB_DELETE_WORKFLOW that follows decides.
      try {
        const res = await dataProvider.callGateway<{ job_log_id: string; errors: string[] }>('archiveWorkflow', { path: { id } }, RETRY.write);
        if (res.errors?.length) throw new Error(res.errors.join(', '));
      } catch (error) {
        if ((error as { status?: number }).status !== 503) throw error;
      }
    },
    async listJobs(limit) {
      return (await dataProvider.callGateway<{ data: JobEntry[] }>('listJobLog', { query: { limit } })).data;
    },
    async archiveCampaign(id) {
      const res = await dataProvider.callGateway<{ campaign_id: string; errors: string[] }>('archiveCampaign', { path: { id } }, RETRY.write);
      if (res.errors?.length) throw new Error(res.errors.join(', '));
    },
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
}

/** Opens the archive dialog for a row (provided by CampaignArchiveProvider). */
const ArchiveContext = createContext<(campaignId: string) => Promise<void>>(async () => {});

/**
 * CampaignArchiveProvider holds the one archive dialog of the /campaigns list, outside the rows, so the dialog stays
 * open with its final step states when the refreshed list no longer has the archived campaign.
 */
export function CampaignArchiveProvider({ children }: { children: ReactNode }) {
  const dataProvider = useDataProvider<AppDataProvider>();
  const deps = useArchiveDeps();
  const notify = useNotify();
  const refresh = useRefresh();
  const [plan, setPlan] = useState<{ campaign: Campaign; steps: ArchiveStep[] } | undefined>();
  const [states, setStates] = useState<StepState[]>([]);
  const [phase, setPhase] = useState<'ready' | 'running' | 'done'>('ready');

  const open = useCallback(async (campaignId: string) => {
    let campaign: Campaign | undefined;
    const names: Record<string, string> = {};
    try {
      [campaign] = (await dataProvider.callGateway<{ campaigns: Campaign[] }>('listCampaigns', { query: { ids: campaignId, limit: 1 } })).campaigns;
      const blastIds = campaign?.scheduled_email_blast_group_ids ?? [];
      if (blastIds.length) {
        const { data } = await dataProvider.callGateway<{ data: Array<{ id: string; name: string }> }>('listEmailBlasts', {
          query: { ids: blastIds.join(','), limit: Math.min(blastIds.length, 1000) },
        });
        for (const b of data) names[b.id] = b.name;
      }
    } catch {
      campaign = undefined;
    }
    if (!campaign) {
      notify(CAMPAIGN_GONE, { type: 'error' });
      return;
    }
    const steps = archiveSteps(campaign, names);
    setPlan({ campaign, steps });
    setStates(steps.map(() => ({ status: 'waiting' })));
    setPhase('ready');
  }, [dataProvider, notify]);

  const run = async () => {
    if (!plan) return;
    setPhase('running');
    const final = await runSteps(plan.steps, archiveStepRunner(deps), setStates, WORKFLOW_WAIT_TIMEOUT);
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
          <StepList
            label="Archive steps"
            steps={(plan?.steps ?? []).map((step) => ({ key: `${step.kind}-${step.id}`, label: step.label }))}
            states={states}
          />
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
