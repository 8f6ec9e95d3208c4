/**
 * The workflow editor's 'Run segment' modal (spec part 2 §2 Workflows, §5 Workflow, §7 Workflows, §8):
 * every contact of the chosen segment enters the saved workflow at its trigger node, through
 * POST {segmentwrapper}/segments/send_to_workflow {segment_id, workflow_id, root_node_id}. No segment says 'Please
 * select a segment!'; a graph without a trigger says 'Please add a trigger node to the workflow'; success toasts
 * exactly 'Segment submitted successfully' (part 2 §8) and the modal stays open to say how many contacts entered,
 * with Close; a failure shows the server's error in the modal. The editor passes the last-saved graph's trigger.
 */
import { useState } from 'react';
import { useDataProvider, useNotify } from 'react-admin';
import { Alert, Button, Dialog, DialogActions, DialogContent, DialogContentText, DialogTitle, Stack } from '@mui/material';
import type { AppDataProvider } from '../data/dataProvider';
import { PickList, usePickSource } from '../resources/shared/PickList';

/** The spec's messages of the modal (part 2 §5, §8). */
export const RUN_SEGMENT_MESSAGES = {
  noSegment: 'Please select a segment!',
  noTrigger: 'Please add a trigger node to the workflow',
  success: 'Segment submitted successfully',
} as const;

/** Not retried: a retry after an answer that was lost would enter the segment twice. */
const NO_RETRY = { retries: 0, delayMs: 0 };

/** enteredText says how many contacts a Run segment entered into the workflow, e.g. '1 contact entered the workflow.' */
export function enteredText(n: number): string {
  return `${n.toLocaleString('en-US')} contact${n === 1 ? '' : 's'} entered the workflow.`;
}

/**
 * The modal's props: the saved workflow, the trigger node's id of its last-saved graph (undefined when it has none),
 * and what to do after a segment was submitted (e.g. reload the runs) and on close.
 */
export interface RunSegmentDialogProps {
  workflowId: string;
  triggerId: string | undefined;
  onSubmitted?: (entered: number) => void;
  onClose: () => void;
}

/** RunSegmentDialog enters a segment's contacts into the workflow. */
export function RunSegmentDialog({ workflowId, triggerId, onSubmitted, onClose }: RunSegmentDialogProps) {
  const dataProvider = useDataProvider<AppDataProvider>();
  const notify = useNotify();
  const segments = usePickSource('segments');
  const [segmentId, setSegmentId] = useState<string | undefined>();
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [entered, setEntered] = useState<number | undefined>();

  const submit = async () => {
    if (!segmentId) return setError(RUN_SEGMENT_MESSAGES.noSegment);
    if (!triggerId) return setError(RUN_SEGMENT_MESSAGES.noTrigger);
    setBusy(true);
    setError('');
    try {
      const res = await dataProvider.callGateway(
        'sendSegmentToWorkflow',
        {
          body: { segment_id: segmentId, workflow_id: workflowId, root_node_id: triggerId },
        },
        NO_RETRY,
      );
      notify(RUN_SEGMENT_MESSAGES.success, { type: 'success' });
      setEntered(res.data.num_users);
      onSubmitted?.(res.data.num_users);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open onClose={() => !busy && onClose()} aria-labelledby="run-segment-title" fullWidth maxWidth="sm">
      <DialogTitle id="run-segment-title">Run segment</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <DialogContentText>
            Every contact in the segment enters the saved workflow at its trigger node now, each on a path of its own. Save your changes first: the saved
            workflow is the one that runs.
          </DialogContentText>
          <PickList
            id="run-segment-segment"
            label="Segment"
            source={segments}
            value={segmentId ? [segmentId] : []}
            disabled={entered !== undefined}
            onChange={(ids) => {
              setSegmentId(ids[0]);
              setError('');
            }}
          />
          {error && <Alert severity="error">{error}</Alert>}
          {entered !== undefined && (
            <Alert severity="success" role="status">
              {enteredText(entered)}
            </Alert>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          {entered === undefined ? 'Cancel' : 'Close'}
        </Button>
        {entered === undefined && (
          <Button variant="contained" onClick={submit} disabled={busy}>
            Submit
          </Button>
        )}
      </DialogActions>
    </Dialog>
  );
}
