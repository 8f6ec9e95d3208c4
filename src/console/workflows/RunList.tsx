/**
 * Contacts' paths through workflows (a contact's path must be visible from the workflow and from the contact):
 * runs newest first, 10 a page, each with its contact (or workflow), status, trigger event, and the steps it took —
 * node, status, when it was due and when it ran (in the user's locale and zone) and what it did ('match', 'no match',
 * 'waiting until …' for a delay still running (runSteps.ts), 'queued email …'). The workflow editor's Runs panel reads listWorkflowRuns, the contact page listContactRuns. While a
 * page loads (the first, a refresh, paging) a progress bar shows, the section is busy and Refresh and paging wait; a
 * failed load shows 'Unable to load data' alone, without the runs of an earlier page. Free of @joint/core, so the
 * contact page does not load the editor.
 */
import { useCallback, useEffect, useState } from 'react';
import { Link as RouterLink } from 'react-router-dom';
import { useDataProvider } from 'react-admin';
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Chip,
  LinearProgress,
  Link,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import RefreshIcon from '@mui/icons-material/Refresh';
import type { components } from '../../../generated/types/workflowwrapper.gen';
import { nodeLabel } from '../../domain/workflowGraph';
import { formatDateTime } from '../dates';
import { describeStep } from './runSteps';
import type { AppDataProvider } from '../data/dataProvider';

type Run = components['schemas']['WorkflowRun'];

/** Runs per page (spec part 2 §9: store paging offset 0, limit 10). */
export const RUNS_PAGE = 10;

const RUN_STATUS_COLOR: Record<Run['status'], 'default' | 'primary' | 'success' | 'warning'> = {
  active: 'primary',
  completed: 'success',
  excluded: 'warning',
  ended: 'default',
};

/** RunPath lists one run's steps in the order they were due; `titles` names the nodes of the workflow on screen. */
export function RunPath({ run, titles }: { run: Run; titles?: Map<string, string> }) {
  const now = Date.now();
  return (
    <Table size="small" aria-label={`Path of ${run.email ?? 'the contact'} through ${run.workflow_name}`}>
      <TableHead>
        <TableRow>
          <TableCell>Step</TableCell>
          <TableCell>Status</TableCell>
          <TableCell>Due</TableCell>
          <TableCell>Ran</TableCell>
          <TableCell>Outcome</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {run.steps.map((s) => {
          const shown = describeStep(s, now);
          return (
            <TableRow key={`${s.node_id}-${s.due_at}`}>
              <TableCell>{titles?.get(s.node_id) ?? (s.node_type ? nodeLabel(s.node_type) : `node ${s.node_id} (no longer in the workflow)`)}</TableCell>
              <TableCell>{shown.status}</TableCell>
              <TableCell>{formatDateTime(s.due_at)}</TableCell>
              <TableCell>{formatDateTime(s.executed_at)}</TableCell>
              <TableCell>{shown.outcome}</TableCell>
            </TableRow>
          );
        })}
      </TableBody>
    </Table>
  );
}

/** The props of a run list: whose runs (a workflow's or a contact's), and the node titles of a workflow on screen. */
export interface RunListProps {
  /** Runs of this workflow (listWorkflowRuns), or… */
  workflowId?: string;
  /** …of this contact across workflows (listContactRuns). */
  contactId?: string;
  titles?: Map<string, string>;
  /** The section heading. */
  heading: string;
  /** Changing it reloads the list (e.g. after a save or a Run segment). */
  reloadKey?: unknown;
}

/** RunList shows runs with their paths, newest first, paged, with a Refresh button. */
export function RunList({ workflowId, contactId, titles, heading, reloadKey }: RunListProps) {
  const dataProvider = useDataProvider<AppDataProvider>();
  const [page, setPage] = useState(0);
  const [state, setState] = useState<{ runs: Run[]; total: number } | null>(null);
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);

  const load = useCallback(async () => {
    const query = { limit: RUNS_PAGE, offset: page * RUNS_PAGE };
    return workflowId
      ? dataProvider.callGateway('listWorkflowRuns', { path: { id: workflowId }, query })
      : // One of workflowId and contactId is always given; '' is left out of the URL (the gateway then names contact_id).
        dataProvider.callGateway('listContactRuns', { query: { ...query, contact_id: contactId ?? '' } });
  }, [dataProvider, workflowId, contactId, page]);

  useEffect(() => {
    let live = true;
    setError('');
    setLoading(true);
    load()
      .then((r) => {
        if (live) setState({ runs: r.data, total: r.total });
      })
      .catch((e: Error) => {
        if (live) {
          setState(null);
          setError(e.message);
        }
      })
      .finally(() => {
        if (live) setLoading(false);
      });
    return () => {
      live = false;
    };
  }, [load, tick, reloadKey]);

  const headingId = `runs-${workflowId ?? contactId}`;
  return (
    <Card variant="outlined" component="section" aria-labelledby={headingId} aria-busy={loading}>
      <CardContent>
        <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 1 }}>
          <Typography variant="h6" component="h2" id={headingId}>
            {heading}
          </Typography>
          <Button size="small" startIcon={<RefreshIcon />} onClick={() => setTick((t) => t + 1)} disabled={loading}>
            Refresh
          </Button>
        </Stack>
        <Box sx={{ height: 4, mb: 1 }}>{loading && <LinearProgress aria-label="Loading runs" />}</Box>
        {error && <Alert severity="error">Unable to load data: {error}</Alert>}
        {state && state.total === 0 && (
          <Typography>{workflowId ? 'No contact has entered this workflow yet.' : 'This contact has not entered any workflow yet.'}</Typography>
        )}
        {state &&
          state.runs.map((run) => (
            <Box
              key={run.id}
              component="article"
              aria-label={`Run of ${run.email ?? 'a contact'} through ${run.workflow_name}`}
              sx={{ mb: 2 }}
              data-testid="workflow-run"
            >
              <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap', mb: 0.5 }}>
                {workflowId ? (
                  run.contact_id ? (
                    <Link component={RouterLink} to={`/people/users/edit/${run.contact_id}`}>
                      {run.email ?? run.contact_id}
                    </Link>
                  ) : (
                    <Typography component="span">{run.email ?? '(no contact)'}</Typography>
                  )
                ) : (
                  <Link component={RouterLink} to={`/components/workflows/edit/${run.workflow_id}`}>
                    {run.workflow_name}
                  </Link>
                )}
                <Chip size="small" label={run.status} color={RUN_STATUS_COLOR[run.status]} />
                <Typography variant="body2" color="text.secondary">
                  {run.trigger_event ? `entered on event ${run.trigger_event}` : 'entered'} at {formatDateTime(run.created_at)}
                  {run.ended_at ? `, ended ${formatDateTime(run.ended_at)}` : ''}
                </Typography>
              </Stack>
              <Box sx={{ overflowX: 'auto' }}>
                <RunPath run={run} titles={titles} />
              </Box>
            </Box>
          ))}
        {state && state.total > RUNS_PAGE && (
          <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
            <Button size="small" disabled={loading || page === 0} onClick={() => setPage(page - 1)}>
              Newer
            </Button>
            <Typography variant="body2">
              {page * RUNS_PAGE + 1}–{Math.min(state.total, (page + 1) * RUNS_PAGE)} of {state.total}
            </Typography>
            <Button size="small" disabled={loading || (page + 1) * RUNS_PAGE >= state.total} onClick={() => setPage(page + 1)}>
              Older
            </Button>
          </Stack>
        )}
      </CardContent>
    </Card>
  );
}
