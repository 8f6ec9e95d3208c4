/**
 * The workflow list's per-row actions (spec part 2 §2 Workflows, §4 Workflow save (archive), §8):
 * - Disable, shown only while the workflow is enabled: the dialog explains that to stop new contacts the user edits
 *   the workflow and removes the links from its root/trigger node, and offers "Disable now" (disableWorkflow), which
 *   stops new entries at once; contacts already in it go on.
 * - Archive: after a confirmation, DELETE archiveWorkflow (not retried), then wait for its JOB_DELETE_WORKFLOW
 *   job-log entry to end (waitForJob: 2 s polls, up to 200 checks, reading the entry by the job_log_id the DELETE
 *   answered; a 503 from the DELETE probably means it is still running, so the wait looks for a new entry of the
 *   workflow, passing over those read before the DELETE). The dialog cannot be closed while it waits; leaving the
 *   page stops the wait, and no toast or refresh follows. Toasts 'Successfully archived workflow' or "Couldn't
 *   archive workflow: …".
 */
import { useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { useDataProvider, useNotify, useRecordContext, useRefresh } from 'react-admin';
import { Alert, Button, CircularProgress, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, Stack } from '@mui/material';
import type { ListRow } from '../../data/apiTypes';
import type { AppDataProvider } from '../../data/dataProvider';
import { JOB_DELETE_WORKFLOW, WORKFLOW_JOB_WAIT, gatewayJobWaitDeps, requestJob, waitForJob } from '../../data/jobWait';
import { useUnmountSignal } from '../../data/useUnmountSignal';

/** A workflow row of the list (a listWorkflows row, as generated). */
type WorkflowRow = ListRow<'listWorkflows'>;

/** Not retried: a 503 is waited out on the job log, and any other failure is final. */
const NO_RETRY = { retries: 0, delayMs: 0 };

/** The archive's failure toast (part 2 §8: "Couldn't archive … workflows"). */
export const archiveFailed = (reason: string) => `Couldn't archive workflow: ${reason}`;

/** Why an archive wait ended without success, for archiveFailed (each pointing to the notifications tab, part 2 §8). */
export const ARCHIVE_WAIT_REASONS = {
  failed: (error: string) => error || 'the archive job failed',
  timedOut: 'it is taking a very long time; please check the notifications tab before trying again',
  unreadable: (error: string) => `the job log could not be read (${error}); please check the notifications tab before trying again`,
};

/** WorkflowDisableButton explains how to stop new contacts and can disable the row's workflow now. */
export function WorkflowDisableButton() {
  const record = useRecordContext<WorkflowRow>();
  const dataProvider = useDataProvider<AppDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!record || !record.enabled) return null;
  const titleId = `disable-workflow-${record.id}`;

  const disable = async () => {
    setBusy(true);
    try {
      await dataProvider.callGateway('disableWorkflow', { path: { id: record.id } });
      notify('Successfully disabled workflow', { type: 'success' });
      setOpen(false);
      refresh();
    } catch (e) {
      notify(`Couldn't disable workflow: ${(e as Error).message}`, { type: 'error' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Button size="small" onClick={() => setOpen(true)} aria-label={`Disable ${record.name}`}>
        Disable
      </Button>
      <Dialog open={open} onClose={() => !busy && setOpen(false)} aria-labelledby={titleId}>
        <DialogTitle id={titleId}>Disable workflow ‘{record.name}’?</DialogTitle>
        <DialogContent>
          <DialogContentText sx={{ mb: 1 }}>
            To stop new contacts entering this workflow, edit the workflow and remove the links from its root (trigger) node, then save it.
          </DialogContentText>
          <DialogContentText>
            Or disable it now: from now on no new contact enters it, and contacts already in it go on to the end of their path. Saving the workflow again
            enables it.
          </DialogContentText>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)} disabled={busy}>
            Cancel
          </Button>
          <Button component={RouterLink} to={`/components/workflows/edit/${record.id}`} disabled={busy}>
            Edit workflow
          </Button>
          <Button variant="contained" color="warning" onClick={disable} disabled={busy}>
            Disable now
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}

/** WorkflowArchiveButton archives the row's workflow and waits for the archive job. */
export function WorkflowArchiveButton() {
  const record = useRecordContext<WorkflowRow>();
  const dataProvider = useDataProvider<AppDataProvider>();
  const notify = useNotify();
  const refresh = useRefresh();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const unmountSignal = useUnmountSignal();
  if (!record) return null;
  const titleId = `archive-workflow-${record.id}`;

  const archive = async () => {
    setBusy(true);
    setError('');
    const signal = unmountSignal();
    const deps = gatewayJobWaitDeps(dataProvider);
    try {
      const match = await requestJob(
        deps,
        { jobName: JOB_DELETE_WORKFLOW, workflowId: record.id },
        async () => (await dataProvider.callGateway('archiveWorkflow', { path: { id: record.id } }, NO_RETRY)).job_log_id,
      );
      const result = await waitForJob(deps, match, WORKFLOW_JOB_WAIT, signal);
      if (signal.aborted) return;
      if (result.status === 'succeeded') {
        notify('Successfully archived workflow', { type: 'success' });
        setOpen(false);
        refresh();
        return;
      }
      const reason =
        result.status === 'failed'
          ? ARCHIVE_WAIT_REASONS.failed(result.error)
          : result.status === 'unreadable'
            ? ARCHIVE_WAIT_REASONS.unreadable(result.error)
            : ARCHIVE_WAIT_REASONS.timedOut;
      setError(archiveFailed(reason));
      notify(archiveFailed(reason), { type: 'error' });
    } catch (e) {
      if (signal.aborted) return;
      setError(archiveFailed((e as Error).message));
      notify(archiveFailed((e as Error).message), { type: 'error' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <Button
        size="small"
        color="error"
        onClick={() => {
          setError('');
          setOpen(true);
        }}
        aria-label={`Archive ${record.name}`}
      >
        Archive
      </Button>
      <Dialog open={open} onClose={() => !busy && setOpen(false)} aria-labelledby={titleId}>
        <DialogTitle id={titleId}>Archive workflow ‘{record.name}’?</DialogTitle>
        <DialogContent>
          <Stack spacing={1}>
            <DialogContentText>
              An archived workflow takes no new contacts, and every contact still in it leaves it (an email already queued still goes). This cannot be undone.
            </DialogContentText>
            {busy && (
              <Alert severity="info" icon={<CircularProgress size={18} />}>
                Archiving: waiting for the archive job to finish. Please keep this page open.
              </Alert>
            )}
            {error && <Alert severity="error">{error}</Alert>}
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={() => setOpen(false)} disabled={busy}>
            Cancel
          </Button>
          <Button variant="contained" color="error" onClick={archive} disabled={busy}>
            Archive
          </Button>
        </DialogActions>
      </Dialog>
    </>
  );
}
